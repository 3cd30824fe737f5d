// Issue 27 item 3: the canary in encodings the scan used to miss (UTF-16 and UTF-32 text, HTML
// character references, \x / \u / octal escapes, percent-encoding, base32, ROT13, reversed) is found
// at every read size (so each also straddles a chunk boundary), and each evaded the scan of before
// (raw bytes, normalised text, base64/hex runs: its findings with the new forms taken out). A canary
// cut in two, across two files or within one, is found in both places; pieces shorter than MIN_PIECE
// and a lone piece are not.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FileScan, needles } from "../../lib/leak/_scan.ts";
import { findLeaks, MIN_PIECE, type ScanTarget } from "../../lib/leak/index.ts";
import { tempDir } from "../support/tmp.ts";

const CANARY = "CANARY-7f3a9c0e1b2d4f68";

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(s: string): string {
  let bits = "";
  for (const b of Buffer.from(s, "utf8")) bits += b.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5)
    out += B32[Number.parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, "=");
}
const codes = (s: string) => [...s].map((c) => c.codePointAt(0) as number);
const each = (s: string, f: (cp: number, i: number) => string) => codes(s).map(f).join("");
const hex2 = (n: number) => n.toString(16).padStart(2, "0");
const rot13 = (s: string) =>
  s.replace(/[A-Za-z]/g, (c) =>
    String.fromCharCode(((c.charCodeAt(0) - (c <= "Z" ? 65 : 97) + 13) % 26) + (c <= "Z" ? 65 : 97)),
  );
const utf32 = (s: string, le: boolean) => {
  const b = Buffer.alloc(codes(s).length * 4);
  for (const [i, cp] of codes(s).entries()) {
    if (le) b.writeUInt32LE(cp, i * 4);
    else b.writeUInt32BE(cp, i * 4);
  }
  return b;
};
const utf16be = (s: string) => Buffer.from(s, "utf16le").swap16();

type Encode = (s: string) => Buffer | string;
/** The canary in another fixed encoding, as the bytes of a file. */
const FIXED: [string, Encode][] = [
  [
    "UTF-16LE with a byte-order mark",
    (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]),
  ],
  [
    "UTF-16BE in the middle of UTF-8 text",
    (s) => Buffer.concat([Buffer.from("log: "), utf16be(s), Buffer.from(" end\n")]),
  ],
  ["UTF-32LE", (s) => utf32(s, true)],
  ["UTF-32BE", (s) => utf32(s, false)],
  ["base32", (s) => `blob ${base32(s)} end`],
  ["base32 of a longer text (not aligned)", (s) => base32(`notes: ${s}, then more`)],
  ["base32, lower case", (s) => `id=${base32(`x${s}`).toLowerCase()}`],
  ["ROT13", (s) => `rot13: ${rot13(s)}`],
  ["reversed", (s) => [...s].reverse().join("")],
];
/** The canary written with escapes. */
const ESCAPED: [string, Encode][] = [
  ["HTML decimal references", (s) => each(s, (cp) => `&#${cp};`)],
  [
    "HTML hex references, zero-padded, no semicolons",
    (s) => each(s, (cp) => `&#x00${cp.toString(16).toUpperCase()}`),
  ],
  [
    "HTML references for every other character",
    (s) => each(s, (cp, i) => (i % 2 ? `&#${cp};` : String.fromCodePoint(cp))),
  ],
  ["HTML references written in HTML (&amp;#)", (s) => each(s, (cp) => `&amp;#${cp};`)],
  ["\\x escapes", (s) => `printf "${each(s, (cp) => `\\x${hex2(cp)}`)}"`],
  [
    "\\u escapes in a JSON string",
    (s) => `{"note": "${each(s, (cp) => `\\u${cp.toString(16).padStart(4, "0")}`)}"}`,
  ],
  [
    "\\u escapes JSON-encoded twice",
    (s) => JSON.stringify({ code: `x = "${each(s, (cp) => `\\u${cp.toString(16).padStart(4, "0")}`)}"` }),
  ],
  ["\\u{} escapes", (s) => each(s, (cp) => `\\u{${cp.toString(16)}}`)],
  ["octal escapes", (s) => `echo $'${each(s, (cp) => `\\${cp.toString(8).padStart(3, "0")}`)}'`],
  [
    "octal escapes, echo -e style",
    (s) => `echo -e "${each(s, (cp) => `\\0${cp.toString(8).padStart(3, "0")}`)}"`,
  ],
  ["percent-encoding", (s) => `https://x.example.com/?q=${each(s, (cp) => `%${hex2(cp).toUpperCase()}`)}`],
  ["percent-encoding, twice", (s) => each(s, (cp) => `%25${hex2(cp)}`)],
  [
    "escaped Cyrillic look-alikes",
    (s) =>
      each(s.replace("C", "\u0421").replace("A", "\u0410"), (cp) => `\\u${cp.toString(16).padStart(4, "0")}`),
  ],
];

function write(root: string, rel: string, data: string | Uint8Array): string {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  return abs;
}

/** The scan of before: the raw and normalised canary and base64/hex runs, the new forms emptied. */
function scanBefore(data: Buffer): boolean {
  const n = { ...needles(CANARY, new Map()), canaryForms: { wide: [], text: [], base32: [] } };
  const scan = new FileScan(n, false);
  (scan as unknown as { escapes: { push(b: Buffer): void } }).escapes.push = () => undefined;
  scan.push(data);
  scan.end();
  return scan.canaryFound;
}

describe("the canary in other encodings is found", () => {
  for (const [name, encode] of [...FIXED, ...ESCAPED])
    test(name, async () => {
      using dir = tempDir("proctor-leak-enc");
      const encoded = encode(CANARY);
      const data = typeof encoded === "string" ? Buffer.from(encoded, "utf8") : encoded;
      const abs = write(dir.path, "out/notes.txt", data);
      const found: Record<number, string[]> = {};
      for (const chunkBytes of [1, 3, 7, 64, 1 << 20]) {
        const r = await findLeaks({ canary: CANARY }, [{ path: "f", abs }], { chunkBytes });
        found[chunkBytes] = r.offenders.map((o) => o.kind);
      }
      const all = ["canary"];
      expect({ before: scanBefore(data), found }).toEqual({
        before: false,
        found: { 1: all, 3: all, 7: all, 64: all, [1 << 20]: all },
      });
    });
});

test("HTML's named references of punctuation", async () => {
  using dir = tempDir("proctor-leak-enc");
  const canary = "CANARY.7f3a9c0e/1b2d4f68";
  const abs = write(dir.path, "page.html", "<p>CANARY&period;7f3a9c0e&sol;1b2d4f68</p>");
  expect(await findLeaks({ canary }, [{ path: "page.html", abs }])).toEqual({
    offenders: [{ path: "page.html", kind: "canary" }],
    skipped: [],
  });
});

describe("a canary cut in two", () => {
  const cut = (k: number) => [CANARY.slice(0, k), CANARY.slice(k)] as const;
  const cases: { name: string; files: Record<string, string>; split: string[] }[] = [
    ...[MIN_PIECE, 11, CANARY.length - MIN_PIECE].map((k) => ({
      name: `across two files, cut after ${k} characters`,
      files: { "a.txt": `head ${cut(k)[0]}\n`, "b.txt": "nothing here\n", "c.md": `tail: ${cut(k)[1]} done` },
      split: ["a.txt", "c.md"],
    })),
    {
      name: "within one file, the halves joined by code",
      files: { "x.js": `const c = "${cut(9)[0]}" + "${cut(9)[1]}";\n`, "y.txt": "plain\n" },
      split: ["x.js"],
    },
    {
      name: "a piece shorter than MIN_PIECE is not counted",
      files: {
        "a.txt": cut(CANARY.length - MIN_PIECE + 1)[0],
        "b.txt": cut(CANARY.length - MIN_PIECE + 1)[1],
      },
      split: [],
    },
    { name: "one half alone is not a leak", files: { "a.txt": cut(12)[0], "b.txt": "CANARY-" }, split: [] },
  ];
  for (const c of cases)
    test(c.name, async () => {
      using dir = tempDir("proctor-leak-split");
      const targets: ScanTarget[] = Object.entries(c.files).map(([p, text]) => ({
        path: p,
        abs: write(dir.path, p, text),
      }));
      for (const chunkBytes of [1, 5, 1 << 20]) {
        const r = await findLeaks({ canary: CANARY }, targets, { chunkBytes });
        expect(r).toEqual({
          offenders: c.split.map((path) => ({ path, kind: "canary", split: true })),
          skipped: [],
        });
      }
    });

  test("a file with the whole canary is reported once, as the canary, not as a piece", async () => {
    using dir = tempDir("proctor-leak-split");
    const targets = [
      { path: "whole.txt", abs: write(dir.path, "whole.txt", CANARY) },
      { path: "plain.txt", abs: write(dir.path, "plain.txt", "x") },
    ];
    expect(await findLeaks({ canary: CANARY }, targets)).toEqual({
      offenders: [{ path: "whole.txt", kind: "canary" }],
      skipped: [],
    });
  });
});

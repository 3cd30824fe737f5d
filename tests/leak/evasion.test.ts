// Issue 11 item 3: the canary, the held-out prompt and a criterion written into a file so that the
// raw scan misses them (zero-width and format characters inside words, Cyrillic/Greek/Armenian/
// Cherokee look-alikes, fullwidth and mathematical forms, base64 in both alphabets with and without
// padding, glued to other letters, wrapped, hex) are each found, at every read size (so every
// encoding also straddles a chunk boundary). Each case is also run through the raw scan of before
// (no normalisation, no decoding) to prove it evaded it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ByteSearch } from "../../lib/leak/_byte-search.ts";
import { WordWindowSearch } from "../../lib/leak/_match.ts";
import {
  findLeaks,
  type LeakSpec,
  promptShingles,
  scanRunRoot,
  scanSkills,
  shingles,
} from "../../lib/leak/index.ts";
import { tempDir } from "../support/tmp.ts";

const CANARY = "CANARY-7f3a9c0e1b2d4f68";
const PROMPT = "Fix the flaky retry loop in the issue resolver so that it stops after three attempts.";
const CRITERION = {
  id: "opens-pr",
  text: "The agent opens a pull request that references the issue number.",
};
const SPEC: LeakSpec = { canary: CANARY, promptShingles: promptShingles(PROMPT), criteria: [CRITERION] };

const ZW = ["\u200B", "\u200C", "\u200D", "\u2060", "\u00AD", "\uFEFF", "\uFE0F", "\u034F", "\u202E"];
/** A zero-width or format character after every letter, cycling through them. */
const zeroWidth = (s: string) => [...s].map((c, i) => c + (/\w/.test(c) ? ZW[i % ZW.length] : "")).join("");
const swap = (s: string, table: Record<string, string>) => [...s].map((c) => table[c] ?? c).join("");
const CYRILLIC = {
  a: "\u0430",
  e: "\u0435",
  o: "\u043E",
  p: "\u0440",
  c: "\u0441",
  x: "\u0445",
  y: "\u0443",
  A: "\u0410",
  C: "\u0421",
  N: "\u039D",
  R: "\u13A1",
  Y: "\u04AE",
  i: "\u0456",
  s: "\u0455",
};
const GREEK = {
  o: "\u03BF",
  i: "\u03B9",
  v: "\u03BD",
  A: "\u0391",
  N: "\u039D",
  Y: "\u03A5",
  R: "\u13A1",
  C: "\u03F9",
  k: "\u03BA",
  u: "\u03C5",
};
const ARMENIAN_CHEROKEE = {
  o: "\u0585",
  h: "\u0570",
  u: "\u057D",
  n: "\u0578",
  q: "\u0566",
  A: "\u13AA",
  C: "\u13DF",
  R: "\u13A1",
  Y: "\u13A9",
  f: "\u0584",
  b: "\u13CF",
  "4": "\u13CE",
  "3": "\u0417",
};
const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const mathBold = (s: string) =>
  [...s]
    .map((c) =>
      /[A-Z]/.test(c)
        ? String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)
        : /[a-z]/.test(c)
          ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
          : /[0-9]/.test(c)
            ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
            : c,
    )
    .join("");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
const wrap = (s: string) => s.replace(/.{1,76}/g, "$&\n");

type Encode = (s: string) => string;
const ENCODINGS: [string, Encode][] = [
  ["zero-width and format characters inside words", zeroWidth],
  ["Cyrillic look-alikes", (s) => swap(s, CYRILLIC)],
  ["Greek look-alikes", (s) => swap(s, GREEK)],
  ["Armenian and Cherokee look-alikes", (s) => swap(s, ARMENIAN_CHEROKEE)],
  ["fullwidth forms", fullwidth],
  ["mathematical bold", mathBold],
  ["look-alikes and zero-width together", (s) => zeroWidth(swap(s, CYRILLIC))],
  ["base64, padded", (s) => `data: ${b64(`${s}!`)} end`],
  ["base64, unpadded", (s) => `token=${b64(`${s}!`).replace(/=+$/, "")};`],
  ["base64url", (s) => `"${b64url(`~~${s}??>`)}"`],
  ["base64 glued to 1 letter", (s) => `x${b64(s)}`],
  ["base64 glued to 2 letters", (s) => `xy${b64(s)}`],
  ["base64 glued to 3 letters", (s) => `xyz${b64(s)}`],
  ["base64 wrapped at 76 columns", (s) => wrap(b64(`${"padding text ".repeat(5)}${s}`))],
  ["base64 of look-alikes", (s) => b64(zeroWidth(swap(s, CYRILLIC)))],
  ["hex", (s) => `sum ${hex(s)} ok`],
  ["hex, uppercase, glued to a hex digit", (s) => `a${hex(s).toUpperCase()}`],
];

const NEEDLES: [string, string, string[]][] = [
  ["canary", `cache: ${CANARY}\n`, ["canary"]],
  ["held-out prompt", `Notes: ${PROMPT}\n`, ["held-out"]],
  ["criterion", `Remember: ${CRITERION.text}\n`, ["criteria-shingle:opens-pr"]],
];

function write(root: string, rel: string, data: string | Uint8Array): string {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  return abs;
}

const kinds = (r: Awaited<ReturnType<typeof findLeaks>>) =>
  r.offenders.map((o) => (o.criterion ? `${o.kind}:${o.criterion}` : o.kind));

/** The scan of before this change: raw canary bytes, raw words, nothing decoded. */
function rawScan(data: Buffer): string[] {
  const canary = new ByteSearch(Buffer.from(CANARY));
  const keys = new Map<string, string[]>();
  for (const k of SPEC.promptShingles ?? []) keys.set(k, ["held-out"]);
  for (const k of shingles(CRITERION.text)) keys.set(k, ["criteria-shingle:opens-pr"]);
  const words = new WordWindowSearch(keys);
  canary.push(data);
  words.push(data);
  words.end();
  return [...(canary.found ? ["canary"] : []), ...(words.utf8 ? words.hits : [])];
}

describe("evasions of the leak scans are found", () => {
  for (const [encoding, encode] of ENCODINGS) {
    for (const [what, text, expected] of NEEDLES) {
      test(`${what}: ${encoding}`, async () => {
        using dir = tempDir("proctor-leak-evasion");
        const data = Buffer.from(encode(text), "utf8");
        const abs = write(dir.path, "skills/demo/NOTES.md", data);
        const found: Record<number, string[]> = {};
        for (const chunkBytes of [1, 3, 7, 64, 1 << 20]) {
          found[chunkBytes] = kinds(await findLeaks(SPEC, [{ path: "f", abs }], { chunkBytes }));
        }
        expect({ before: rawScan(data), found }).toEqual({
          before: [],
          found: { 1: expected, 3: expected, 7: expected, 64: expected, [1 << 20]: expected },
        });
      });
    }
  }

  test("a base64 run straddling the default read boundary", async () => {
    using dir = tempDir("proctor-leak-evasion");
    const head = Buffer.alloc((1 << 20) - 20, "a b ");
    const abs = write(dir.path, "big.txt", Buffer.concat([head, Buffer.from(` ${b64(CANARY)} \n`)]));
    expect(kinds(await findLeaks(SPEC, [{ path: "big.txt", abs }]))).toEqual(["canary"]);
  });

  test("a canary with look-alikes in a binary file (no UTF-8) is found; shingles stay UTF-8 only", async () => {
    using dir = tempDir("proctor-leak-evasion");
    const data = Buffer.concat([
      Buffer.from([0xff, 0x00, 0xc3]),
      Buffer.from(swap(CANARY, CYRILLIC)),
      Buffer.from([0x00, 0xfe]),
      Buffer.from(b64(zeroWidth(CANARY))),
      Buffer.from(PROMPT),
    ]);
    const abs = write(dir.path, "cache.bin", data);
    expect(kinds(await findLeaks(SPEC, [{ path: "cache.bin", abs }], { chunkBytes: 5 }))).toEqual(["canary"]);
  });

  test("every stage: pre-run held-out and criteria checks, staging check, post-run scan", async () => {
    using dir = tempDir("proctor-leak-evasion");
    const rubric = { canary: CANARY, criteria: [CRITERION] };
    write(dir.path, "candidate/skills/demo/NOTES.md", zeroWidth(PROMPT));
    write(dir.path, "candidate/skills/demo/RUBRIC.md", swap(CRITERION.text, CYRILLIC));
    write(dir.path, "candidate/skills/demo/cache.txt", b64url(CANARY));
    const staged = write(dir.path, "fixture/docs/leak.txt", fullwidth(CANARY));
    write(dir.path, "run/run/home/.cache/notes.txt", hex(zeroWidth(CANARY)));
    write(dir.path, "run/run/out/summary.md", mathBold(CRITERION.text));
    const pre = await scanSkills("candidate", join(dir.path, "candidate/skills"), rubric, PROMPT);
    const staging = await findLeaks({ canary: CANARY, criteria: [CRITERION] }, [
      { path: "fixture_repo/docs/leak.txt", abs: staged },
    ]);
    const post = await scanRunRoot(join(dir.path, "run"), rubric, (p) => p.startsWith("run/out/"));
    expect({ pre, staging, post }).toEqual({
      pre: {
        offenders: [
          { arm: "candidate", path: "skills/demo/NOTES.md", kind: "held-out" },
          {
            arm: "candidate",
            path: "skills/demo/RUBRIC.md",
            kind: "criteria-shingle",
            criterion: "opens-pr",
          },
          { arm: "candidate", path: "skills/demo/cache.txt", kind: "canary" },
        ],
        skipped: [],
      },
      staging: { offenders: [{ path: "fixture_repo/docs/leak.txt", kind: "canary" }], skipped: [] },
      post: {
        offenders: [
          { path: "run/home/.cache/notes.txt", kind: "canary" },
          { path: "run/out/summary.md", kind: "criteria-shingle", criterion: "opens-pr" },
        ],
        skipped: [],
      },
    });
  });
});

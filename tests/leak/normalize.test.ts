// The leak scans' normalisation and decoding as streams (lib/leak/_normalize.ts, _decode.ts,
// _scan.ts): cut into chunks anywhere they give what the whole text gives, and the scan still finds
// everything the raw scan of before found (the raw words and canary are kept where normalising
// changed the text). Plus realistic base64-looking noise that must not be a leak.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { type DecodedSink, EncodedRuns } from "../../lib/leak/_decode.ts";
import { Normalizer, normalizeBytes, normalizeText } from "../../lib/leak/_normalize.ts";
import { FileScan, needles } from "../../lib/leak/_scan.ts";
import { findLeaks, type LeakSpec, promptShingles, shingles, words } from "../../lib/leak/index.ts";
import { prng } from "../support/cassette-gen.ts";
import { tempDir } from "../support/tmp.ts";

/** `bytes` cut at `cuts` (any numbers; taken modulo the length, sorted). */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

const TEXT_PARTS = [
  "fix",
  "the",
  "CANARY",
  "e\u0301",
  "\u200B",
  "\u00AD",
  "\uFF21",
  "\u0430",
  "\u03F9",
  "\u00A0",
  "\uFB01",
  " ",
  "\n",
  "—",
  "😀\uFE0F",
  "\u1100\u1161",
  "\u212A",
  "Q0FOQVJZ",
  "-_",
];

describe("normalisation as a stream", () => {
  test("any chunking of UTF-8 text gives the normalised whole", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...TEXT_PARTS), { maxLength: 60 }),
        fc.array(fc.nat(400), { maxLength: 6 }),
        (parts, cuts) => {
          const text = parts.join("");
          const norm = new Normalizer();
          const out = pieces(Buffer.from(text), cuts).flatMap((p) => norm.push(p).map((n) => n.out));
          out.push(norm.end().out);
          expect(Buffer.concat(out).toString("utf8")).toEqual(normalizeText(text));
        },
      ),
      { numRuns: 400, seed: 20261201 },
    );
  });

  test("text with no ASCII byte for more than the carry cap is cut at a character boundary", () => {
    const text = `${"\u0430".repeat(70_000)}\u200B${"\u0441".repeat(70_000)}`;
    const norm = new Normalizer();
    const out = pieces(
      Buffer.from(text),
      Array.from({ length: 80 }, (_, i) => i * 4096 + 1),
    ).flatMap((p) => norm.push(p).map((n) => n.out));
    out.push(norm.end().out);
    expect(Buffer.concat(out).toString("utf8")).toEqual(`${"a".repeat(70_000)}${"c".repeat(70_000)}`);
  });

  test.each([
    ["zero-width inside a word", "fi\u200Bx t\u00ADhe", "fix the"],
    ["fullwidth and ligature", "\uFF26\uFF49x \uFB01x", "Fix fix"],
    ["Cyrillic, Greek, Armenian, Cherokee", "\u0421\u0391N\u13AARY \u0585p\u0435n", "CANARY open"],
    ["a look-alike NFKC would turn into another letter", "\u03F9\u03F2", "Cc"],
    ["ASCII is never remapped", "0O1lI|m rn", "0O1lI|m rn"],
    ["accents stay (not a skeleton of Latin)", "caf\u00E9 cafe\u0301", "caf\u00E9 caf\u00E9"],
  ])("%s", (_name, text, expected) => {
    expect(normalizeText(text)).toEqual(expected);
  });

  test("binary: looking at every min-th byte first finds the same stretches as reading every byte", () => {
    // The reference: every byte read, a character is printable ASCII, tab, a line break or a lead
    // byte with its continuation bytes; stretches of `min`+ bytes kept, normalised, NUL after each.
    const reference = (raw: Buffer, min: number): string => {
      const isText = (b: number) => b === 9 || b === 10 || b === 13 || (b >= 0x20 && b < 0x7f);
      const seqLen = (b: number) =>
        b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
      const out: string[] = [];
      let start = 0;
      let i = 0;
      const close = (end: number) => {
        if (end - start >= min)
          out.push(`${normalizeText(new TextDecoder().decode(raw.subarray(start, end)))}\u0000`);
      };
      while (i < raw.length) {
        let n = isText(raw[i]!) ? 1 : seqLen(raw[i]!);
        for (let k = 1; k < n; k++) if (i + k >= raw.length || (raw[i + k]! & 0xc0) !== 0x80) n = 0;
        if (n > 0) {
          i += n;
          continue;
        }
        close(i);
        i++;
        start = i;
      }
      close(raw.length);
      return out.join("");
    };
    const BYTES = [
      0x41, 0x61, 0x20, 0x0a, 0x00, 0x01, 0xff, 0xc3, 0xa9, 0xd0, 0xb0, 0xe2, 0x80, 0x8b, 0xef, 0xbc, 0xa1,
      0xf0, 0x9d, 0x90, 0x80,
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...BYTES), { minLength: 1, maxLength: 300 }),
        fc.constantFrom(8, 12, 17),
        (bytes, min) => {
          const raw = Buffer.from([0xff, ...bytes]); // never UTF-8
          expect(normalizeBytes(raw, min).out.toString("utf8")).toEqual(reference(raw, min));
        },
      ),
      { numRuns: 1000, seed: 17 },
    );
  });

  test("bytes that are not UTF-8 keep only their text stretches of 8+ bytes, each normalised", () => {
    const raw = Buffer.concat([
      Buffer.from([0xff, 0x00]),
      Buffer.from("short"),
      Buffer.from([0xfe]),
      Buffer.from("\u0421ANARY-long-enough"),
      Buffer.from([0xc3]),
    ]);
    expect(normalizeBytes(raw).out.toString("latin1")).toEqual("CANARY-long-enough\u0000");
  });
});

/** Decoded bytes per lane, as hex strings joined by "|" per run. */
function decodeAll(chunks: Buffer[]): Record<string, string[]> {
  const got: Record<string, string[]> = {};
  const sink = (kind: string, a: number): DecodedSink => {
    let cur: Buffer[] = [];
    const key = `${kind}${a}`;
    got[key] = [];
    return {
      push: (b) => cur.push(Buffer.from(b)),
      end: () => {
        got[key]!.push(Buffer.concat(cur).toString("latin1"));
        cur = [];
      },
    };
  };
  const runs = new EncodedRuns(sink);
  for (const c of chunks) runs.push(c);
  runs.end();
  return got;
}

describe("base64 and hex runs", () => {
  const payload = "The canary CANARY-7f3a9c0e1b2d4f68 in a sentence.";
  test("decoded at the alignment the payload starts at, however the stream is cut", () => {
    fc.assert(
      fc.property(
        fc.nat(3),
        fc.constantFrom("base64", "base64url"),
        fc.array(fc.nat(200), { maxLength: 5 }),
        (glue, alphabet, cuts) => {
          const run = "xyz".slice(0, glue) + Buffer.from(payload).toString(alphabet as BufferEncoding);
          const got = decodeAll(pieces(Buffer.from(`head ${run} tail`), cuts));
          expect(got[`base64${glue}`]!.some((d) => d.includes(payload))).toEqual(true);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  const b64 = (t: string) => Buffer.from(t).toString("base64");
  test.each([
    ["a run of 15 characters is not decoded", b64("hello world").replace(/=+$/, ""), "hello world", false],
    ["a run of 16 hex digits is decoded", Buffer.from("hello wo").toString("hex"), "hello wo", true],
    ["a short line does not start a run across a line break", "aGVsbG8g\nd29ybGQh", "hello", false],
    ["a proved run goes on across line breaks", b64(payload).replace(/.{20}/g, "$&\r\n"), payload, true],
  ])("%s", (_name, text, needle, expected) => {
    const got = decodeAll([Buffer.from(` ${text} `)]);
    expect(
      Object.values(got)
        .flat()
        .some((d) => d.includes(needle)),
    ).toEqual(expected);
  });
});

describe("nothing the raw scan found is lost", () => {
  const PROMPT = "fix the flaky retry loop in the issue resolver";
  const CANARY = "CANARY-7f3a9c0e1b2d4f68";
  const VOCAB = [
    ...words(PROMPT),
    "Fix",
    "other",
    CANARY,
    "\u200B",
    "\u00AD",
    "\u0301",
    "\u00A0",
    "\u0430",
    "\uFF41",
    "—",
    "é",
    "\n",
    ",",
    "x",
  ];
  const keys = new Map<string, string[]>();
  for (const k of promptShingles(PROMPT)) keys.set(k, ["prompt"]);

  test("random texts: hits and canary include the raw ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...VOCAB), { maxLength: 60 }),
        fc.array(fc.constantFrom(" ", "", "\n"), { maxLength: 60 }),
        fc.array(fc.nat(500), { maxLength: 4 }),
        (ws, seps, cuts) => {
          const text = ws.map((w, i) => w + (seps[i] ?? " ")).join("");
          const raw = shingles(text);
          const rawHit = [...shingles(PROMPT)].some((k) => raw.has(k));
          const scan = new FileScan(needles(CANARY, keys), true);
          for (const p of pieces(Buffer.from(text), cuts)) scan.push(p);
          scan.end();
          expect({
            hit: scan.hits.has("prompt") || !rawHit,
            canary: scan.canaryFound || !text.includes(CANARY),
          }).toEqual({ hit: true, canary: true });
        },
      ),
      { numRuns: 500, seed: 11 },
    );
  });
});

describe("the word scan's note of base64 runs", () => {
  const CANARY = "CANARY-7f3a9c0e1b2d4f68";
  const PARTS = [
    "the",
    "agent",
    " ",
    "\n",
    "+",
    "/",
    "-",
    "_",
    "x",
    Buffer.from(CANARY).toString("base64"),
    Buffer.from(`a ${CANARY}`).toString("base64url"),
    "Q0FO",
    "QVJZ",
  ];
  test("decoding after it skipped text finds what decoding everything finds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PARTS), { maxLength: 40 }),
        fc.array(fc.nat(300), { maxLength: 6 }),
        (parts, cuts) => {
          const bytes = Buffer.from(parts.join(""));
          const found = [true, false].map((shingled) => {
            const scan = new FileScan(needles(CANARY, new Map([["the agent", ["k"]]])), shingled);
            for (const p of pieces(bytes, cuts)) scan.push(p);
            scan.end();
            return scan.canaryFound;
          });
          expect(found[0]).toEqual(found[1]);
        },
      ),
      { numRuns: 500, seed: 3 },
    );
  });
});

/** A seeded tree of what repositories hold that looks like base64 or hex, and no needle. */
function noiseTree(root: string): void {
  const rnd = prng(20261201);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  const put = (rel: string, data: string | Buffer) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), data);
  };
  const lock = Array.from(
    { length: 200 },
    (_, i) =>
      `    "node_modules/pkg-${i}": {\n      "resolved": "https://registry.invalid/pkg-${i}/-/pkg-${i}-1.0.${i}.tgz",\n      "integrity": "sha512-${bytes(64).toString("base64")}"\n    }`,
  );
  put("package-lock.json", `{\n  "packages": {\n${lock.join(",\n")}\n  }\n}\n`);
  put(
    "git-log.txt",
    Array.from(
      { length: 300 },
      () =>
        `commit ${bytes(20).toString("hex")}\nAuthor: dev <dev@example.com>\n\n    fix: retry the flaky loop in the resolver\n`,
    ).join("\n"),
  );
  put(
    "tokens.env",
    Array.from(
      { length: 100 },
      () =>
        `JWT=${bytes(36).toString("base64url")}.${bytes(120).toString("base64url")}.${bytes(32).toString("base64url")}\n`,
    ).join(""),
  );
  put(
    "src/VeryLongIdentifierNamesForTheResolverRetryLoop.ts",
    "export const handleIssueResolverRetryLoopTimeoutError = (retryAttemptsRemainingCount: number) => retryAttemptsRemainingCount > 0;\nimport x from '@scope/some-package/dist/esm/internal/utilities/retryHelpers';\n".repeat(
      50,
    ),
  );
  put("logo.html", `<img src="data:image/png;base64,${wrapped(bytes(6000).toString("base64"))}">`);
  put(
    "certs/ca.pem",
    `-----BEGIN CERTIFICATE-----\n${wrapped(bytes(900).toString("base64"))}-----END CERTIFICATE-----\n`,
  );
  put(
    "sums/SHA256SUMS",
    Array.from({ length: 100 }, (_, i) => `${bytes(32).toString("hex")}  proctor-${i}.tar.gz\n`).join(""),
  );
  put(
    "docs/ru.md",
    "Исправьте нестабильный цикл повторов в обработчике задач — он должен остановиться после трёх попыток. 👩‍💻 «Готово»\n".repeat(
      80,
    ),
  );
  put(
    "docs/el.md",
    "Διορθώστε τον ασταθή βρόχο επανάληψης στον επιλυτή ζητημάτων ώστε να σταματά.\n".repeat(80),
  );
  put("bin/blob.bin", bytes(200_000));
}

function wrapped(s: string): string {
  return s.replace(/.{1,64}/g, "$&\n");
}

function* files(root: string, rel = ""): Generator<{ path: string; abs: string }> {
  for (const name of readdirSync(join(root, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(join(root, r)).isDirectory()) yield* files(root, r);
    else yield { path: r, abs: join(root, r) };
  }
}

describe("base64-looking noise is not a leak", () => {
  const spec: LeakSpec = {
    canary: "CANARY-7f3a9c0e1b2d4f68",
    promptShingles: promptShingles(
      "Fix the flaky retry loop in the issue resolver so that it stops after three attempts.",
    ),
    criteria: [{ id: "opens-pr", text: "The agent opens a pull request that references the issue number." }],
  };

  test("lockfile integrity hashes, commit SHAs, JWTs, long identifiers, data URLs, PEM, checksums, Cyrillic and Greek prose, binary", async () => {
    using dir = tempDir("proctor-leak-noise");
    noiseTree(dir.path);
    const report = await findLeaks(spec, files(dir.path), { chunkBytes: 4096 });
    expect(report).toEqual({ offenders: [], skipped: [] });
  });

  test("this repository's own lib/, schemas/, evals/ and package-lock.json", async () => {
    const root = join(import.meta.dirname, "../..");
    const targets = ["lib", "schemas", "evals/cases", "evals/suites"].flatMap((d) => [...files(root, d)]);
    targets.push({ path: "package-lock.json", abs: join(root, "package-lock.json") });
    const report = await findLeaks(spec, targets);
    expect(report).toEqual({ offenders: [], skipped: [] });
  });
});

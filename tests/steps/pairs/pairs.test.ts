// The pair store: plaintext and sealed rows (halo-shadow's format), current and retired keys, and the
// all-or-nothing read: any row that cannot be decoded fails the whole read naming its line; under
// hostile input a row over the cap fails naming its line while the reader never holds more than the
// cap (one 64 MiB line), no error quotes a row, and a FIFO is refused without blocking.
import { describe, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { ConfigError } from "../../../lib/core/errors.ts";
import { run } from "../../../lib/core/proc.ts";
import {
  DEFAULT_MAX_ROW_BYTES,
  keyId,
  loadPairKey,
  Pair,
  pairDecoder,
  pairJsonSchema,
  parsePairKey,
  readPairs,
  seal,
} from "../../../lib/steps/pairs/index.ts";
import { type LineTooLongError, readLines } from "../../../lib/steps/pairs/lines.ts";
import { generateSessions, pairLine, sessionPairs } from "../../support/pair-gen.ts";
import { tempDir } from "../../support/tmp.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");
const KEY_A = Buffer.alloc(32, 1).toString("base64");
const KEY_B = Buffer.alloc(32, 2).toString("base64");
const keyA = parsePairKey(KEY_A, "a.key");
const keyB = parsePairKey(KEY_B, "b.key");

function somePairs(n = 6): Pair[] {
  return generateSessions({ seed: 3, sessions: 3, maxDepth: 4, noise: false })
    .flatMap((s) => sessionPairs(s).pairs)
    .slice(0, n);
}

function caught(fn: () => unknown): { type: string; message: string } {
  try {
    fn();
  } catch (error) {
    return { type: (error as Error).name, message: (error as Error).message };
  }
  return { type: "none", message: "" };
}

test("schemas/pair.schema.json is the generated schema", () => {
  expect(JSON.parse(readFileSync(join(REPO, "schemas", "pair.schema.json"), "utf8"))).toEqual(
    pairJsonSchema(),
  );
});

test("the key id is hex of the first 8 bytes of the key's SHA-256, as halo-shadow computes it", () => {
  const raw = Buffer.alloc(32, 1);
  expect(keyA).toEqual({ kid: createHash("sha256").update(raw).digest("hex").slice(0, 16), key: raw });
  expect(keyId(raw)).toEqual(keyA.kid);
});

describe("key files", () => {
  test.each([
    { name: "trimmed base64 of 32 bytes", text: `  ${KEY_A}\n`, ok: true },
    { name: "16 bytes", text: Buffer.alloc(16).toString("base64"), ok: false },
    { name: "not base64", text: "not a key!!", ok: false },
    { name: "empty", text: "", ok: false },
  ])("$name", ({ text, ok }) => {
    using dir = tempDir("pairkey");
    const path = join(dir.path, "k");
    writeFileSync(path, text);
    expect(caught(() => loadPairKey(path))).toEqual(
      ok
        ? { type: "none", message: "" }
        : {
            type: "ConfigError",
            message: `Cannot load pair key "${path}": expected 32 bytes in standard base64`,
          },
    );
  });
  test("a missing key file names the file and not its contents", () => {
    expect(caught(() => loadPairKey("/nonexistent/k"))).toEqual({
      type: "ConfigError",
      message: 'Cannot read pair key "/nonexistent/k": no such file',
    });
  });
});

describe("reading", () => {
  test("plaintext, sealed (two keys) and blank lines read back the same pairs", () => {
    using dir = tempDir("pairs");
    const pairs = somePairs();
    const path = join(dir.path, "p.jsonl");
    const lines = pairs.map((p, i) => pairLine(p, i % 3 === 0 ? undefined : i % 3 === 1 ? keyA : keyB));
    writeFileSync(path, `${lines.slice(0, 2).join("")}\n  \n${lines.slice(2).join("")}`);
    const rows = [...readPairs(path, [keyA, keyB])];
    expect(rows.map((r) => r.pair)).toEqual(pairs);
    expect(rows.map((r) => r.sealed)).toEqual(pairs.map((_, i) => i % 3 !== 0));
    expect(rows.map((r) => r.line)).toEqual([1, 2, 5, 6, 7, 8]);
  });

  test("a store without sealed rows needs no key", () => {
    using dir = tempDir("pairs");
    const path = join(dir.path, "p.jsonl");
    writeFileSync(
      path,
      somePairs(2)
        .map((p) => pairLine(p))
        .join(""),
    );
    expect([...readPairs(path)].length).toEqual(2);
  });

  const p = somePairs(1)[0] as Pair;
  const sealedRow = JSON.parse(pairLine(p, keyA));
  const bad: Array<{ name: string; line: string; keys: (typeof keyA)[]; why: string }> = [
    {
      name: "wrong key",
      line: JSON.stringify({
        ...sealedRow,
        kid: keyB.kid,
        enc: seal(JSON.stringify(p), p.id, { kid: keyB.kid, key: keyA.key }),
      }),
      keys: [keyB],
      why: "decrypt: message authentication failed",
    },
    {
      name: "no key for kid",
      line: JSON.stringify(sealedRow),
      keys: [keyB],
      why: `no key for kid "${keyA.kid}"`,
    },
    {
      name: "no key at all",
      line: JSON.stringify(sealedRow),
      keys: [],
      why: "sealed row and no --pair-key-file given",
    },
    {
      name: "AAD is the id",
      line: JSON.stringify({ ...sealedRow, id: "other" }),
      keys: [keyA],
      why: "decrypt: message authentication failed",
    },
    {
      name: "short ciphertext",
      line: JSON.stringify({ ...sealedRow, enc: Buffer.alloc(20).toString("base64") }),
      keys: [keyA],
      why: "short ciphertext",
    },
    {
      name: "tampered",
      line: JSON.stringify({ ...sealedRow, enc: `A${sealedRow.enc.slice(1)}` }),
      keys: [keyA],
      why: "decrypt: message authentication failed",
    },
    {
      name: "bad kid",
      line: JSON.stringify({ ...sealedRow, kid: "xyz" }),
      keys: [keyA],
      why: "bad sealed row: Invalid string: must match pattern /^[0-9a-f]{16}$/ at kid",
    },
    {
      name: "not JSON",
      line: "{oops",
      keys: [],
      why: "not JSON: Expecting property name enclosed in double quotes at line 1 column 2",
    },
    {
      name: "missing control",
      line: JSON.stringify({ ...p, control: undefined }),
      keys: [],
      why: "Invalid input: expected object, received undefined at control",
    },
    {
      name: "unknown protocol",
      line: JSON.stringify({ ...p, protocol: "smtp" }),
      keys: [],
      why: 'Invalid option: expected one of "anthropic"|"messages"|"bedrock"|"responses"|"openai"|"openai-responses"|"gemini" at protocol',
    },
  ];
  test.each(bad)("$name fails the whole read naming line 2", ({ line, keys, why }) => {
    using dir = tempDir("pairs");
    const path = join(dir.path, "p.jsonl");
    writeFileSync(path, `${pairLine(p)}${line}\n${pairLine(p)}`);
    const got: string[] = [];
    let err: unknown;
    try {
      for (const r of readPairs(path, keys)) got.push(r.pair.id);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message.startsWith(`Cannot read pair store "${path}": line 2: ${why}`)).toBe(true);
  });

  test("a missing store is a ConfigError naming it", () => {
    expect(caught(() => [...readPairs("/nonexistent/p.jsonl")])).toEqual({
      type: "ConfigError",
      message: 'Cannot read pair store "/nonexistent/p.jsonl": no such file',
    });
  });
});

test("readLines: CRLF, no final newline, lines longer than the 1 MiB chunk, offsets re-readable", () => {
  using dir = tempDir("lines");
  const path = join(dir.path, "l.txt");
  const long = "x".repeat(3 << 20);
  writeFileSync(path, `a\r\n\n${long}\nlast`);
  const lines = [...readLines(path)].map((l) => ({
    ...l,
    text: l.text.length > 10 ? `${l.text.length}` : l.text,
  }));
  expect(lines).toEqual([
    { n: 1, offset: 0, length: 1, text: "a" },
    { n: 2, offset: 3, length: 0, text: "" },
    { n: 3, offset: 4, length: 3 << 20, text: `${3 << 20}` },
    { n: 4, offset: 5 + (3 << 20), length: 4, text: "last" },
  ]);
});

test("the decoder accepts exactly the rows the Pair schema accepts (mutated rows, by property)", () => {
  const base = somePairs(1)[0] as Pair;
  const decode = pairDecoder([]);
  const paths = [
    "id",
    "time",
    "experiment",
    "ring",
    "session_id",
    "protocol",
    "request",
    "control",
    "control.target",
    "control.target.model",
    "control.status",
    "control.latency_ms",
    "control.error",
    "candidate.input_tokens",
    "candidate.target.variant",
    "cost_usd_estimate",
    "version",
  ];
  const values = [undefined, null, "", "x", 1, 1.5, -1, true, [], {}, "anthropic", "smtp"];
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...values)), {
        minLength: 1,
        maxLength: 3,
      }),
      (edits) => {
        const row = structuredClone(base) as unknown as Record<string, unknown>;
        for (const [path, value] of edits) {
          const keys = path.split(".");
          let at: Record<string, unknown> = row;
          for (const k of keys.slice(0, -1)) {
            if (typeof at[k] !== "object" || at[k] === null) at[k] = {};
            at = at[k] as Record<string, unknown>;
          }
          at[keys.at(-1) as string] = value;
        }
        const text = JSON.stringify(row);
        let ok = true;
        try {
          decode(text);
        } catch {
          ok = false;
        }
        expect(ok).toEqual(Pair.safeParse(JSON.parse(text)).success);
      },
    ),
    { numRuns: 2000, seed: 5 },
  );
});

test("one 64 MiB line: fails naming line 2, and the reader never holds more than the cap", () => {
  using dir = tempDir("pairs-cap");
  const path = join(dir.path, "p.jsonl");
  const pair = sessionPairs(generateSessions({ seed: 1, sessions: 1, maxDepth: 1 })[0]!).pairs[0]!;
  const row = pairLine(pair);
  writeFileSync(path, Buffer.concat([Buffer.from(row), Buffer.alloc((64 << 20) + 1, 0x61)]));
  const stats = { peakBuffer: 0 };
  const got = caught(() => [...readPairs(path, [], { stats })]);
  expect({ ...got, peakBuffer: stats.peakBuffer }).toEqual({
    type: "ConfigError",
    message: `Cannot read pair store "${path}": line 2: longer than ${DEFAULT_MAX_ROW_BYTES} bytes (the row cap; --max-row-bytes raises it)`,
    peakBuffer: DEFAULT_MAX_ROW_BYTES + 2,
  });
});

test.each([
  {
    name: "at the cap, LF and CRLF",
    text: "0123456789\n0123456789\r\nab",
    lines: ["0123456789", "0123456789", "ab"],
  },
  { name: "one byte over", text: "0123456789\n01234567890\nab\n", lines: ["0123456789"], tooLong: 2 },
  { name: "last line over, no newline", text: "ab\n01234567890", lines: ["ab"], tooLong: 2 },
  { name: "over with a CR", text: "01234567890\r\n", lines: [], tooLong: 1 },
])("readLines with maxLine 10: $name", ({ text, lines, tooLong }) => {
  using dir = tempDir("lines-cap");
  const path = join(dir.path, "l.txt");
  writeFileSync(path, text);
  const got: { lines: string[]; tooLong?: number } = { lines: [] };
  try {
    for (const l of readLines(path, { maxLine: 10 })) got.lines.push(l.text);
  } catch (error) {
    got.tooLong = (error as LineTooLongError).n;
  }
  expect(got).toEqual({ lines: [...lines], ...(tooLong ? { tooLong } : {}) });
});

const SECRET = "sk-ant-api03-SECRETSECRETSECRETSECRETSECRET";
const KEY = parsePairKey(Buffer.alloc(32, 7).toString("base64"), "k");

test.each([
  {
    name: "a key file read as the store",
    text: `${Buffer.alloc(32, 9).toString("base64")}\n`,
    secret: Buffer.alloc(32, 9).toString("base64"),
    why: "line 1: not JSON: Expecting value at line 1 column 1",
  },
  {
    name: "a secret in a broken row",
    text: `{"id": "p", "token": ${SECRET}}\n`,
    secret: SECRET,
    why: "line 1: not JSON: Expecting value at line 1 column 22",
  },
  {
    name: "a sealed row whose plaintext is not JSON",
    text: `${JSON.stringify({ id: "p", time: "t", kid: KEY.kid, enc: seal(`key=${SECRET}`, "p", KEY) })}\n`,
    secret: SECRET,
    why: "line 1: sealed pair is not JSON: Expecting value at line 1 column 1",
  },
  {
    name: "an escape in a broken row",
    text: `{"id": "\\q${SECRET}"}\n`,
    secret: "q",
    why: "line 1: not JSON: Invalid \\escape at line 1 column 9",
  },
])("no error quotes the row: $name", ({ text, secret, why }) => {
  using dir = tempDir("pairs-quote");
  const path = join(dir.path, "p.jsonl");
  writeFileSync(path, text);
  const got = caught(() => [...readPairs(path, [KEY])]);
  expect(got).toEqual({ type: "ConfigError", message: `Cannot read pair store "${path}": ${why}` });
  expect(got.message.replace(path, "").includes(secret)).toBe(false);
});

test("a FIFO as the store is refused at once, not waited on", async () => {
  using dir = tempDir("pairs-fifo");
  const path = join(dir.path, "p.jsonl");
  expect((await run(["mkfifo", path])).exitCode).toEqual(0);
  expect(caught(() => [...readPairs(path)])).toEqual({
    type: "ConfigError",
    message: `Cannot read pair store "${path}": not a regular file`,
  });
});

// The table of secret shapes (tests/fixtures/redact/shapes.json): the 29 the security issue tried
// against `eval-steps harvest` and more, each with the exact redacted result. Fixture values are
// templates (`{{alnum:36}}`, `{{uuid}}`, `"{{num:8}}"` for a number) expanded from a hash of the row
// name at run time, so the fixture itself carries no credential; a template repeated in a row
// expands to the same value, so `expected` can name the ids that must be kept.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { findSecrets } from "../../lib/redact/index.ts";
import { assertClean, redactRequest } from "../../lib/redact/request.ts";
import { STRICT_DETECTORS } from "../../lib/redact/strict.ts";

const Row = z
  .object({
    name: z.string().min(1),
    text: z.string().optional(),
    request: z.record(z.string(), z.unknown()).optional(),
    /** The rule of the default table (no entropy rule) that must find the text's secret. */
    detector: z.string().optional(),
    expected: z.unknown(),
  })
  .strict()
  .refine((r) => (r.text === undefined) !== (r.request === undefined), "exactly one of text and request");
const ROWS = z
  .array(Row)
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/redact/shapes.json"), "utf8")));

const ALPHABETS: Record<string, string> = {
  alnum: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  upper: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  lower: "abcdefghijklmnopqrstuvwxyz",
  hex: "0123456789abcdef",
  digits: "0123456789",
  num: "123456789",
  b64url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
};

function random(seed: string, alphabet: string, n: number): string {
  let out = "";
  for (let block = 0; out.length < n; block++)
    for (const b of createHash("sha512").update(`${seed}:${block}`).digest())
      if (out.length < n) out += alphabet[b % alphabet.length];
  return out;
}

/** One template's value: the same for the same row and template. */
function value(row: string, kind: string, n: number): string {
  const seed = `${row}:${kind}:${n}`;
  if (kind === "uuid") {
    const h = random(seed, ALPHABETS.hex as string, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
  const s = random(seed, ALPHABETS[kind] as string, n);
  // Generated keys mix all three classes; so do these.
  return kind === "alnum" && n >= 12 ? `aZ7${s.slice(3)}` : s;
}

const TEMPLATE = /\{\{(\w+)(?::(\d+))?\}\}/g;

/** The row's fixture value with every template expanded; `cores` collects each expansion. */
function expand(row: string, v: unknown, cores: Set<string>): unknown {
  if (typeof v === "string") {
    const whole = /^\{\{num:(\d+)\}\}$/.exec(v);
    if (whole) return Number(value(row, "num", Number(whole[1])));
    return v.replace(TEMPLATE, (_, kind: string, n?: string) => {
      const s = value(row, kind, Number(n ?? 0));
      cores.add(s);
      return s;
    });
  }
  if (Array.isArray(v)) return v.map((x) => expand(row, x, cores));
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(row, x, cores)]));
  return v;
}

describe("every secret shape is redacted", () => {
  test.each(ROWS)("$name", (row) => {
    const cores = new Set<string>();
    const request =
      row.text !== undefined
        ? { messages: [{ role: "user", content: expand(row.name, row.text, cores) }] }
        : (expand(row.name, row.request, cores) as Record<string, unknown>);
    const expected: unknown =
      row.text !== undefined
        ? { messages: [{ role: "user", content: row.expected }] }
        : expand(row.name, row.expected, new Set());
    const out: unknown = redactRequest(request);
    const text = JSON.stringify(out);
    const kept = JSON.stringify(expected);
    expect({ out, left: [...cores].filter((c) => text.includes(c) && !kept.includes(c)) }).toEqual({
      out: expected,
      left: [],
    });
    expect(() => assertClean(out, STRICT_DETECTORS, "request")).not.toThrow();
  });

  // The shim, suite logs and promotion transcripts use the default table, which has no entropy rule:
  // each shape must be found there by its own rule, not only by entropy.
  test.each(ROWS.filter((r) => r.detector !== undefined))("default table: $name", (row) => {
    const text = expand(row.name, row.text, new Set()) as string;
    expect(findSecrets(text).map((f) => f.detector)).toEqual([row.detector as string]);
  });
});

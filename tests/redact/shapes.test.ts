// The table of secret shapes (tests/fixtures/redact/shapes.json): the 29 the security issue tried
// against `eval-steps harvest` and more, each with the exact redacted result. Fixture values are
// templates expanded at run time (tests/support/secret-templates.ts), so the fixture itself carries no
// credential.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { findSecrets } from "../../lib/redact/index.ts";
import { assertClean, redactRequest } from "../../lib/redact/request.ts";
import { STRICT_DETECTORS } from "../../lib/redact/strict.ts";
import { expand } from "../support/secret-templates.ts";

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

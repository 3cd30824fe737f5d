// Low-entropy passwords that are secrets by their place (issue 27; tests/fixtures/redact/forms.json):
// Kubernetes env entries, .netrc, XML elements, command-line password flags, YAML block scalars,
// PASS= / db_pass= assignments, SQL IDENTIFIED BY, HAR headers, credential-named URL parameters. Each
// form is redacted in each place a harvested request holds text: a user message, a JSON document
// inside one, tool arguments (an object's string, a Responses call's JSON-string arguments) and, for
// the forms that are JSON, the object itself in tool arguments. Nothing else of the text is lost, the
// re-scan passes, and the default table (gh-shim record, suite logs, promotion) finds it in the text
// and in the text written inside JSON.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { findSecrets, redactText } from "../../lib/redact/index.ts";
import { assertClean, redactRequest } from "../../lib/redact/request.ts";
import { STRICT_DETECTORS } from "../../lib/redact/strict.ts";
import { expand } from "../support/secret-templates.ts";

const Row = z
  .object({
    name: z.string().min(1),
    text: z.string().min(1),
    /** The same form as a JSON value, for the places that hold objects. */
    object: z.record(z.string(), z.unknown()).optional(),
    /** The default table's findings in the text, in order (empty: only the JSON walk finds it). */
    detectors: z.array(z.string()),
    /** Parts of the text that must survive redaction. */
    kept: z.array(z.string().min(1)).min(1),
  })
  .strict();
const ROWS = z
  .array(Row)
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/redact/forms.json"), "utf8")));

/** Every string in a value, JSON held in strings opened too. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") {
    out.push(v);
    try {
      const inner: unknown = JSON.parse(v);
      if (typeof inner === "object" && inner !== null) strings(inner, out);
    } catch {
      // not JSON
    }
  } else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) strings([k, x], out);
  return out;
}

const TOOL_ID = "toolu_01AbCdEfGh1234567890XyZw";
type Place = (text: string, object: unknown) => Record<string, unknown> | undefined;
const PLACES: [string, Place][] = [
  ["user text", (text) => ({ messages: [{ role: "user", content: text }] })],
  [
    "a JSON document in user text",
    (text) => ({
      messages: [{ role: "user", content: JSON.stringify({ files: [{ path: "cfg", content: text }] }) }],
    }),
  ],
  [
    "tool arguments",
    (text) => ({
      messages: [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: TOOL_ID, name: "bash", input: { command: text } }],
        },
      ],
    }),
  ],
  [
    "tool arguments as a JSON string (Responses)",
    (text) => ({
      input: [
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "bash",
          arguments: JSON.stringify({ command: text }),
        },
      ],
    }),
  ],
  [
    "the object in tool arguments",
    (_, object) =>
      object === undefined
        ? undefined
        : {
            messages: [
              {
                role: "assistant",
                content: [{ type: "tool_use", id: TOOL_ID, name: "apply", input: { manifest: object } }],
              },
            ],
          },
  ],
];

describe("every form is redacted in every place", () => {
  for (const row of ROWS)
    for (const [place, build] of PLACES) {
      const cores = new Set<string>();
      const text = expand(row.name, row.text, cores) as string;
      const object = row.object === undefined ? undefined : expand(row.name, row.object, cores);
      const request = build(text, object);
      if (request === undefined) continue;
      test(`${row.name}: ${place}`, () => {
        const out = redactRequest(request);
        const all = strings(out).join("\n");
        expect({
          left: [...cores].filter((c) => JSON.stringify(out).includes(c)),
          lost: row.kept.filter((k) => !all.includes(k)),
        }).toEqual({ left: [], lost: [] });
        expect(() => assertClean(out, STRICT_DETECTORS, "request")).not.toThrow();
      });
    }
});

describe("the default table finds every form, in text and in text written as JSON", () => {
  test.each(ROWS)("$name", (row) => {
    const cores = new Set<string>();
    const text = expand(row.name, row.text, cores) as string;
    const json = JSON.stringify({ log: text });
    expect({
      detectors: findSecrets(text).map((f) => f.detector),
      left: [...cores].filter((c) => redactText(text).text.includes(c)),
      leftInJson:
        row.detectors.length === 0 ? [] : [...cores].filter((c) => redactText(json).text.includes(c)),
    }).toEqual({
      detectors: row.detectors,
      left: row.detectors.length === 0 ? [...cores] : [],
      leftInJson: [],
    });
  });
});

// lib/core/schema-keys.ts: the keys a zod schema takes at a path of the data, so a misspelt field in
// case.json, task.yaml or suite.yaml is named with the closest one (issue 26).
import { expect, test } from "bun:test";
import { z } from "zod";
import { keysAt } from "../../lib/core/schema-keys.ts";

const Tool = z.union([
  z.object({ tool: z.literal("a"), file: z.string(), label: z.string() }).strict(),
  z.object({ tool: z.literal("b"), run: z.string(), label: z.string() }).strict(),
]);
const Doc = z
  .object({
    name: z.string(),
    items: z.array(Tool).optional(),
    gate: z.lazy(() => z.object({ max_drop: z.number().default(0.1) }).strict()).optional(),
    version: z.literal(1).default(1),
    raw: z.string().transform((s) => s.length),
  })
  .strict();

test.each<{ name: string; path: PropertyKey[]; data: unknown; want: string[] }>([
  { name: "the top level", path: [], data: {}, want: ["name", "items", "gate", "version", "raw"] },
  {
    name: "through an array, the union member its tag names",
    path: ["items", 0],
    data: { items: [{ tool: "b" }] },
    want: ["tool", "run", "label"],
  },
  {
    name: "a tag that names none: every member's",
    path: ["items", 0],
    data: { items: [{ tool: "c" }] },
    want: ["tool", "file", "label", "run"],
  },
  { name: "through optional and lazy", path: ["gate"], data: {}, want: ["max_drop"] },
  { name: "no object there", path: ["name"], data: {}, want: [] },
])("$name", ({ path, data, want }) => {
  expect(keysAt(Doc, path, data)).toEqual(want);
});

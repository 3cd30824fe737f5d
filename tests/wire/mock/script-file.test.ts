// The replies file as data: which reply a request gets from the tool results it carries (a reply with
// several calls is passed once all are answered), and the committed JSON Schema stays generated.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mockScriptJsonSchema, type Reply, replyIndex } from "../../../lib/wire/mock/script-file.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const REPLIES: Reply[] = [{ shell: "ls" }, { tools: [{ name: "a" }, { name: "b" }] }, { text: "done" }];

test.each([
  { results: 0, want: 0 },
  { results: 1, want: 1 },
  { results: 2, want: 1 },
  { results: 3, want: 2 },
  { results: 9, want: 2 },
])("$results tool results -> reply $want", ({ results, want }) => {
  expect(replyIndex(REPLIES, results)).toEqual(want);
});

test("a text reply is never passed: its index is where a longer conversation would continue", () => {
  expect([
    replyIndex([{ text: "a" }, { text: "b" }], 0),
    replyIndex([{ text: "a" }, { text: "b" }], 3),
  ]).toEqual([0, 0]);
});

test("schemas/mock-replies.schema.json is the generated schema", () => {
  const committed = readFileSync(join(REPO_ROOT, "schemas", "mock-replies.schema.json"), "utf8");
  expect(committed).toEqual(`${JSON.stringify(mockScriptJsonSchema(), null, 2)}\n`);
});

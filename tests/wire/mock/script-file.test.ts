// The replies file as data: which reply a request gets from the tool results it carries (a reply with
// several calls is passed once all are answered), and the committed JSON Schema stays generated.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  mockScriptJsonSchema,
  type Reply,
  replyIndex,
  scriptOf,
} from "../../../lib/wire/mock/script-file.ts";
import {
  type MockRequest,
  type Script,
  type Step,
  type StepContext,
  text,
} from "../../../lib/wire/mock/steps.ts";
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

test("when.contains: a conversation answers only the requests that hold its text (a skill the agent sees)", async () => {
  const script = scriptOf({
    version: 1,
    conversations: [
      { when: { contains: "fix-add-skill" }, replies: [{ text: "I know the fix." }] },
      { replies: [{ text: "I cannot fix it." }] },
    ],
  }) as Exclude<Script, Step[]>;
  const ask = async (body: unknown) => {
    const req = {
      seq: 1,
      method: "POST",
      url: "/v1/messages",
      headers: {},
      auth: "none",
      scenario: "",
      body,
      reply: "",
    };
    const ctx = {
      n: 1,
      protocol: "anthropic",
      request: {},
      tools: [],
      toolResults: [],
      hasToolResult: false,
    };
    return await script(req as MockRequest, ctx as StepContext);
  };
  expect([
    await ask({ system: [{ text: "skills: fix-add-skill: fixes add.sh" }] }),
    await ask({ system: [{ text: "no skills" }] }),
  ]).toEqual([text("I know the fix."), text("I cannot fix it.")]);
});

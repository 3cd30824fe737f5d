// Recovering production's action from the next request: the next request must continue this one's
// conversation exactly (Claude Code's moving cache_control markers aside); anything else is not
// recovered, and the harvest falls back to the control replay.
import { expect, test } from "bun:test";
import { sha256Hex } from "../../lib/core/hash.ts";
import { depthBucket, recoveredAction, requestFacts } from "../../lib/steps/session.ts";

const tools = [{ name: "Read", input_schema: { type: "object", required: ["path"] } }];
const user = {
  role: "user",
  content: [{ type: "text", text: "fix it", cache_control: { type: "ephemeral" } }],
};
const turn = {
  role: "assistant",
  content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a" } }],
};
const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] };
const req = (messages: readonly unknown[]) => ({ model: "m", messages, tools });

test.each([
  {
    name: "continues the conversation",
    next: [user, turn, result],
    want: [{ name: "Read", args: { path: "a" } }],
  },
  {
    name: "cache markers moved",
    next: [{ role: "user", content: [{ type: "text", text: "fix it" }] }, turn, result],
    want: [{ name: "Read", args: { path: "a" } }],
  },
  {
    name: "conversation rewritten (compaction)",
    next: [{ role: "user", content: "summary" }, turn, result],
    want: undefined,
  },
  { name: "two turns later", next: [user, turn, result, turn, result], want: undefined },
  { name: "no assistant turn", next: [user], want: undefined },
])("$name", ({ next, want }) => {
  const step = requestFacts("anthropic", req([user]));
  expect(recoveredAction(step, requestFacts("anthropic", req(next)))).toEqual(want as never);
});

test("responses: one turn spread over reasoning and several function_call items", () => {
  const first = { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] };
  const items = [
    { type: "reasoning", encrypted_content: "gAAAA" },
    { type: "function_call", call_id: "c1", name: "Read", arguments: '{"path":"a"}' },
    { type: "function_call", call_id: "c2", name: "Read", arguments: "{bad" },
    { type: "function_call_output", call_id: "c1", output: "ok" },
    { type: "function_call_output", call_id: "c2", output: "ok" },
  ];
  const rtools = [{ type: "function", name: "Read", parameters: { required: ["path"] } }];
  const step = requestFacts("responses", { model: "m", input: [first], tools: rtools });
  const next = requestFacts("responses", { model: "m", input: [first, ...items], tools: rtools });
  expect({ tools: step.tools, action: recoveredAction(step, next) }).toEqual({
    tools: [{ name: "Read", required: ["path"] }],
    action: [
      { name: "Read", args: { path: "a" } },
      { name: "Read", args: {}, malformed: true },
    ],
  });
});

test("retries share a body hash; a different body does not", () => {
  const a = requestFacts("gemini", { contents: [{ role: "user", parts: [{ text: "x" }] }], tools: [] });
  const b = requestFacts("gemini", { contents: [{ role: "user", parts: [{ text: "x" }] }], tools: [] });
  const c = requestFacts("gemini", { contents: [{ role: "user", parts: [{ text: "y" }] }], tools: [] });
  expect([a.bodyHash === b.bodyHash, a.bodyHash === c.bodyHash, a.tools]).toEqual([true, false, []]);
});

test("depth buckets", () => {
  expect([0, 1, 4, 5, 19, 20, 300].map(depthBucket)).toEqual([
    "0",
    "1-4",
    "1-4",
    "5-19",
    "5-19",
    "20+",
    "20+",
  ]);
});

// The hashes a harvest chains steps with: the SHA-256 of the items' texts each followed by a newline
// (cache markers cut), the whole conversation and the part before its last assistant turn.
test("conversation hashes are the SHA-256 of the item texts, each ending in a newline", () => {
  const texts = [
    '{"role":"user","content":[{"type":"text","text":"fix it"}]}',
    JSON.stringify(turn),
    JSON.stringify(result),
  ];
  const f = requestFacts("anthropic", req([user, turn, result]));
  expect({ convHash: f.convHash, before: f.lastTurn?.before, at: f.lastTurn?.at }).toEqual({
    convHash: sha256Hex(texts.map((t) => `${t}\n`).join("")),
    before: sha256Hex(`${texts[0]}\n`),
    at: 1,
  });
});

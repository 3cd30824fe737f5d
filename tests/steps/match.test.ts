import { expect, test } from "bun:test";
import type { StepCase } from "../../lib/steps/case.ts";
import { erroredGrade, gradeAnswer, type StepGrade } from "../../lib/steps/match.ts";
import { type Answer, protocol } from "../../lib/wire/index.ts";

const TOOLS = [
  { name: "Read", required: ["file_path"] },
  { name: "Bash", required: ["command"] },
  { name: "Grep", required: [] },
];
const call = (name: string, args: Record<string, unknown> = {}, malformed = false) =>
  malformed ? { name, args, malformed } : { name, args };
const ans = (calls: Answer["calls"], malformedTurn = false): Answer => ({ calls, malformedTurn, text: "" });
const read = (p: string) => ({ name: "Read", args: { file_path: p } });
type Case = Pick<StepCase, "expected" | "alternatives" | "match" | "tools">;
const base: Case = { expected: { calls: [read("a.ts")] }, alternatives: [], match: "tools", tools: TOOLS };
const ok = (over: Partial<StepGrade> = {}): StepGrade => ({
  pass: true,
  sameTools: true,
  sameCalls: true,
  valid: true,
  prematureStop: false,
  problems: [],
  ...over,
});

const table: Array<{ name: string; case?: Partial<Case>; answer: Answer; grade: StepGrade }> = [
  { name: "same call", answer: ans([call("Read", { file_path: "a.ts" })]), grade: ok() },
  {
    name: "same tool, other args: tools passes",
    answer: ans([call("Read", { file_path: "b.ts" })]),
    grade: ok({ sameCalls: false }),
  },
  {
    name: "same tool, other args: calls fails",
    case: { match: "calls" },
    answer: ans([call("Read", { file_path: "b.ts" })]),
    grade: ok({ pass: false, sameCalls: false }),
  },
  {
    name: "key order does not matter under calls",
    case: {
      expected: { calls: [{ name: "Bash", args: { command: "ls", opts: { b: 1, a: 2 } } }] },
      match: "calls",
    },
    answer: ans([call("Bash", { opts: { a: 2, b: 1 }, command: "ls" })]),
    grade: ok(),
  },
  {
    name: "multiset: order of calls ignored",
    case: { expected: { calls: [read("a"), { name: "Grep", args: {} }] } },
    answer: ans([call("Grep"), call("Read", { file_path: "a" })]),
    grade: ok(),
  },
  {
    name: "multiset: a repeated tool counts",
    case: { expected: { calls: [read("a"), read("b")] } },
    answer: ans([call("Read", { file_path: "a" })]),
    grade: ok({ pass: false, sameTools: false, sameCalls: false }),
  },
  {
    name: "other tool",
    answer: ans([call("Bash", { command: "cat a.ts" })]),
    grade: ok({ pass: false, sameTools: false, sameCalls: false }),
  },
  {
    name: "matches the alternative",
    case: { alternatives: [{ calls: [{ name: "Bash", args: { command: "cat a.ts" } }], from: "control" }] },
    answer: ans([call("Bash", { command: "cat a.ts" })]),
    grade: ok(),
  },
  {
    name: "premature stop",
    answer: ans([]),
    grade: ok({ pass: false, sameTools: false, sameCalls: false, prematureStop: true }),
  },
  {
    name: "expected stop, answer stops",
    case: { expected: { calls: [] } },
    answer: ans([]),
    grade: ok({ prematureStop: null }),
  },
  {
    name: "expected stop, answer keeps working",
    case: { expected: { calls: [] } },
    answer: ans([call("Grep")]),
    grade: ok({ pass: false, sameTools: false, sameCalls: false, prematureStop: null }),
  },
  {
    name: "tool not offered: invalid, so no pass even when it matches",
    case: { expected: { calls: [{ name: "Write", args: {} }] } },
    answer: ans([call("Write")]),
    grade: ok({ pass: false, valid: false, problems: ['"Write" was not offered'] }),
  },
  {
    name: "missing required argument",
    answer: ans([call("Read", { path: "a.ts" })]),
    grade: ok({
      pass: false,
      sameCalls: false,
      valid: false,
      problems: ['"Read" misses "file_path"'],
    }),
  },
  {
    name: "malformed arguments",
    answer: ans([call("Read", {}, true)]),
    grade: ok({
      pass: false,
      sameCalls: false,
      valid: false,
      problems: ['malformed arguments for "Read"'],
    }),
  },
  {
    name: "malformed turn (Gemini)",
    answer: ans([], true),
    grade: ok({
      pass: false,
      sameTools: false,
      sameCalls: false,
      valid: false,
      prematureStop: true,
      problems: ["the reply says the function call was malformed"],
    }),
  },
];

for (const row of table)
  test(`matcher: ${row.name}`, () => {
    expect(gradeAnswer({ ...base, ...row.case }, row.answer)).toEqual(row.grade);
  });

test("an errored call fails every reading", () => {
  expect(erroredGrade()).toEqual({
    pass: false,
    sameTools: false,
    sameCalls: false,
    valid: false,
    prematureStop: null,
    problems: [],
  });
});

const answers: Array<{ name: string; protocol: StepCase["protocol"]; body: unknown; answer: Answer | null }> =
  [
    {
      name: "anthropic tool_use and text",
      protocol: "anthropic",
      body: {
        content: [
          { type: "text", text: "hi" },
          { type: "tool_use", id: "t", name: "Read", input: { file_path: "a" } },
        ],
      },
      answer: { calls: [call("Read", { file_path: "a" })], malformedTurn: false, text: "hi" },
    },
    {
      name: "bedrock tool_use with a non-object input",
      protocol: "bedrock",
      body: { content: [{ type: "tool_use", id: "t", name: "Read", input: 5 }] },
      answer: { calls: [call("Read", {}, true)], malformedTurn: false, text: "" },
    },
    {
      name: "responses function_call with bad JSON, custom tool, message",
      protocol: "responses",
      body: {
        output: [
          { type: "message", content: [{ type: "output_text", text: "ok" }] },
          { type: "function_call", name: "shell", arguments: "{bad" },
          { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" },
        ],
      },
      answer: {
        calls: [call("shell", {}, true), call("apply_patch", { input: "*** Begin Patch" })],
        malformedTurn: false,
        text: "ok",
      },
    },
    {
      name: "gemini functionCall, thought skipped",
      protocol: "gemini",
      body: {
        candidates: [
          {
            content: {
              parts: [
                { text: "think", thought: true },
                { text: "do" },
                { functionCall: { name: "ls", args: { d: "." } } },
              ],
            },
            finishReason: "STOP",
          },
        ],
      },
      answer: { calls: [call("ls", { d: "." })], malformedTurn: false, text: "do" },
    },
    {
      name: "gemini malformed function call",
      protocol: "gemini",
      body: { candidates: [{ content: { parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL" }] },
      answer: { calls: [], malformedTurn: true, text: "" },
    },
    { name: "not a reply", protocol: "anthropic", body: { error: {} }, answer: null },
    { name: "not an object", protocol: "gemini", body: "x", answer: null },
    { name: "responses without output", protocol: "responses", body: {}, answer: null },
  ];

for (const row of answers)
  test(`answerOf: ${row.name}`, () => {
    expect(protocol(row.protocol).answerOf(row.body)).toEqual(row.answer);
  });

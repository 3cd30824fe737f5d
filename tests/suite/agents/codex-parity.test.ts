// The Codex driver against the newest original's own tests and codex-cli 0.99 transcripts (dshakes/
// halos internal/eval/driver_test.go at d5d3aa89): tool errors from non-zero exits, failed/declined
// statuses, failed MCP calls and tool items started but never completed; an error event without a
// message keeps the message before it.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { emptyMetrics } from "../../../lib/suite/agents/_common.ts";
import { codex } from "../../../lib/suite/agents/codex.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const TRANSCRIPTS = join(REPO_ROOT, "tests", "fixtures", "suite", "codex-original");
const START = '{"type":"thread.started"}';
const lines = (...events: string[]) => events.join("\n");
const parsed = (stdout: string) => {
  const m = codex.parse(stdout, "", 0);
  return {
    calls: m.toolCalls,
    errors: m.toolErrors,
    turns: m.turns,
    tokens: m.tokens,
    failed: m.failed,
    error: m.error,
  };
};
const run = (o: {
  calls: number;
  errors: number;
  turns?: number;
  tokens?: number;
  failed?: boolean;
  error?: string;
}) => ({
  calls: o.calls,
  errors: o.errors,
  turns: o.turns ?? 0,
  tokens: o.tokens ?? 0,
  failed: o.failed ?? false,
  error: o.error,
});

describe("TestCodexDriver and TestCodexToolErrors (the original's tables)", () => {
  test.each([
    {
      name: "TestCodexDriver: exit 1, a file change, a message, usage, then turn.failed",
      out: lines(
        '{"type":"thread.started","thread_id":"x"}',
        '{"type":"item.completed","item":{"type":"command_execution","exit_code":1}}',
        '{"type":"item.completed","item":{"type":"file_change"}}',
        '{"type":"item.completed","item":{"type":"agent_message"}}',
        '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":5,"output_tokens":2}}',
        '{"type":"turn.failed","error":{"message":"boom"}}',
      ),
      want: run({ calls: 2, errors: 1, turns: 1, tokens: 12, failed: true, error: "boom" }),
    },
    {
      name: "clean run",
      out: lines(
        START,
        '{"type":"item.started","item":{"id":"i1","type":"command_execution","status":"in_progress"}}',
        '{"type":"item.completed","item":{"id":"i1","type":"command_execution","exit_code":0,"status":"completed"}}',
        '{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"done"}}',
      ),
      want: run({ calls: 1, errors: 0 }),
    },
    {
      name: "non-zero exit",
      out: lines(
        START,
        '{"type":"item.completed","item":{"id":"i1","type":"command_execution","exit_code":2,"status":"completed"}}',
      ),
      want: run({ calls: 1, errors: 1 }),
    },
    {
      name: "failed and declined statuses, a failed and a completed MCP call",
      out: lines(
        START,
        '{"type":"item.completed","item":{"id":"i1","type":"command_execution","status":"failed"}}',
        '{"type":"item.completed","item":{"id":"i2","type":"command_execution","status":"declined"}}',
        '{"type":"item.completed","item":{"id":"i3","type":"mcp_tool_call","status":"failed"}}',
        '{"type":"item.completed","item":{"id":"i4","type":"mcp_tool_call","status":"completed"}}',
      ),
      want: run({ calls: 4, errors: 3 }),
    },
    {
      name: "started, never completed (cut off by a timeout)",
      out: lines(
        START,
        '{"type":"item.started","item":{"id":"c1","type":"command_execution","command":"go test ./...","status":"in_progress"}}',
        '{"type":"item.started","item":{"id":"c2","type":"command_execution","command":"ls","status":"in_progress"}}',
        '{"type":"item.completed","item":{"id":"m1","type":"agent_message","text":"I could not run commands"}}',
        '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}',
      ),
      want: run({ calls: 2, errors: 2, turns: 1, tokens: 2 }),
    },
    {
      name: 'exit_code null with status "failed"',
      out: lines(
        START,
        '{"type":"item.completed","item":{"id":"i1","type":"command_execution","exit_code":null,"status":"failed"}}',
      ),
      want: run({ calls: 1, errors: 1 }),
    },
    {
      name: "a failed web search and file change count; a failed non-tool item does not",
      out: lines(
        START,
        '{"type":"item.completed","item":{"id":"w","type":"web_search","status":"failed"}}',
        '{"type":"item.completed","item":{"id":"f","type":"file_change","status":"failed"}}',
        '{"type":"item.completed","item":{"id":"r","type":"reasoning","status":"failed"}}',
      ),
      want: run({ calls: 2, errors: 2 }),
    },
    {
      name: "a non-tool item started and never completed is no call",
      out: lines(START, '{"type":"item.started","item":{"id":"m","type":"agent_message"}}'),
      want: run({ calls: 0, errors: 0 }),
    },
  ])("$name", ({ out, want }) => {
    expect(parsed(out)).toEqual(want);
  });
});

describe("error events: a message, or the previous one kept", () => {
  test.each([
    { name: "error.message", events: ['{"type":"error","error":{"message":"m1"}}'], error: "m1" },
    { name: "top-level message", events: ['{"type":"error","message":"m2"}'], error: "m2" },
    {
      name: "error object without a message falls back to message",
      events: ['{"type":"error","error":{},"message":"m3"}'],
      error: "m3",
    },
    { name: "no message at all", events: ['{"type":"error"}'], error: "" },
    {
      name: "an error without a message after one with: the first kept",
      events: ['{"type":"error","message":"stream lost"}', '{"type":"turn.failed","error":{}}'],
      error: "stream lost",
    },
    {
      name: "an empty message keeps the previous one",
      events: ['{"type":"turn.failed","error":{"message":"quota"}}', '{"type":"error","message":""}'],
      error: "quota",
    },
    {
      name: "a later message replaces it",
      events: [
        '{"type":"error","message":"retrying"}',
        '{"type":"turn.failed","error":{"message":"gave up"}}',
      ],
      error: "gave up",
    },
  ])("$name", ({ events, error }) => {
    expect(parsed(lines(START, ...events))).toEqual(run({ calls: 0, errors: 0, failed: true, error }));
  });
});

test.each([
  { file: "tool-success.jsonl", calls: 1, errors: 0 },
  { file: "command-failed.jsonl", calls: 1, errors: 1 },
  // Landlock denied: no command item at all (the error item is a config warning, not a tool).
  { file: "sandbox-denied.jsonl", calls: 0, errors: 0 },
])("TestCodex099Transcripts: $file", ({ file, calls, errors }) => {
  const out = readFileSync(join(TRANSCRIPTS, file), "utf8");
  expect(parsed(out)).toEqual(run({ calls, errors, turns: 1, tokens: 38 }));
});

test("no recognised events: the original's error, with what was read", () => {
  let got: unknown;
  try {
    codex.parse("{}", "", 0);
  } catch (error) {
    got = { message: (error as Error).message, metrics: (error as { metrics?: unknown }).metrics };
  }
  expect(got).toEqual({
    message: "codex: no recognised events in output",
    metrics: emptyMetrics({ cost: false, turns: true, tokens: true }),
  });
});

// The mock model's shell-tool helpers for the real CLIs (tests/support/mock-model.ts): the tool name
// and arguments each CLI's own shell tool takes, by the protocol its request came on.
import { expect, test } from "bun:test";
import { type MockProtocol, runCommand, type StepContext, shellCall } from "../../support/mock-model.ts";

test.each([
  {
    protocol: "anthropic" as MockProtocol,
    call: { name: "Bash", args: { command: "ls" } },
  },
  {
    protocol: "bedrock" as MockProtocol,
    call: { name: "Bash", args: { command: "ls" } },
  },
  { protocol: "responses" as MockProtocol, call: { name: "exec_command", args: { cmd: "ls" } } },
  { protocol: "gemini" as MockProtocol, call: { name: "run_shell_command", args: { command: "ls" } } },
])("shellCall on $protocol", ({ protocol, call }) => {
  expect(shellCall(protocol, "ls")).toEqual(call);
});

test("runCommand asks for the command until a tool result comes back, then answers the final text", async () => {
  const script = runCommand("ls", "all done");
  if (typeof script !== "function") throw new Error("runCommand must return a script function");
  const ctx = (hasToolResult: boolean): StepContext => ({
    n: 0,
    protocol: "responses",
    request: {},
    tools: [],
    toolResults: [],
    hasToolResult,
  });
  expect([await script({} as never, ctx(false)), await script({} as never, ctx(true))]).toEqual([
    { kind: "tools", calls: [{ name: "exec_command", args: { cmd: "ls" } }] },
    { kind: "text", text: "all done" },
  ]);
});

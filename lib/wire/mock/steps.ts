// The mock model's script vocabulary: what it answers one request with (a Step: text, tool calls, an
// HTTP error, a hang, a stall), a Script (a queue of steps or a function of the request), and the
// helpers tests and the replies file share (a tool loop, the shell call each real CLI understands).
// Protocol-neutral: lib/wire's protocols turn a step into each wire format (server.ts).
import type { OfferedTool, ProtocolName, ToolCall, ToolResult, Usage } from "../index.ts";

/** The protocols the mock serves: the SSE ones and Bedrock InvokeModel (event-stream). */
export type MockProtocol = ProtocolName | "bedrock";

/** What the mock does for one request. */
export type Step =
  | { kind: "text"; text: string; usage?: Usage }
  | { kind: "tools"; calls: ToolCall[]; text?: string; usage?: Usage }
  | { kind: "error"; status: number; body?: unknown }
  | { kind: "hang" }
  | { kind: "stall" };

/** A step for a final text reply. */
export const text = (t: string, usage?: Usage): Step => ({
  kind: "text",
  text: t,
  ...(usage ? { usage } : {}),
});
/** A step for a reply with tool calls (optionally after some text). */
export const toolCalls = (calls: ToolCall[], o: { text?: string; usage?: Usage } = {}): Step => ({
  kind: "tools",
  calls,
  ...o,
});
/** A step answering with an HTTP error (body defaults to the protocol's error shape). */
export const httpError = (status: number, body?: unknown): Step => ({
  kind: "error",
  status,
  ...(body === undefined ? {} : { body }),
});
/** A step that never sends headers. */
export const hang = (): Step => ({ kind: "hang" });
/** A step that sends 200 + SSE headers and the first event, then nothing. */
export const stall = (): Step => ({ kind: "stall" });

/** How the client authenticated (the value itself is never recorded). */
export type AuthKind = "x-api-key" | "bearer" | "aws-sigv4" | "x-goog-api-key" | "query-key" | "none";

/** One logged request. */
export interface MockRequest {
  seq: number;
  method: string;
  url: string;
  protocol?: MockProtocol;
  headers: Record<string, string>;
  auth: AuthKind;
  scenario: string;
  body: unknown;
  model?: string;
  stream?: boolean;
  reply: string;
  /** The token counts its reply reported (text, tool calls and router replies): the mock's own count. */
  usage?: Usage;
  /** With MockOptions.sigv4: whether the request's SigV4 signature checked out. */
  sigv4?: "ok" | "bad";
}

/** What a script function sees besides the logged request. */
export interface StepContext {
  n: number;
  protocol: MockProtocol;
  request: object;
  tools: OfferedTool[];
  toolResults: ToolResult[];
  hasToolResult: boolean;
}

/** A queue of steps, or a function choosing the step for each request. */
export type Script = Step[] | ((req: MockRequest, ctx: StepContext) => Step | Promise<Step>);

/** A script for a tool loop: tool calls until the request carries a tool result, then the final text. */
export function toolLoop(calls: ToolCall[], final = "done", usage?: Usage): Script {
  return (_req, ctx) => (ctx.hasToolResult ? text(final, usage) : toolCalls(calls, usage ? { usage } : {}));
}

/**
 * The shell-tool call each real CLI understands, by the protocol its request came on: Claude Code's
 * `Bash` (Anthropic Messages and Bedrock), Codex's `exec_command` (Responses), Gemini CLI's
 * `run_shell_command` (Gemini).
 */
export function shellCall(protocol: MockProtocol, cmd: string): ToolCall {
  if (protocol === "responses") return { name: "exec_command", args: { cmd } };
  if (protocol === "gemini") return { name: "run_shell_command", args: { command: cmd } };
  return { name: "Bash", args: { command: cmd } };
}

/** A script for a real CLI: run `cmd` through its shell tool, then (once a tool result came back) answer `final`. */
export function runCommand(cmd: string, final = "done", usage?: Usage): Script {
  return (_req, ctx) =>
    ctx.hasToolResult
      ? text(final, usage)
      : toolCalls([shellCall(ctx.protocol, cmd)], usage ? { usage } : {});
}

// The wire protocols the agent CLIs speak to a model, behind one interface: the mock model server,
// step replay and the drivers pick a protocol by name (or by request path) and call the same functions.
// Per-protocol details live in lib/wire/<protocol>.ts.
import * as anthropic from "./anthropic.ts";
import * as bedrock from "./bedrock.ts";
import type { OfferedTool, ToolCall, ToolResult, Usage } from "./common.ts";
import * as gemini from "./gemini.ts";
import * as responses from "./responses.ts";

export * from "./common.ts";
export { anthropic, bedrock, gemini, responses };

/** The SSE protocols by name (Bedrock streams binary frames instead: see wire/bedrock.ts). */
export type ProtocolName = "anthropic" | "responses" | "gemini";

/** What every protocol module offers, with requests and replies typed loosely. */
export interface WireProtocol {
  parseRequest(body: unknown): object;
  toolsOffered(req: never): OfferedTool[];
  toolResults(req: never): ToolResult[];
  hasToolResult(req: never): boolean;
  textResponse(text: string, usage: Usage, o?: { id?: string; model?: string }): object;
  toolCallResponse(
    calls: ToolCall[],
    usage: Usage,
    o?: { id?: string; model?: string; text?: string },
  ): object;
  toSse(resp: never): string;
  parseSse(text: string): object;
  extractToolCalls(response: unknown): ToolCall[];
  errorBody(status: number, message: string): Record<string, unknown>;
}

/** The protocol modules by name. */
export const PROTOCOLS: Record<ProtocolName, WireProtocol> = { anthropic, responses, gemini };

/** Which protocol a request path belongs to (`/v1/messages`, `/v1/responses`, `/v1beta/models/<m>:…`). */
export function protocolForPath(path: string): ProtocolName | undefined {
  const p = path.split("?")[0] ?? "";
  if (/^(\/v1)?\/messages$/.test(p)) return "anthropic";
  if (/^(\/v1)?\/responses$/.test(p)) return "responses";
  if (/^\/v1(beta|alpha)?\/models\/[^/:]+:(stream)?[gG]enerateContent$/.test(p)) return "gemini";
  return undefined;
}

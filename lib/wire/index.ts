// The wire protocols the agent CLIs speak to a model, as one registry: everything that differs per
// protocol (endpoint URL, auth, the model/stream rewrite, reading requests, replies and stored
// conversations, the judge's request, the mock model's replies) is a member of WireProtocol, and
// every caller outside lib/wire asks `protocol(name)` instead of switching on the name (a test
// greps for that). Per-protocol details live in lib/wire/<protocol>.ts.
import * as anthropic from "./anthropic.ts";
import * as bedrock from "./bedrock.ts";
import type {
  Answer,
  ArmAction,
  AuthOptions,
  JudgeAsk,
  OfferedTool,
  RawCall,
  Route,
  SignableRequest,
  ToolCall,
  ToolResult,
  Usage,
  WireRequest,
} from "./common.ts";
import * as gemini from "./gemini.ts";
import type { Reply, Said } from "./reading.ts";
import * as responses from "./responses.ts";

export * from "./common.ts";
export * from "./reading.ts";
export { anthropic, bedrock, gemini, responses };

/** The four protocols by name, in the order the step case schema lists them. */
export const WIRE_NAMES = ["anthropic", "bedrock", "responses", "gemini"] as const;
export type WireName = (typeof WIRE_NAMES)[number];

/** The SSE protocols by name (Bedrock streams binary frames instead: see wire/bedrock.ts). */
export type ProtocolName = "anthropic" | "responses" | "gemini";

/** What every protocol module offers, with requests and replies typed loosely. */
export interface WireProtocol {
  /** Reading a request (the mock model, the harvest). */
  parseRequest(body: unknown): object;
  toolsOffered(req: never): OfferedTool[];
  toolResults(req: never): ToolResult[];
  hasToolResult(req: never): boolean;
  /** The tools a raw body offers, its `tools` alone checked ([] when they do not parse). */
  toolsOfBody(body: Record<string, unknown>): OfferedTool[];
  /** Replying (the mock model) and reading streamed replies back. */
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
  /** Calling a model (step replay, the judge): URL, the one rewrite, auth, the judge's body, the answer. */
  endpointUrl(base: string, model: string): string;
  rewriteBody(request: Record<string, unknown>, model: string): Record<string, unknown>;
  buildRequest(request: Record<string, unknown>, route: Route): WireRequest;
  judgeRequest(model: string, prompt: string, o?: JudgeAsk): Record<string, unknown>;
  /** The headers that put `key` on a request the protocol's way (the model bridge adds them). */
  authorize(req: SignableRequest, key: string, o?: AuthOptions): Record<string, string>;
  answerOf(body: unknown): Answer | null;
  /** Reading stored traffic (the harvest): a reply's action, a request's conversation and last turn. */
  armAction(reply: Record<string, unknown>): ArmAction;
  conversationKey: "messages" | "input" | "contents";
  lastTurn(items: readonly unknown[]): { at: number; calls: RawCall[] } | undefined;
  /** Reading forwarded traffic (the suite's meter and transcripts): a reply body as sent, a request's conversation. */
  readReply(body: Uint8Array): Reply;
  readConversation(body: Record<string, unknown>): Said[];
}

const REGISTRY: Record<WireName, WireProtocol> = { anthropic, bedrock, responses, gemini };

/** The protocol of that name. */
export function protocol(name: WireName): WireProtocol {
  return REGISTRY[name];
}

/** The SSE protocols of the registry by name (what the mock model streams as text). */
export const PROTOCOLS: Record<ProtocolName, WireProtocol> = { anthropic, responses, gemini };

/** Which protocol a request path belongs to (`/v1/messages`, `/v1/responses`, `/v1beta/models/<m>:…`). */
export function protocolForPath(path: string): ProtocolName | undefined {
  const p = path.split("?")[0] ?? "";
  if (/^(\/v1)?\/messages$/.test(p)) return "anthropic";
  if (/^(\/v1)?\/responses$/.test(p)) return "responses";
  if (/^\/v1(beta|alpha)?\/models\/[^/:]+:(stream)?[gG]enerateContent$/.test(p)) return "gemini";
  return undefined;
}

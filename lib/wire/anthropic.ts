// Anthropic Messages (`POST /v1/messages`, what Claude Code speaks): the request fields we read
// (everything else is kept as is), tools offered and tool results sent back, and model replies as a
// non-streaming message or the SSE sequence Claude Code accepts (message_start ... message_stop).
// Claude puts role "system" messages into `messages`, so tool results are looked for in every user turn.
// The client side: the endpoint, the x-api-key request, the judge's body, answers and stored turns.
import { z } from "zod";
import {
  type Answer,
  type ArmAction,
  authorizedPost,
  encodeSse,
  isRecord,
  JSON_HEADERS,
  type JudgeAsk,
  joinBase,
  judgeExtras,
  lastTurnOf,
  type OfferedTool,
  parseArgs,
  parseWith,
  type RawCall,
  type Route,
  rawCall,
  requiredArgs,
  rewriteModel,
  type SignableRequest,
  sseJson,
  type ToolCall,
  type ToolResult,
  toolsOnly,
  type Usage,
  WireError,
  type WireRequest,
} from "./common.ts";
import {
  contentText,
  type Reply,
  replyDocument,
  replyFrom,
  type Said,
  type SaidResult,
  said,
  type Tokens,
  tokenCount,
} from "./reading.ts";

const Block = z.looseObject({ type: z.string() });
const Message = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(Block)]) });
const Tool = z.looseObject({ name: z.string(), input_schema: z.unknown().optional() });

/** The request body, lenient: unknown fields pass through untouched. */
export const MessagesRequest = z.looseObject({
  model: z.string(),
  messages: z.array(Message),
  tools: z.array(Tool).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** A non-streaming Messages reply (the shape `parseSse` assembles a stream back into). */
export interface MessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Array<Record<string, unknown>>;
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: Record<string, number>;
}

/** Options of the reply builders: message id and model name. */
export interface ReplyOptions {
  id?: string;
  model?: string;
}

/** Parses a request body; throws WireError on a body that is not a Messages request. */
export function parseRequest(body: unknown): MessagesRequest {
  return parseWith(MessagesRequest, body, "Anthropic Messages request");
}

/** The tools the request offers, with the argument names each one requires. */
export function toolsOffered(req: MessagesRequest): OfferedTool[] {
  return (req.tools ?? []).map((t) => ({ name: t.name, required: requiredArgs(t.input_schema) }));
}

/** Every tool_result block in any user message, in order. */
export function toolResults(req: MessagesRequest): ToolResult[] {
  return req.messages.flatMap((m) =>
    m.role !== "user" || typeof m.content === "string"
      ? []
      : m.content
          .filter((b) => b.type === "tool_result")
          .map((b) => ({
            id: String(b.tool_use_id ?? ""),
            content: b.content ?? null,
            ...(b.is_error === true ? { isError: true } : {}),
          })),
  );
}

/** True when any user message carries a tool_result. */
export function hasToolResult(req: MessagesRequest): boolean {
  return toolResults(req).length > 0;
}

function usageOf(usage: Usage): Record<string, number> {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached ?? 0,
    output_tokens: usage.output,
  };
}

function message(content: MessagesResponse["content"], stop: string, usage: Usage, o: ReplyOptions) {
  return {
    id: o.id ?? "msg_mock",
    type: "message",
    role: "assistant",
    model: o.model ?? "mock-model",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: usageOf(usage),
  } satisfies MessagesResponse;
}

/** A final text reply (stop_reason end_turn). */
export function textResponse(text: string, usage: Usage, o: ReplyOptions = {}): MessagesResponse {
  return message([{ type: "text", text }], "end_turn", usage, o);
}

/** A tool-use reply (stop_reason tool_use), optionally preceded by text; ids default to toolu_mock_<i>. */
export function toolCallResponse(
  calls: ToolCall[],
  usage: Usage,
  o: ReplyOptions & { text?: string } = {},
): MessagesResponse {
  const uses = calls.map((c, i) => ({
    type: "tool_use",
    id: c.id ?? `toolu_mock_${i + 1}`,
    name: c.name,
    input: c.args,
  }));
  return message([...(o.text ? [{ type: "text", text: o.text }] : []), ...uses], "tool_use", usage, o);
}

/** The SSE event sequence for a reply: each block's full text or JSON in one delta. */
export function toSse(resp: MessagesResponse): string {
  const { output_tokens, ...startUsage } = resp.usage;
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, ...data } });
  push("message_start", {
    message: {
      ...resp,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...startUsage, output_tokens: 1 },
    },
  });
  resp.content.forEach((block, index) => {
    if (block.type === "tool_use") {
      push("content_block_start", { index, content_block: { ...block, input: {} } });
      push("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
      });
    } else {
      push("content_block_start", { index, content_block: { ...block, text: "" } });
      push("content_block_delta", { index, delta: { type: "text_delta", text: String(block.text ?? "") } });
    }
    push("content_block_stop", { index });
  });
  push("message_delta", {
    delta: { stop_reason: resp.stop_reason, stop_sequence: resp.stop_sequence },
    usage: { output_tokens: output_tokens ?? 0 },
  });
  push("message_stop", {});
  return encodeSse(events);
}

/** Assembles a streamed reply back into the non-streaming message shape. */
export function parseSse(text: string): MessagesResponse {
  let msg: MessagesResponse | undefined;
  const blocks: Array<Record<string, unknown>> = [];
  const partial: string[] = [];
  for (const { data } of sseJson(text)) {
    const index = typeof data.index === "number" ? data.index : -1;
    const delta = isRecord(data.delta) ? data.delta : {};
    if (data.type === "message_start" && isRecord(data.message))
      msg = { ...(data.message as unknown as MessagesResponse) };
    else if (data.type === "content_block_start" && isRecord(data.content_block)) {
      blocks[index] = { ...data.content_block };
      partial[index] = "";
    } else if (data.type === "content_block_delta" && blocks[index]) {
      const block = blocks[index];
      if (delta.type === "text_delta") block.text = String(block.text ?? "") + String(delta.text ?? "");
      else if (delta.type === "thinking_delta")
        block.thinking = String(block.thinking ?? "") + String(delta.thinking ?? "");
      else if (delta.type === "input_json_delta") partial[index] += String(delta.partial_json ?? "");
    } else if (data.type === "content_block_stop" && blocks[index]?.type === "tool_use" && partial[index])
      blocks[index].input = parseArgs(partial[index]);
    else if (data.type === "message_delta" && msg) {
      msg.stop_reason = (delta.stop_reason as string | null | undefined) ?? msg.stop_reason;
      msg.stop_sequence = (delta.stop_sequence as string | null | undefined) ?? msg.stop_sequence;
      if (isRecord(data.usage)) msg.usage = { ...msg.usage, ...(data.usage as Record<string, number>) };
    }
  }
  if (!msg) throw new WireError("Anthropic stream has no message_start event");
  return { ...msg, content: blocks.filter(Boolean) };
}

/** The tool_use blocks of a reply (a message object, or SSE text which is assembled first). */
export function extractToolCalls(response: unknown): ToolCall[] {
  const resp = typeof response === "string" ? parseSse(response) : response;
  if (!isRecord(resp) || !Array.isArray(resp.content)) return [];
  return resp.content
    .filter((b): b is Record<string, unknown> => isRecord(b) && b.type === "tool_use")
    .map((b) => ({ id: String(b.id), name: String(b.name), args: parseArgs(b.input) }));
}

/** An error body in the Anthropic shape. */
export function errorBody(status: number, message: string): Record<string, unknown> {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status >= 500
          ? "api_error"
          : "invalid_request_error";
  return { type: "error", error: { type, message } };
}

/** The tools a raw body offers, its `tools` alone checked. */
export function toolsOfBody(body: Record<string, unknown>): OfferedTool[] {
  return toolsOnly(body, { model: "", messages: [] }, parseRequest, toolsOffered);
}

/** The non-streaming endpoint under `base` (a base ending in /v1 is kept). */
export function endpointUrl(base: string, _model: string): string {
  return joinBase(base, "/messages", /\/v1$/, "/v1");
}

/** The model replaced, streaming off. */
export const rewriteBody = rewriteModel;

/** The headers that authorise a request with `key`: x-api-key (what Claude Code sends for an API key). */
export function authorize(_req: SignableRequest, key: string): Record<string, string> {
  return { "x-api-key": key };
}

/** The wire request: the key in x-api-key, with the API version Claude Code sends. */
export function buildRequest(request: Record<string, unknown>, route: Route): WireRequest {
  const body = JSON.stringify(rewriteBody(request, route.model));
  return authorizedPost(
    endpointUrl(route.url, route.model),
    body,
    { ...JSON_HEADERS, "anthropic-version": "2023-06-01" },
    route,
    authorize,
  );
}

/** A judge's request: one user turn with the prompt, no tools (a system text and temperature if asked). */
export function judgeRequest(model: string, prompt: string, o: JudgeAsk = {}): Record<string, unknown> {
  return {
    model,
    max_tokens: o.maxTokens ?? 1024,
    ...judgeExtras(o, "system"),
    messages: [{ role: "user", content: prompt }],
  };
}

/** The tool_use blocks among content blocks (a reply's or an assistant message's), malformed kept. */
export function callsIn(content: unknown): RawCall[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b) => isRecord(b) && b.type === "tool_use").map((b) => rawCall(b.name, b.input));
}

/** A non-streaming reply's answer: tool_use calls and text blocks; null without `content`. */
export function answerOf(body: unknown): Answer | null {
  if (!isRecord(body) || !Array.isArray(body.content)) return null;
  const blocks = body.content.filter(isRecord);
  return {
    calls: callsIn(blocks),
    malformedTurn: false,
    text: blocks.flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("\n"),
  };
}

/** What a stored reply did (cut short at max_tokens). */
export function armAction(r: Record<string, unknown>): ArmAction {
  return {
    calls: callsIn(r.content),
    truncated: r.stop_reason === "max_tokens",
    readable: Array.isArray(r.content),
  };
}

/** Where a request keeps its conversation. */
export const conversationKey = "messages";

/** The last assistant message of a conversation: where it is and what it called. */
export function lastTurn(items: readonly unknown[]): { at: number; calls: RawCall[] } | undefined {
  return lastTurnOf(
    items,
    (i) => isRecord(i) && i.role === "assistant",
    false,
    (turn) => callsIn((turn[0] as Record<string, unknown>).content),
  );
}

/** Tokens of a Messages usage object: input_tokens excludes the cache's reads and writes, added here. */
export function tokensOf(usage: unknown): Tokens | undefined {
  if (!isRecord(usage)) return undefined;
  const cacheRead = tokenCount(usage.cache_read_input_tokens);
  const cacheWrite = tokenCount(usage.cache_creation_input_tokens);
  return {
    input: tokenCount(usage.input_tokens) + cacheRead + cacheWrite,
    output: tokenCount(usage.output_tokens),
    cacheRead,
    cacheWrite,
    reasoning: 0,
  };
}

/** The tool_use blocks as calls with their ids, malformed input kept visible. */
function useCalls(blocks: Record<string, unknown>[]): Reply["calls"] {
  return blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ ...rawCall(b.name, b.input), ...(typeof b.id === "string" ? { id: b.id } : {}) }));
}

/** What a reply (a message, or its SSE stream) said and used; a message read back from `parseSse` for a stream. */
export function replyOf(msg: unknown): Reply {
  const body = isRecord(msg) ? msg : {};
  const content = Array.isArray(body.content) ? body.content.filter(isRecord) : [];
  return replyFrom({
    model: body.model,
    tokens: tokensOf(body.usage),
    text: content
      .flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []))
      .join("\n"),
    calls: useCalls(content),
    stop: body.stop_reason,
  });
}

/** Reads a reply body as it came over the wire (JSON or SSE); throws WireError when it is neither. */
export function readReply(body: Uint8Array): Reply {
  return replyOf(replyDocument(body, "Anthropic", parseSse));
}

/** One message's entries: its text, tool_use calls and tool_result results. */
function saidOf(role: Said["role"], content: unknown): Said[] {
  if (!Array.isArray(content)) return said({ role, text: contentText(content) });
  const blocks = content.filter(isRecord);
  const results: SaidResult[] = blocks
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      id: String(b.tool_use_id ?? ""),
      text: contentText(b.content),
      ...(b.is_error === true ? { isError: true } : {}),
    }));
  return said({
    role: results.length > 0 && role === "user" ? "tool" : role,
    text: contentText(
      blocks.filter((b) => b.type !== "tool_use" && b.type !== "tool_result" && b.type !== "thinking"),
    ),
    calls: useCalls(blocks),
    results,
  });
}

/** The conversation a request carries: its system text, then each message (roles as sent, tool results as "tool"). */
export function readConversation(body: Record<string, unknown>): Said[] {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  return [
    ...(body.system !== undefined ? saidOf("system", body.system) : []),
    ...messages.flatMap((m) =>
      saidOf(m.role === "assistant" ? "assistant" : m.role === "system" ? "system" : "user", m.content),
    ),
  ];
}

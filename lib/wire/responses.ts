// OpenAI Responses (`POST /v1/responses`, what Codex speaks): the request fields we read (the rest
// is kept), tools offered, function_call_output items sent back, and replies as a non-streaming
// response object or the SSE sequence Codex accepts (response.created ... response.completed, each
// event with a sequence_number). The client side: the endpoint, the Bearer request, the judge's
// body, answers and stored turns (one model turn spans several input items).
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
  said,
  type Tokens,
  tokenCount,
} from "./reading.ts";

const Item = z.looseObject({ type: z.string().optional() });
const Tool = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
  parameters: z.unknown().optional(),
});

/** The request body, lenient: unknown fields pass through untouched. */
export const ResponsesRequest = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(Item)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(Tool).optional(),
  stream: z.boolean().optional(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/** A non-streaming response object (what `parseSse` assembles a stream back into). */
export interface ResponsesResponse {
  id: string;
  object: "response";
  created_at: number;
  status: string;
  error: unknown;
  incomplete_details: unknown;
  model: string;
  output: Array<Record<string, unknown>>;
  parallel_tool_calls: boolean;
  usage: Record<string, unknown> | null;
}

/** Options of the reply builders: response id, model, creation time (unix seconds). */
export interface ReplyOptions {
  id?: string;
  model?: string;
  createdAt?: number;
}

/** Parses a request body; throws WireError on a body that is not a Responses request. */
export function parseRequest(body: unknown): ResponsesRequest {
  return parseWith(ResponsesRequest, body, "OpenAI Responses request");
}

/** The tools the request offers (function tools with their required args; other named tools with none). */
export function toolsOffered(req: ResponsesRequest): OfferedTool[] {
  return (req.tools ?? []).flatMap((t) =>
    t.name ? [{ name: t.name, required: requiredArgs(t.parameters) }] : [],
  );
}

/** Every function_call_output / custom_tool_call_output item of the input, in order. */
export function toolResults(req: ResponsesRequest): ToolResult[] {
  if (!Array.isArray(req.input)) return [];
  return req.input
    .filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output")
    .map((i) => ({ id: String(i.call_id ?? ""), content: i.output ?? null }));
}

/** True when the input carries a tool output. */
export function hasToolResult(req: ResponsesRequest): boolean {
  return toolResults(req).length > 0;
}

function usageOf(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.output,
  };
}

function response(output: ResponsesResponse["output"], usage: Usage, o: ReplyOptions): ResponsesResponse {
  return {
    id: o.id ?? "resp_mock",
    object: "response",
    created_at: o.createdAt ?? 0,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: o.model ?? "mock-model",
    output,
    parallel_tool_calls: true,
    usage: usageOf(usage),
  };
}

function messageItem(text: string, id: string): Record<string, unknown> {
  return {
    type: "message",
    id,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** A final text reply: one assistant message item. */
export function textResponse(text: string, usage: Usage, o: ReplyOptions = {}): ResponsesResponse {
  return response([messageItem(text, "msg_mock_1")], usage, o);
}

/** A reply with function_call items (call ids default to call_mock_<i>), optionally after a message. */
export function toolCallResponse(
  calls: ToolCall[],
  usage: Usage,
  o: ReplyOptions & { text?: string } = {},
): ResponsesResponse {
  const items = calls.map((c, i) => ({
    type: "function_call",
    id: `fc_mock_${i + 1}`,
    status: "completed",
    call_id: c.id ?? `call_mock_${i + 1}`,
    name: c.name,
    arguments: JSON.stringify(c.args),
  }));
  return response([...(o.text ? [messageItem(o.text, "msg_mock_1")] : []), ...items], usage, o);
}

/** The SSE event sequence for a response: `event: <type>` + data with a sequence_number. */
export function toSse(resp: ResponsesResponse): string {
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  const pending = { ...resp, status: "in_progress", output: [], usage: null };
  push("response.created", { response: pending });
  push("response.in_progress", { response: pending });
  resp.output.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === "message") {
      push("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const parts = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : [];
      parts.forEach((part, content_index) => {
        const text = String(part.text ?? "");
        push("response.content_part.added", { ...at, content_index, part: { ...part, text: "" } });
        push("response.output_text.delta", { ...at, content_index, delta: text, logprobs: [] });
        push("response.output_text.done", { ...at, content_index, text, logprobs: [] });
        push("response.content_part.done", { ...at, content_index, part });
      });
    } else if (item.type === "function_call") {
      push("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      push("response.function_call_arguments.delta", { ...at, delta: item.arguments });
      push("response.function_call_arguments.done", { ...at, arguments: item.arguments });
    } else push("response.output_item.added", { output_index, item });
    push("response.output_item.done", { output_index, item });
  });
  push("response.completed", { response: resp });
  return encodeSse(events);
}

/** Assembles a stream: the final response object, output rebuilt from item events if it has none. */
export function parseSse(text: string): ResponsesResponse {
  let final: ResponsesResponse | undefined;
  const items: Array<Record<string, unknown>> = [];
  for (const { data } of sseJson(text)) {
    const type = String(data.type ?? "");
    if (type === "response.output_item.done" && isRecord(data.item))
      items[Number(data.output_index ?? items.length)] = data.item;
    if (isRecord(data.response) && type.startsWith("response."))
      final = data.response as unknown as ResponsesResponse;
  }
  if (!final) throw new WireError("OpenAI Responses stream has no response event");
  const output = final.output?.length ? final.output : items.filter(Boolean);
  return { ...final, output };
}

/** The function_call items of a response (an object, or SSE text which is assembled first). */
export function extractToolCalls(response: unknown): ToolCall[] {
  const resp = typeof response === "string" ? parseSse(response) : response;
  if (!isRecord(resp) || !Array.isArray(resp.output)) return [];
  return resp.output
    .filter((i): i is Record<string, unknown> => isRecord(i) && i.type === "function_call")
    .map((i) => ({ id: String(i.call_id), name: String(i.name), args: parseArgs(i.arguments) }));
}

/** An error body in the OpenAI shape. */
export function errorBody(status: number, message: string): Record<string, unknown> {
  const type =
    status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: type } };
}

/** The tools a raw body offers, its `tools` alone checked. */
export function toolsOfBody(body: Record<string, unknown>): OfferedTool[] {
  return toolsOnly(body, { model: "", messages: [] }, parseRequest, toolsOffered);
}

/** The non-streaming endpoint under `base` (a base ending in /v1 is kept). */
export function endpointUrl(base: string, _model: string): string {
  return joinBase(base, "/responses", /\/v1$/, "/v1");
}

/** The model replaced, streaming off. */
export const rewriteBody = rewriteModel;

/** The headers that authorise a request with `key`: a Bearer token. */
export function authorize(_req: SignableRequest, key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The wire request: the key as a Bearer token. */
export function buildRequest(request: Record<string, unknown>, route: Route): WireRequest {
  const body = JSON.stringify(rewriteBody(request, route.model));
  return authorizedPost(endpointUrl(route.url, route.model), body, { ...JSON_HEADERS }, route, authorize);
}

/** A judge's request: the prompt as the input, no tools (system text as `instructions` if asked). */
export function judgeRequest(model: string, prompt: string, o: JudgeAsk = {}): Record<string, unknown> {
  return {
    model,
    ...judgeExtras(o, "instructions"),
    ...(o.maxTokens === undefined ? {} : { max_output_tokens: o.maxTokens }),
    input: prompt,
  };
}

/** The function_call and custom_tool_call items (a reply's output or a request's input), malformed kept. */
export function callsIn(items: unknown): RawCall[] {
  if (!Array.isArray(items)) return [];
  return items
    .filter((i) => isRecord(i) && (i.type === "function_call" || i.type === "custom_tool_call"))
    .map((i) =>
      i.type === "custom_tool_call" ? rawCall(i.name, { input: i.input }) : rawCall(i.name, i.arguments),
    );
}

/** A non-streaming reply's answer: its calls and the text of its message items; null without `output`. */
export function answerOf(body: unknown): Answer | null {
  if (!isRecord(body) || !Array.isArray(body.output)) return null;
  const items = body.output.filter(isRecord);
  const text = items
    .filter((i) => i.type === "message" && Array.isArray(i.content))
    .flatMap((i) => (i.content as unknown[]).filter(isRecord))
    .flatMap((p) => (typeof p.text === "string" ? [p.text] : []))
    .join("\n");
  return { calls: callsIn(items), malformedTurn: false, text };
}

/** What a stored reply did (cut short when incomplete). */
export function armAction(r: Record<string, unknown>): ArmAction {
  return {
    calls: callsIn(r.output),
    truncated: r.status === "incomplete" || isRecord(r.incomplete_details),
    readable: Array.isArray(r.output),
  };
}

/** Where a request keeps its conversation. */
export const conversationKey = "input";

// Items a model turn is made of; a message item counts when the assistant wrote it.
const MODEL_ITEMS = ["reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"];
const isModelItem = (item: unknown): boolean =>
  isRecord(item) &&
  (MODEL_ITEMS.includes(String(item.type)) ||
    ((item.type === "message" || item.type === undefined) && item.role === "assistant"));

/** The last model turn (several items: reasoning, calls, a message): where it starts and what it called. */
export function lastTurn(items: readonly unknown[]): { at: number; calls: RawCall[] } | undefined {
  return lastTurnOf(items, isModelItem, true, callsIn);
}

/** Tokens of a Responses usage object (input_tokens counts the cached ones, output_tokens the reasoning). */
export function tokensOf(usage: unknown): Tokens | undefined {
  if (!isRecord(usage)) return undefined;
  const inDetail = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outDetail = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    input: tokenCount(usage.input_tokens),
    output: tokenCount(usage.output_tokens),
    cacheRead: tokenCount(inDetail.cached_tokens),
    cacheWrite: 0,
    reasoning: tokenCount(outDetail.reasoning_tokens),
  };
}

/** The calls among output or input items, with their call ids. */
function itemCalls(items: Record<string, unknown>[]): Reply["calls"] {
  return items
    .filter((i) => i.type === "function_call" || i.type === "custom_tool_call")
    .map((i) => ({
      ...(i.type === "custom_tool_call" ? rawCall(i.name, { input: i.input }) : rawCall(i.name, i.arguments)),
      ...(typeof i.call_id === "string" ? { id: i.call_id } : {}),
    }));
}

/** Reads a reply body as it came over the wire (a response object or its SSE stream); WireError when neither. */
export function readReply(body: Uint8Array): Reply {
  const doc = replyDocument(body, "OpenAI Responses", parseSse);
  const r = isRecord(doc) ? doc : {};
  const items = Array.isArray(r.output) ? r.output.filter(isRecord) : [];
  return replyFrom({
    model: r.model,
    tokens: tokensOf(r.usage),
    text: answerOf({ output: items })?.text ?? "",
    calls: itemCalls(items),
    stop: r.status,
  });
}

/** One input item's entry: a message, a call (the assistant's) or a call's output (a tool result). */
function itemSaid(i: Record<string, unknown>): Said[] {
  if (i.type === "function_call" || i.type === "custom_tool_call")
    return said({ role: "assistant", calls: itemCalls([i]) });
  if (i.type === "function_call_output" || i.type === "custom_tool_call_output")
    return said({ role: "tool", results: [{ id: String(i.call_id ?? ""), text: contentText(i.output) }] });
  if (i.type !== undefined && i.type !== "message") return [];
  const role =
    i.role === "assistant" ? "assistant" : i.role === "system" || i.role === "developer" ? "system" : "user";
  return said({ role, text: contentText(i.content) });
}

/** The conversation a request carries: its instructions, then each input item. */
export function readConversation(body: Record<string, unknown>): Said[] {
  const input = body.input;
  return [
    ...(typeof body.instructions === "string" ? said({ role: "system", text: body.instructions }) : []),
    ...(typeof input === "string"
      ? said({ role: "user", text: input })
      : Array.isArray(input)
        ? input.filter(isRecord).flatMap(itemSaid)
        : []),
  ];
}

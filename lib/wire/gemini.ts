// Gemini (`:generateContent` and `:streamGenerateContent?alt=sse`, what Gemini CLI speaks): the
// request fields we read (the rest is kept), functionDeclarations offered, functionResponse parts sent
// back, replies as one GenerateContentResponse or its SSE form (`data: <json>\r\n\r\n`), and a
// schema-valid JSON answer for the router call that sets generationConfig.responseJsonSchema. The
// client side: the model in the URL, the x-goog-api-key request, the judge's body, answers, turns.
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
  lastTurnOf,
  type OfferedTool,
  parseArgs,
  parseWith,
  type RawCall,
  type Route,
  rawCall,
  requiredArgs,
  type SignableRequest,
  sampleForSchema,
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
import { awsEscape } from "./sigv4.ts";

const Part = z.looseObject({});
const Content = z.looseObject({ role: z.string().optional(), parts: z.array(Part).optional() });
const Decl = z.looseObject({
  name: z.string(),
  parameters: z.unknown().optional(),
  parametersJsonSchema: z.unknown().optional(),
});
const Tool = z.looseObject({ functionDeclarations: z.array(Decl).optional() });

/** The request body, lenient: unknown fields pass through untouched. */
export const GenerateContentRequest = z.looseObject({
  contents: z.array(Content),
  tools: z.array(Tool).optional(),
  generationConfig: z.looseObject({}).optional(),
});
export type GenerateContentRequest = z.infer<typeof GenerateContentRequest>;

/** A GenerateContentResponse (one SSE chunk, or the whole non-streaming reply). */
export interface GenerateContentResponse {
  candidates: Array<{
    content: { role: string; parts: Array<Record<string, unknown>> };
    finishReason?: string;
    index: number;
  }>;
  usageMetadata?: Record<string, number>;
  modelVersion?: string;
  responseId?: string;
}

/** Options of the reply builders: model version and response id. */
export interface ReplyOptions {
  id?: string;
  model?: string;
}

/** Parses a request body; throws WireError on a body that is not a generateContent request. */
export function parseRequest(body: unknown): GenerateContentRequest {
  return parseWith(GenerateContentRequest, body, "Gemini generateContent request");
}

/** The function declarations the request offers, with their required args. */
export function toolsOffered(req: GenerateContentRequest): OfferedTool[] {
  return (req.tools ?? []).flatMap((t) =>
    (t.functionDeclarations ?? []).map((d) => ({
      name: d.name,
      required: requiredArgs(d.parametersJsonSchema ?? d.parameters),
    })),
  );
}

/** Every functionResponse part in the contents, in order. */
export function toolResults(req: GenerateContentRequest): ToolResult[] {
  return req.contents.flatMap((c) =>
    (c.parts ?? []).flatMap((p) => {
      const fr = p.functionResponse;
      if (!isRecord(fr)) return [];
      return [
        {
          ...(typeof fr.id === "string" ? { id: fr.id } : {}),
          name: String(fr.name ?? ""),
          content: fr.response ?? null,
        },
      ];
    }),
  );
}

/** True when any content carries a functionResponse part. */
export function hasToolResult(req: GenerateContentRequest): boolean {
  return toolResults(req).length > 0;
}

/** A value valid for a (simple) JSON Schema (lib/wire/common.ts). */
export { sampleForSchema };

/** The JSON Schema the router asks its answer to follow (responseJsonSchema or responseSchema), if any. */
export function responseSchema(req: GenerateContentRequest): unknown {
  const g = req.generationConfig ?? {};
  return g.responseJsonSchema ?? g.responseSchema;
}

function usageOf(u: Usage): Record<string, number> {
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output,
    totalTokenCount: u.input + u.output + (u.reasoning ?? 0),
    ...(u.cached ? { cachedContentTokenCount: u.cached } : {}),
    ...(u.reasoning ? { thoughtsTokenCount: u.reasoning } : {}),
  };
}

function reply(
  parts: Array<Record<string, unknown>>,
  usage: Usage,
  o: ReplyOptions,
): GenerateContentResponse {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: usageOf(usage),
    modelVersion: o.model ?? "mock-model",
    responseId: o.id ?? "mock-response",
  };
}

/** A final text reply. */
export function textResponse(text: string, usage: Usage, o: ReplyOptions = {}): GenerateContentResponse {
  return reply([{ text }], usage, o);
}

/** A reply with functionCall parts (ids kept when given), optionally after a text part. */
export function toolCallResponse(
  calls: ToolCall[],
  usage: Usage,
  o: ReplyOptions & { text?: string } = {},
): GenerateContentResponse {
  const parts = calls.map((c) => ({
    functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: c.args },
  }));
  return reply([...(o.text ? [{ text: o.text }] : []), ...parts], usage, o);
}

/** The answer to a router call: JSON text valid for its response schema. */
export function routerResponse(
  req: GenerateContentRequest,
  usage: Usage,
  o: ReplyOptions = {},
): GenerateContentResponse {
  return textResponse(JSON.stringify(sampleForSchema(responseSchema(req))), usage, o);
}

/** The SSE form of a reply: a single `data:` chunk ended by CRLF CRLF, as the Gemini API sends. */
export function toSse(resp: GenerateContentResponse): string {
  return encodeSse([{ data: resp }], "\r\n");
}

/** Assembles streamed chunks into one reply: parts concatenated, finishReason and usage from the last. */
export function parseSse(text: string): GenerateContentResponse {
  const chunks = sseJson(text).map((e) => e.data as unknown as GenerateContentResponse);
  const last = chunks.at(-1);
  if (!last) throw new WireError("Gemini stream has no data chunk");
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const finishReason = chunks.findLast((c) => c.candidates?.[0]?.finishReason)?.candidates[0]?.finishReason;
  const usageMetadata = chunks.findLast((c) => c.usageMetadata)?.usageMetadata;
  return {
    candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(usageMetadata ? { usageMetadata } : {}),
    ...(last.modelVersion ? { modelVersion: last.modelVersion } : {}),
    ...(last.responseId ? { responseId: last.responseId } : {}),
  };
}

/** The functionCall parts of a reply (an object, or SSE text which is assembled first). */
export function extractToolCalls(response: unknown): ToolCall[] {
  const resp = typeof response === "string" ? parseSse(response) : response;
  if (!isRecord(resp) || !Array.isArray(resp.candidates)) return [];
  const parts =
    (resp.candidates[0] as GenerateContentResponse["candidates"][0] | undefined)?.content?.parts ?? [];
  return parts.flatMap((p) => {
    const fc = p.functionCall;
    if (!isRecord(fc)) return [];
    return [
      {
        ...(typeof fc.id === "string" ? { id: fc.id } : {}),
        name: String(fc.name),
        args: parseArgs(fc.args),
      },
    ];
  });
}

/** An error body in the Google API shape. */
export function errorBody(status: number, message: string): Record<string, unknown> {
  const s =
    status === 429
      ? "RESOURCE_EXHAUSTED"
      : status === 404
        ? "NOT_FOUND"
        : status >= 500
          ? "INTERNAL"
          : "INVALID_ARGUMENT";
  return { error: { code: status, message, status: s } };
}

/** The tools a raw body offers, its `tools` alone checked. */
export function toolsOfBody(body: Record<string, unknown>): OfferedTool[] {
  return toolsOnly(body, { contents: [] }, parseRequest, toolsOffered);
}

/** The non-streaming endpoint of `model` under `base` (a base ending in /v1, /v1beta or /v1alpha is kept). */
export function endpointUrl(base: string, model: string): string {
  return joinBase(base, `/models/${awsEscape(model)}:generateContent`, /\/v1(beta|alpha)?$/, "/v1beta");
}

/** Kept as is: Gemini names the model and the streaming in the URL, not the body. */
export function rewriteBody(request: Record<string, unknown>, _model: string): Record<string, unknown> {
  return request;
}

/** The headers that authorise a request with `key`: x-goog-api-key (never the `?key=` query form). */
export function authorize(_req: SignableRequest, key: string): Record<string, string> {
  return { "x-goog-api-key": key };
}

/** The wire request: the key in x-goog-api-key. */
export function buildRequest(request: Record<string, unknown>, route: Route): WireRequest {
  const body = JSON.stringify(rewriteBody(request, route.model));
  return authorizedPost(endpointUrl(route.url, route.model), body, { ...JSON_HEADERS }, route, authorize);
}

/** A judge's request: one user content with the prompt (the model is in the URL); extras if asked. */
export function judgeRequest(_model: string, prompt: string, o: JudgeAsk = {}): Record<string, unknown> {
  return {
    ...(o.system === undefined ? {} : { systemInstruction: { parts: [{ text: o.system }] } }),
    contents: [{ role: "user", parts: [{ text: prompt }] }],
    ...(o.temperature === undefined && o.maxTokens === undefined
      ? {}
      : {
          generationConfig: {
            ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
            ...(o.maxTokens === undefined ? {} : { maxOutputTokens: o.maxTokens }),
          },
        }),
  };
}

/** The functionCall parts among parts, malformed kept. */
export function callsIn(parts: unknown): RawCall[] {
  if (!Array.isArray(parts)) return [];
  return parts
    .filter((p) => isRecord(p) && isRecord(p.functionCall))
    .map((p) => {
      const fc = (p as { functionCall: Record<string, unknown> }).functionCall;
      return rawCall(fc.name, fc.args);
    });
}

function firstCandidate(r: Record<string, unknown>): Record<string, unknown> | undefined {
  return Array.isArray(r.candidates) && isRecord(r.candidates[0]) ? r.candidates[0] : undefined;
}

/** A non-streaming reply's answer: the first candidate's calls and visible (non-thought) text. */
export function answerOf(body: unknown): Answer | null {
  if (!isRecord(body) || !Array.isArray(body.candidates)) return null;
  const cand = firstCandidate(body) ?? {};
  const content = isRecord(cand.content) ? cand.content : {};
  const parts = Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
  return {
    calls: callsIn(parts),
    malformedTurn: cand.finishReason === "MALFORMED_FUNCTION_CALL",
    text: parts.flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : [])).join("\n"),
  };
}

/** What a stored reply did (cut short at MAX_TOKENS). */
export function armAction(r: Record<string, unknown>): ArmAction {
  const cand = firstCandidate(r);
  const content = cand && isRecord(cand.content) ? cand.content : undefined;
  return {
    calls: callsIn(content?.parts),
    truncated: cand?.finishReason === "MAX_TOKENS",
    readable: content !== undefined,
  };
}

/** Where a request keeps its conversation. */
export const conversationKey = "contents";

/** The last model content of a conversation: where it is and what it called. */
export function lastTurn(items: readonly unknown[]): { at: number; calls: RawCall[] } | undefined {
  return lastTurnOf(
    items,
    (i) => isRecord(i) && i.role === "model",
    false,
    (turn) => callsIn((turn[0] as Record<string, unknown>).parts),
  );
}

/** Tokens of a usageMetadata object: the prompt counts the cached part; thoughts come on top of candidates. */
export function tokensOf(usage: unknown): Tokens | undefined {
  if (!isRecord(usage)) return undefined;
  const reasoning = tokenCount(usage.thoughtsTokenCount);
  return {
    input: tokenCount(usage.promptTokenCount) + tokenCount(usage.toolUsePromptTokenCount),
    output: tokenCount(usage.candidatesTokenCount) + reasoning,
    cacheRead: tokenCount(usage.cachedContentTokenCount),
    cacheWrite: 0,
    reasoning,
  };
}

/** Reads a reply body as it came over the wire: one response, a JSON array of chunks, or SSE chunks. */
export function readReply(body: Uint8Array): Reply {
  const doc = replyDocument(body, "Gemini", parseSse);
  // streamGenerateContent without alt=sse answers a JSON array of the chunks.
  const resp = Array.isArray(doc) ? parseSse(doc.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")) : doc;
  const r = isRecord(resp) ? resp : {};
  const cand = firstCandidate(r) ?? {};
  const content = isRecord(cand.content) ? cand.content : {};
  const parts = Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
  return replyFrom({
    model: r.modelVersion,
    tokens: tokensOf(r.usageMetadata),
    // A stream's chunks split one text into parts: they read joined.
    text: parts.flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : [])).join(""),
    calls: partCalls(parts),
    stop: cand.finishReason,
  });
}

/** The functionCall parts with their ids (when the model gave one). */
function partCalls(parts: Record<string, unknown>[]): Reply["calls"] {
  return parts.flatMap((p) => {
    const fc = p.functionCall;
    if (!isRecord(fc)) return [];
    return [{ ...rawCall(fc.name, fc.args), ...(typeof fc.id === "string" ? { id: fc.id } : {}) }];
  });
}

/** One content's entry: its text (thoughts left out), calls, and functionResponse parts as tool results. */
function contentSaid(c: Record<string, unknown>, role: Said["role"]): Said[] {
  const parts = Array.isArray(c.parts) ? c.parts.filter(isRecord) : [];
  const results = parts.flatMap((p) => {
    const fr = p.functionResponse;
    if (!isRecord(fr)) return [];
    return [
      {
        ...(typeof fr.id === "string" ? { id: fr.id } : {}),
        name: String(fr.name ?? ""),
        text: contentText(
          isRecord(fr.response) && "output" in fr.response ? fr.response.output : fr.response,
        ),
        ...(isRecord(fr.response) && "error" in fr.response ? { isError: true } : {}),
      },
    ];
  });
  const text = parts
    .flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : []))
    .join("\n");
  return said({
    role: results.length > 0 && role === "user" ? "tool" : role,
    text,
    calls: partCalls(parts),
    results,
  });
}

/** The conversation a request carries: its systemInstruction, then each content ("model" as assistant). */
export function readConversation(body: Record<string, unknown>): Said[] {
  const system = isRecord(body.systemInstruction) ? body.systemInstruction : undefined;
  const contents = Array.isArray(body.contents) ? body.contents.filter(isRecord) : [];
  return [
    ...(system ? contentSaid(system, "system") : []),
    ...contents.flatMap((c) => contentSaid(c, c.role === "model" ? "assistant" : "user")),
  ];
}

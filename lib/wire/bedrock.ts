// Amazon Bedrock InvokeModel for Anthropic models (`POST /model/<id>/invoke` and
// `/invoke-with-response-stream`, what Claude Code speaks with CLAUDE_CODE_USE_BEDROCK): the body is
// an Anthropic Messages body without `model`/`stream` (plus `anthropic_version`), replies are Messages
// replies, and the stream is AWS event-stream framing (CRC32-checked binary frames) whose `chunk`
// events carry each Anthropic SSE event as base64 JSON in `{"bytes": ...}`. A client authorises with
// SigV4 (an AWS key pair, lib/wire/sigv4.ts) or a Bedrock API key as a Bearer token.
import { Buffer } from "node:buffer";
import { z } from "zod";
import { UsageError } from "../core/errors.ts";
import * as anthropic from "./anthropic.ts";
import {
  type AuthOptions,
  authorizedPost,
  isRecord,
  JSON_HEADERS,
  type JudgeAsk,
  judgeExtras,
  type OfferedTool,
  parseWith,
  type Route,
  type SignableRequest,
  sseJson,
  type ToolCall,
  type ToolResult,
  toolsOnly,
  WireError,
  type WireRequest,
} from "./common.ts";
import type { Reply } from "./reading.ts";
import { type AwsCredentials, awsEscape, regionOfUrl, signV4 } from "./sigv4.ts";

/** The InvokeModel request body, lenient: unknown fields pass through untouched. */
export const InvokeRequest = z.looseObject({
  anthropic_version: z.string().optional(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    }),
  ),
  tools: z.array(z.looseObject({ name: z.string(), input_schema: z.unknown().optional() })).optional(),
});
export type InvokeRequest = z.infer<typeof InvokeRequest>;

/** Parses a request body; throws WireError on a body that is not an InvokeModel Messages body. */
export function parseRequest(body: unknown): InvokeRequest {
  return parseWith(InvokeRequest, body, "Bedrock InvokeModel request");
}

/** The model id and whether the reply streams, from `/model/<id>/invoke[-with-response-stream]`. */
export function routeOf(path: string): { model: string; stream: boolean } | undefined {
  const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(path.split("?")[0] ?? "");
  return m ? { model: decodeURIComponent(m[1] ?? ""), stream: m[2] !== "invoke" } : undefined;
}

/** The tools the request offers, with their required args. */
export function toolsOffered(req: InvokeRequest): OfferedTool[] {
  return anthropic.toolsOffered({ ...req, model: "" });
}

/** Every tool_result block in any user message, in order. */
export function toolResults(req: InvokeRequest): ToolResult[] {
  return anthropic.toolResults({ ...req, model: "" });
}

/** True when any user message carries a tool_result. */
export function hasToolResult(req: InvokeRequest): boolean {
  return toolResults(req).length > 0;
}

/** The tools a raw body offers, its `tools` alone checked. */
export function toolsOfBody(body: Record<string, unknown>): OfferedTool[] {
  return toolsOnly(body, { messages: [] }, parseRequest, toolsOffered);
}

/** Replies are Anthropic Messages replies. */
export const textResponse = anthropic.textResponse;
/** Tool-use replies are Anthropic Messages replies. */
export const toolCallResponse = anthropic.toolCallResponse;
/** The tool_use blocks of a reply (a message object or an event-stream, which is decoded first). */
export function extractToolCalls(response: unknown): ToolCall[] {
  return anthropic.extractToolCalls(response instanceof Uint8Array ? parseEventStream(response) : response);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (IEEE), as the event-stream prelude and message checksums use. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One event-stream frame with string headers. */
export function encodeFrame(headers: Record<string, string>, payload: Uint8Array): Uint8Array {
  const enc = new TextEncoder();
  const parts = Object.entries(headers).map(([k, v]) => {
    const [kb, vb] = [enc.encode(k), enc.encode(v)];
    const b = new Uint8Array(4 + kb.length + vb.length);
    b[0] = kb.length;
    b.set(kb, 1);
    b[1 + kb.length] = 7;
    new DataView(b.buffer).setUint16(2 + kb.length, vb.length);
    b.set(vb, 4 + kb.length);
    return b;
  });
  const hlen = parts.reduce((n, p) => n + p.length, 0);
  const total = 16 + hlen + payload.length;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, total);
  dv.setUint32(4, hlen);
  dv.setUint32(8, crc32(out.subarray(0, 8)));
  let at = 12;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  out.set(payload, at);
  dv.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

const HEADER_SIZES: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 };

/** Splits an event-stream into frames (string headers read, others skipped); checks both CRCs. */
export function decodeFrames(
  bytes: Uint8Array,
): Array<{ headers: Record<string, string>; payload: Uint8Array }> {
  const frames: Array<{ headers: Record<string, string>; payload: Uint8Array }> = [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder();
  for (let at = 0; at < bytes.length; ) {
    if (bytes.length - at < 16) throw new WireError(`Bedrock event-stream: truncated frame at byte ${at}`);
    const [total, hlen] = [dv.getUint32(at), dv.getUint32(at + 4)];
    if (total < 16 || at + total > bytes.length)
      throw new WireError(`Bedrock event-stream: bad length at byte ${at}`);
    if (
      crc32(bytes.subarray(at, at + 8)) !== dv.getUint32(at + 8) ||
      crc32(bytes.subarray(at, at + total - 4)) !== dv.getUint32(at + total - 4)
    )
      throw new WireError(`Bedrock event-stream: CRC mismatch at byte ${at}`);
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < at + 12 + hlen; ) {
      const name = dec.decode(bytes.subarray(h + 1, h + 1 + (bytes[h] ?? 0)));
      h += 1 + (bytes[h] ?? 0);
      const type = bytes[h] ?? 0;
      h += 1;
      if (type === 6 || type === 7) {
        const len = dv.getUint16(h);
        if (type === 7) headers[name] = dec.decode(bytes.subarray(h + 2, h + 2 + len));
        h += 2 + len;
      } else h += HEADER_SIZES[type] ?? 0;
    }
    frames.push({ headers, payload: bytes.slice(at + 12 + hlen, at + total - 4) });
    at += total;
  }
  return frames;
}

/** The event-stream for a reply: one `chunk` event per Anthropic SSE event, base64 JSON in `bytes`. */
export function toEventStream(resp: anthropic.MessagesResponse): Uint8Array {
  const frames = sseJson(anthropic.toSse(resp)).map(({ data }) => {
    const bytes = Buffer.from(JSON.stringify(data), "utf8").toString("base64");
    const payload = new TextEncoder().encode(JSON.stringify({ bytes }));
    return encodeFrame(
      { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
      payload,
    );
  });
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

/** Assembles an event-stream back into the non-streaming Messages reply; an exception frame throws. */
export function parseEventStream(bytes: Uint8Array): anthropic.MessagesResponse {
  const sse = decodeFrames(bytes)
    .map(({ headers, payload }) => {
      const body = JSON.parse(new TextDecoder().decode(payload)) as unknown;
      if (headers[":message-type"] === "exception")
        throw new WireError(
          `Bedrock ${headers[":exception-type"] ?? "exception"}: ${isRecord(body) ? String(body.message) : ""}`,
        );
      const json =
        isRecord(body) && typeof body.bytes === "string"
          ? Buffer.from(body.bytes, "base64").toString("utf8")
          : "";
      return json ? `data: ${json}\n\n` : "";
    })
    .join("");
  return anthropic.parseSse(sse);
}

/** An error body in the Bedrock shape (the error type goes in the x-amzn-errortype header). */
export function errorBody(_status: number, message: string): Record<string, unknown> {
  return { message };
}

/** The x-amzn-errortype of an HTTP status. */
export function errorType(status: number): string {
  return status === 429
    ? "ThrottlingException"
    : status >= 500
      ? "InternalServerException"
      : "ValidationException";
}

/** The Anthropic SSE events an event-stream carries (toEventStream frames them). */
export const toSse = anthropic.toSse;
/** A stored stream is kept as the Anthropic SSE text it carried. */
export const parseSse = anthropic.parseSse;
/** Answers, stored replies and conversations read as Anthropic Messages. */
export const { answerOf, armAction, callsIn, conversationKey, lastTurn } = anthropic;

/** The InvokeModel endpoint of `model` under `base`. */
export function endpointUrl(base: string, model: string): string {
  return `${base.replace(/\/+$/, "")}/model/${awsEscape(model)}/invoke`;
}

/** Kept as is: Bedrock names the model and the streaming in the URL, not the body. */
export function rewriteBody(request: Record<string, unknown>, _model: string): Record<string, unknown> {
  return request;
}

/** A judge's request: one user turn with the prompt (the model is in the URL); extras if asked. */
export function judgeRequest(_model: string, prompt: string, o: JudgeAsk = {}): Record<string, unknown> {
  return {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: o.maxTokens ?? 1024,
    ...judgeExtras(o, "system"),
    messages: [{ role: "user", content: prompt }],
  };
}

/** `ACCESS_KEY_ID:SECRET[:SESSION_TOKEN]` as AWS credentials; anything without a colon is a Bedrock API key. */
export function awsCredentials(key: string): AwsCredentials | undefined {
  const parts = key.split(":");
  if (parts.length < 2) return undefined;
  const [accessKeyId = "", secretAccessKey = "", ...token] = parts;
  if (!accessKeyId || !secretAccessKey)
    throw new UsageError(
      "The Bedrock key must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN] or an API key",
    );
  return { accessKeyId, secretAccessKey, ...(token.length > 0 ? { sessionToken: token.join(":") } : {}) };
}

/** The headers a SigV4 signature adds (host goes on the wire by itself). */
const SIGNATURE_HEADERS = ["authorization", "x-amz-date", "x-amz-security-token"] as const;

/**
 * The headers that authorise a request with `key`: for an AWS key pair a SigV4 signature over the
 * request as given (its headers all signed; region from `o` or the URL's host), else a Bearer token
 * (a Bedrock API key). An AWS key pair without a region is a UsageError.
 */
export function authorize(req: SignableRequest, key: string, o: AuthOptions = {}): Record<string, string> {
  const credentials = awsCredentials(key);
  if (!credentials) return { authorization: `Bearer ${key}` };
  const region = o.region ?? regionOfUrl(req.url);
  if (!region) throw new UsageError(`Cannot sign for Bedrock at "${req.url}": give --region (or AWS_REGION)`);
  const date = (o.now ?? (() => new Date()))();
  const signed = signV4({ ...req, region, service: "bedrock", credentials, date });
  return Object.fromEntries(
    SIGNATURE_HEADERS.flatMap((h) => (signed.headers[h] ? [[h, signed.headers[h]]] : [])),
  );
}

/** The wire request: SigV4-signed for an AWS key pair (region from the route or the URL host), else Bearer. */
export function buildRequest(request: Record<string, unknown>, route: Route): WireRequest {
  const url = endpointUrl(route.url, route.model);
  if (awsCredentials(route.key) && !(route.region ?? regionOfUrl(url)))
    throw new UsageError(`Cannot sign for Bedrock at "${route.url}": give --region (or AWS_REGION)`);
  return authorizedPost(
    url,
    JSON.stringify(rewriteBody(request, route.model)),
    { ...JSON_HEADERS },
    route,
    authorize,
  );
}

/** Reads a reply body as it came over the wire: an InvokeModel JSON body or its binary event-stream. */
export function readReply(body: Uint8Array): Reply {
  const first = body.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  return first === 0x7b ? anthropic.readReply(body) : anthropic.replyOf(parseEventStream(body));
}

/** The conversation an InvokeModel body carries: as Anthropic Messages. */
export const readConversation = anthropic.readConversation;

// What every wire protocol shares: the protocol-neutral shapes (tool calls, tool results, offered
// tools, usage, a replayed answer, a route, a wire request), Server-Sent Events framing, a tool
// schema's required argument names (and a sample value for a schema), and the helpers the protocol
// modules build their client side from (the model rewrite, base URLs, the last model turn).
import type { z } from "zod";
import { ToolError } from "../core/errors.ts";

/** A request or response body that does not have the protocol's shape. */
export class WireError extends ToolError {
  constructor(message: string) {
    super(message, 3);
    this.name = "WireError";
  }
}

/** Checks `body` against `schema` (no defaults/transforms) and returns it as is; else throws a WireError. */
export function parseWith<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  // The body itself, not zod's copy: same key order and identity, so rewrites and hashes see the original.
  if (result.success) return body as T;
  const issue = result.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new WireError(`Bad ${what}: ${issue?.message ?? "invalid"}${at}`);
}

/** One tool call as a model made it: id (when the protocol has one), tool name, parsed arguments. */
export interface ToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** One tool result as the client sent it back: call id (or tool name for Gemini) and its content. */
export interface ToolResult {
  id?: string;
  name?: string;
  content: unknown;
  isError?: boolean;
}

/** A tool the client offers the model: its name and the argument names its schema requires. */
export interface OfferedTool {
  name: string;
  required: string[];
}

/** Token counts, protocol-neutral; each protocol maps them to its own field names. */
export interface Usage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

/** One SSE event: its `event:` name (when given) and the joined `data:` lines. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits an SSE stream into events (LF or CRLF line ends; comments and `id:`/`retry:` ignored). */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n\n+/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0)
      events.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return events;
}

/** Encodes events as SSE text: `event: <name>\ndata: <json>` blocks joined by `eol` twice. */
export function encodeSse(events: Array<{ event?: string; data: unknown }>, eol = "\n"): string {
  return events
    .map((e) => {
      const head = e.event === undefined ? "" : `event: ${e.event}${eol}`;
      return `${head}data: ${JSON.stringify(e.data)}${eol}${eol}`;
    })
    .join("");
}

/** The JSON data of every event, skipping non-JSON payloads such as `[DONE]`. */
export function sseJson(text: string): Array<{ event?: string; data: Record<string, unknown> }> {
  return sseEvents(text).flatMap((e) => {
    try {
      const data = JSON.parse(e.data) as unknown;
      return isRecord(data) ? [{ ...(e.event === undefined ? {} : { event: e.event }), data }] : [];
    } catch {
      return [];
    }
  });
}

/** The `required` argument names of a JSON Schema object (empty when absent or malformed). */
export function requiredArgs(schema: unknown): string[] {
  if (!isRecord(schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((r): r is string => typeof r === "string");
}

/** True for a plain (non-array, non-null) object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value valid for a (simple) JSON Schema: enums take their first value, numbers their minimum or 1. */
export function sampleForSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? "object")).toLowerCase();
  if (type === "string") return "mock";
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return false;
  if (type === "array") return [sampleForSchema(schema.items)];
  if (type === "null") return null;
  const props = isRecord(schema.properties) ? schema.properties : {};
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleForSchema(v)]));
}

/** Parses tool-call arguments given as a JSON string; a non-object or bad JSON yields `{}`. */
export function parseArgs(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value !== "string" || value.trim() === "") return {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** One call as read off the wire for grading: `malformed` when its arguments were not a JSON object. */
export interface RawCall {
  name: string;
  args: Record<string, unknown>;
  malformed?: boolean;
}

/** A call with its arguments read strictly (unlike parseArgs): a non-object is kept visible as malformed. */
export function rawCall(name: unknown, rawArgs: unknown): RawCall {
  const args = strictArgs(rawArgs);
  return args === undefined
    ? { name: String(name ?? ""), args: {}, malformed: true }
    : { name: String(name ?? ""), args };
}

function strictArgs(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return {};
  if (isRecord(value)) return value;
  if (typeof value !== "string") return undefined;
  if (value.trim() === "") return {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A model's answer at one step: its calls (none = it ended its turn), a malformed turn, its visible text. */
export interface Answer {
  calls: RawCall[];
  /** The protocol said the call itself was malformed (Gemini's MALFORMED_FUNCTION_CALL). */
  malformedTurn: boolean;
  /** The visible text of the answer, for a judge. */
  text: string;
}

/** What a stored reply did: its calls, whether it was cut short, whether it had the protocol's shape. */
export interface ArmAction {
  calls: RawCall[];
  truncated: boolean;
  readable: boolean;
}

/** Where a request goes and how it is authorised: base URL, model, key, Bedrock's region, the signing clock. */
export interface Route {
  url: string;
  model: string;
  key: string;
  region?: string;
  now?: () => Date;
}

/** A request as it goes on the wire. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A request to authorise: what a SigV4 signature covers (the headers given are all signed). */
export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

/** How a key is applied beyond the request itself: Bedrock's signing region and clock. */
export type AuthOptions = Pick<Route, "region" | "now">;

/** A POST of `body` to `url` with `headers`, the route's key put on it by the protocol's `authorize`. */
export function authorizedPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  route: Route,
  authorize: (req: SignableRequest, key: string, o?: AuthOptions) => Record<string, string>,
): WireRequest {
  return {
    url,
    body,
    // No key (a keyless mock or local model): no credential at all, not an empty one.
    headers:
      route.key === ""
        ? headers
        : { ...headers, ...authorize({ method: "POST", url, headers, body }, route.key, route) },
  };
}

/** A judge's extras: its system text and sampling temperature (absent: the protocol's defaults). */
export interface JudgeAsk {
  system?: string;
  temperature?: number;
  /** The reply's token limit (Anthropic and Bedrock always send one: 1024 unless given). */
  maxTokens?: number;
}

/** The system text under the protocol's key for it and the top-level temperature (none when absent). */
export function judgeExtras(o: JudgeAsk, systemKey: string): Record<string, unknown> {
  return {
    ...(o.system === undefined ? {} : { [systemKey]: o.system }),
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
  };
}

/** The headers every non-streaming JSON call sends. */
export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" } as const;

/** The one rewrite of a body that names its model: `model` replaced, streaming off where it is asked for. */
export function rewriteModel(request: Record<string, unknown>, model: string): Record<string, unknown> {
  return { ...request, model, ...("stream" in request ? { stream: false } : {}) };
}

/** The tools a raw body offers, its `tools` alone checked against the protocol's schema ([] when bad). */
export function toolsOnly(
  body: Record<string, unknown>,
  empty: Record<string, unknown>,
  parse: (body: unknown) => object,
  offered: (req: never) => OfferedTool[],
): OfferedTool[] {
  try {
    // Only `tools` is read, so it alone is checked: validating every message would cost more than
    // the rest of a harvest scan (written cases are fully re-parsed when they are built).
    parse({ ...empty, tools: body.tools });
    return offered(body as never);
  } catch {
    return [];
  }
}

/** `base` + `tail`, with `prefix` between unless the base already ends in a version (`versioned`). */
export function joinBase(base: string, tail: string, versioned: RegExp, prefix: string): string {
  const b = base.replace(/\/+$/, "");
  return versioned.test(b) ? `${b}${tail}` : `${b}${prefix}${tail}`;
}

/** Where the last model turn of a conversation starts and what it called; `spread` when one turn spans items. */
export function lastTurnOf(
  items: readonly unknown[],
  isModelItem: (item: unknown) => boolean,
  spread: boolean,
  callsOf: (turn: unknown[]) => RawCall[],
): { at: number; calls: RawCall[] } | undefined {
  let end = items.length;
  while (end > 0 && !isModelItem(items[end - 1])) end--;
  if (end === 0) return undefined;
  let at = end - 1;
  if (spread) while (at > 0 && isModelItem(items[at - 1])) at--;
  return { at, calls: callsOf(items.slice(at, end)) };
}

// What a model did at a step, read per wire protocol: the tool calls of an arm's response (with
// malformed arguments kept visible, unlike lib/wire's lenient extractors), whether the response was
// cut short, and the validity rule the harvest and the matcher share: every call names an offered
// tool, carries its required arguments and has an argument object. No calls means the turn ended.

import type { OfferedTool } from "../wire/index.ts";
import * as wire from "../wire/index.ts";
import { isRecord } from "../wire/index.ts";
import type { StepProtocol } from "./case.ts";

/** One call as read off the wire; `malformed` when its arguments were not a JSON object. */
export interface RawCall {
  name: string;
  args: Record<string, unknown>;
  malformed?: boolean;
}

/** Arguments as an object, or undefined when they are not one (a malformed call). */
function argsOf(value: unknown): Record<string, unknown> | undefined {
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

function call(name: unknown, rawArgs: unknown): RawCall {
  const args = argsOf(rawArgs);
  return args === undefined
    ? { name: String(name ?? ""), args: {}, malformed: true }
    : { name: String(name ?? ""), args };
}

/** Calls in Anthropic content blocks (a response's content or an assistant message's). */
export function anthropicCalls(content: unknown): RawCall[] {
  if (!Array.isArray(content)) return [];
  return content.filter((b) => isRecord(b) && b.type === "tool_use").map((b) => call(b.name, b.input));
}

/** Calls among Responses items (a response's output or the model items of an input). */
export function responsesCalls(items: unknown): RawCall[] {
  if (!Array.isArray(items)) return [];
  return items
    .filter((i) => isRecord(i) && (i.type === "function_call" || i.type === "custom_tool_call"))
    .map((i) =>
      i.type === "custom_tool_call" ? call(i.name, { input: i.input }) : call(i.name, i.arguments),
    );
}

/** Calls among Gemini parts. */
export function geminiCalls(parts: unknown): RawCall[] {
  if (!Array.isArray(parts)) return [];
  return parts
    .filter((p) => isRecord(p) && isRecord(p.functionCall))
    .map((p) => {
      const fc = (p as { functionCall: Record<string, unknown> }).functionCall;
      return call(fc.name, fc.args);
    });
}

/** A response body as an object: JSON objects as they are, SSE text assembled by the protocol. */
function responseObject(protocol: StepProtocol, response: unknown): Record<string, unknown> | undefined {
  if (isRecord(response)) return response;
  if (typeof response !== "string") return undefined;
  try {
    const parsed = JSON.parse(response) as unknown;
    if (isRecord(parsed)) return parsed;
  } catch {
    // not JSON: maybe an SSE stream
  }
  try {
    const p = protocol === "bedrock" ? "anthropic" : protocol;
    return wire.PROTOCOLS[p].parseSse(response) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** What an arm's response did: its calls, and whether it was cut short or unreadable. */
export interface ArmAction {
  calls: RawCall[];
  truncated: boolean;
  readable: boolean;
}

/** Reads an arm's response body in `protocol`. */
export function armAction(protocol: StepProtocol, response: unknown): ArmAction {
  const r = responseObject(protocol, response);
  if (!r) return { calls: [], truncated: false, readable: false };
  if (protocol === "anthropic" || protocol === "bedrock")
    return {
      calls: anthropicCalls(r.content),
      truncated: r.stop_reason === "max_tokens",
      readable: Array.isArray(r.content),
    };
  if (protocol === "responses")
    return {
      calls: responsesCalls(r.output),
      truncated: r.status === "incomplete" || isRecord(r.incomplete_details),
      readable: Array.isArray(r.output),
    };
  const cand = Array.isArray(r.candidates) && isRecord(r.candidates[0]) ? r.candidates[0] : undefined;
  const content = cand && isRecord(cand.content) ? cand.content : undefined;
  return {
    calls: geminiCalls(content?.parts),
    truncated: cand?.finishReason === "MAX_TOKENS",
    readable: content !== undefined,
  };
}

/** Why a call is invalid against the offered tools, or undefined when it is valid. */
export function callProblem(c: RawCall, offered: readonly OfferedTool[]): string | undefined {
  if (c.malformed) return `malformed arguments for "${c.name}"`;
  const tool = offered.find((t) => t.name === c.name);
  if (!tool) return `"${c.name}" was not offered`;
  const missing = tool.required.filter((r) => !Object.hasOwn(c.args, r));
  return missing.length > 0 ? `"${c.name}" misses ${missing.map((m) => `"${m}"`).join(", ")}` : undefined;
}

/** True when every call is valid (an ended turn, no calls, is valid). */
export function isValidAction(calls: readonly RawCall[], offered: readonly OfferedTool[]): boolean {
  return calls.every((c) => callProblem(c, offered) === undefined);
}

/** The sorted tool names of an action, as one comparable key (the multiset the `tools` match uses). */
export function toolsKey(calls: readonly RawCall[]): string {
  return JSON.stringify(calls.map((c) => c.name).sort());
}

/** JSON with object keys sorted: canonical arguments for the `calls` comparison. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isRecord(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** The names and canonical arguments of an action, in order, as one comparable key. */
export function callsKey(calls: readonly RawCall[]): string {
  return canonicalJson(
    calls.map((c) => ({ name: c.name, args: c.args, ...(c.malformed ? { malformed: true } : {}) })),
  );
}

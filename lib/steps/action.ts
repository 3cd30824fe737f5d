// What a model did at a step: an arm's stored response (JSON or stream text) read by its protocol in
// the registry (tool calls with malformed arguments kept visible, whether it was cut short), and the
// validity rule the harvest and the matcher share: every call names an offered tool, carries its
// required arguments and has an argument object. No calls means the turn ended.

import { type ArmAction, isRecord, type OfferedTool, protocol, type RawCall } from "../wire/index.ts";
import type { StepProtocol } from "./case.ts";

export type { ArmAction, RawCall };

/** A response body as an object: JSON objects as they are, SSE text assembled by the protocol. */
function responseObject(name: StepProtocol, response: unknown): Record<string, unknown> | undefined {
  if (isRecord(response)) return response;
  if (typeof response !== "string") return undefined;
  try {
    const parsed = JSON.parse(response) as unknown;
    if (isRecord(parsed)) return parsed;
  } catch {
    // not JSON: maybe an SSE stream
  }
  try {
    return protocol(name).parseSse(response) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Reads an arm's response body in protocol `name`. */
export function armAction(name: StepProtocol, response: unknown): ArmAction {
  const r = responseObject(name, response);
  return r ? protocol(name).armAction(r) : { calls: [], truncated: false, readable: false };
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

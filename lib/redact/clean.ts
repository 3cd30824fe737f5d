// The re-scan after redaction, stopping at the first survivor: the same walk, rules and message as
// assertClean in request.ts (keys before values, object entries and array items in order, the
// secret-field rule, the entropy exemptions), without building the list of every finding with its
// JSON path. A clean value (the common case) is walked once with no allocation per node; only a
// survivor's path is spelled out, for the error.
import type { Detector } from "../redact.ts";
import { ENTROPY_EXEMPT_KEYS, RedactionError, SECRET_KEY } from "./request.ts";
import { findStrict } from "./strict.ts";

const KEY = Symbol("key");
type Step = string | number | typeof KEY;

/** The first survivor: its detector and the steps from the root. */
function firstLeft(
  value: unknown,
  detectors: readonly Detector[],
  at: Step[],
  key?: string,
  parent?: unknown,
): string | undefined {
  if (typeof value === "string") {
    if (key !== undefined && value !== "" && SECRET_KEY.test(key) && !value.startsWith("[REDACTED"))
      return "secret-field";
    const exempt =
      key !== undefined &&
      (ENTROPY_EXEMPT_KEYS.has(key) ||
        (key === "data" && (parent as { type?: unknown } | null)?.type === "redacted_thinking"));
    return findStrict(value, detectors, !exempt)[0]?.detector;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      const d = firstLeft(value[i], detectors, at, undefined, value);
      if (d !== undefined) return d;
      at.pop();
    }
    return undefined;
  }
  if (typeof value === "object" && value !== null) {
    for (const k of Object.keys(value)) {
      const inKey = findStrict(k, detectors, true)[0]?.detector;
      if (inKey !== undefined) {
        at.push(KEY);
        return inKey;
      }
      at.push(k);
      const d = firstLeft((value as Record<string, unknown>)[k], detectors, at, k, value);
      if (d !== undefined) return d;
      at.pop();
    }
  }
  return undefined;
}

function pathOf(at: Step[]): string {
  let path = "$";
  for (const s of at) path += typeof s === "number" ? `[${s}]` : s === KEY ? " (key)" : `.${s}`;
  return path;
}

/** Throws RedactionError naming the detector and path (never the text) if anything survives. */
export function assertCleanFast(value: unknown, detectors: readonly Detector[], what: string): void {
  const at: Step[] = [];
  const detector = firstLeft(value, detectors, at);
  if (detector !== undefined)
    throw new RedactionError(`Cannot write ${what}: a ${detector} shape survived redaction at ${pathOf(at)}`);
}

// Fail-closed redaction of a model request (and of the calls expected at its step) before it becomes
// a step case: only allowlisted top-level fields survive, every string (and object key) is scanned
// with the strict detectors plus the user's patterns, and the result is scanned again from scratch.
// Any survivor is a RedactionError: the harvest then writes nothing. Strings under provider-id,
// signature and encrypted-reasoning keys are exempt from the entropy rule only, so they replay.

import { ToolError } from "../errors.ts";
import type { Detector, Finding } from "../redact.ts";
import { redactionMarker } from "../redact.ts";
import { findStrict, STRICT_DETECTORS } from "./strict.ts";

/** Top-level request fields kept by default, across the four protocols; everything else is dropped. */
export const KEEP_FIELDS: readonly string[] = [
  // Anthropic Messages and Bedrock
  "model",
  "system",
  "messages",
  "tools",
  "tool_choice",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "thinking",
  "stream",
  "anthropic_version",
  // OpenAI Responses
  "input",
  "instructions",
  "reasoning",
  "text",
  "parallel_tool_calls",
  "max_output_tokens",
  "include",
  // Gemini
  "contents",
  "systemInstruction",
  "toolConfig",
  "generationConfig",
];

/** Keys whose string values are provider ids, thinking signatures or encrypted reasoning. */
export const ENTROPY_EXEMPT_KEYS: ReadonlySet<string> = new Set([
  "id",
  "tool_use_id",
  "call_id",
  "signature",
  "thoughtSignature",
  "thought_signature",
  "encrypted_content",
  "previous_response_id",
]);

/** Keys whose whole string value is a credential, whatever it looks like (`{"password": "hunter2"}`). */
export const SECRET_KEY =
  /^(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|private[_-]?key|secret[_-]?access[_-]?key|authorization|x-api-key)$/i;

const SECRET_FIELD = "secret-field";

function secretField(key: string | undefined, value: string): boolean {
  return key !== undefined && value !== "" && SECRET_KEY.test(key) && !value.startsWith("[REDACTED");
}

/** A credential shape survived redaction, or redaction broke the request: nothing may be written. */
export class RedactionError extends ToolError {
  constructor(message: string) {
    super(message, 3);
    this.name = "RedactionError";
  }
}

/** How to redact: the detector table (strict + user patterns) and the extra fields to keep. */
export interface RedactOptions {
  detectors?: readonly Detector[];
  keepFields?: readonly string[];
}

/** A finding with where it was, never what it was. */
export interface Located extends Finding {
  path: string;
}

function exempt(key: string | undefined, parent: unknown): boolean {
  if (key === undefined) return false;
  if (ENTROPY_EXEMPT_KEYS.has(key)) return true;
  // Anthropic's redacted_thinking block carries its encrypted reasoning in `data`.
  return key === "data" && (parent as { type?: unknown } | null)?.type === "redacted_thinking";
}

function redactString(s: string, detectors: readonly Detector[], entropyRule: boolean): string {
  const findings = findStrict(s, detectors, entropyRule);
  if (findings.length === 0) return s;
  let out = "";
  let at = 0;
  for (const f of findings) {
    out += s.slice(at, f.start) + redactionMarker(f.detector);
    at = f.end;
  }
  return out + s.slice(at);
}

/** Redacts every string and key of a JSON value (a new value; the input is untouched). */
export function redactValue(
  value: unknown,
  detectors: readonly Detector[],
  key?: string,
  parent?: unknown,
): unknown {
  if (typeof value === "string")
    return secretField(key, value)
      ? redactionMarker(SECRET_FIELD)
      : redactString(value, detectors, !exempt(key, parent));
  if (Array.isArray(value)) return value.map((v) => redactValue(v, detectors, undefined, value));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[redactString(k, detectors, true)] = redactValue(v, detectors, k, value);
    return out;
  }
  return value;
}

/** Every finding left in a JSON value, with its JSON path (the re-scan after redaction). */
export function scanValue(
  value: unknown,
  detectors: readonly Detector[],
  path = "$",
  key?: string,
  parent?: unknown,
): Located[] {
  if (typeof value === "string") {
    if (secretField(key, value)) return [{ detector: SECRET_FIELD, start: 0, end: value.length, path }];
    return findStrict(value, detectors, !exempt(key, parent)).map((f) => ({ ...f, path }));
  }
  if (Array.isArray(value))
    return value.flatMap((v, i) => scanValue(v, detectors, `${path}[${i}]`, undefined, value));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => [
      ...findStrict(k, detectors, true).map((f) => ({ ...f, path: `${path} (key)` })),
      ...scanValue(v, detectors, `${path}.${k}`, k, value),
    ]);
  return [];
}

/** The request with only allowlisted top-level fields, every string redacted. */
export function redactRequest(req: Record<string, unknown>, o: RedactOptions = {}): Record<string, unknown> {
  const keep = new Set([...KEEP_FIELDS, ...(o.keepFields ?? [])]);
  const detectors = o.detectors ?? STRICT_DETECTORS;
  const kept = Object.fromEntries(Object.entries(req).filter(([k]) => keep.has(k)));
  return redactValue(kept, detectors) as Record<string, unknown>;
}

/** Throws RedactionError naming the detector and path (never the text) if anything survives. */
export function assertClean(value: unknown, detectors: readonly Detector[], what: string): void {
  const left = scanValue(value, detectors);
  if (left.length > 0) {
    const f = left[0] as Located;
    throw new RedactionError(`Cannot write ${what}: a ${f.detector} shape survived redaction at ${f.path}`);
  }
}

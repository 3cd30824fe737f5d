// Fail-closed redaction of a model request (and of the calls expected at its step) before it becomes
// a step case: only allowlisted top-level fields survive, every string (and object key) is scanned
// with the strict detectors plus the user's patterns, and the result is scanned again from scratch.
// Any survivor is a RedactionError: the harvest then writes nothing. Secret-named fields lose their
// value at any depth (JSON held in strings included); strings at the provider-id, signature and
// encrypted-reasoning paths (lib/redact/fields.ts) are exempt from the entropy rule only, so they replay.

import { pathOf, RedactionError, SECRET_FIELD, secretValue, type Under, walkFindings } from "./clean.ts";
import { childAt, embeddedJson, exemptAt, isSecretName, itemAt, pairedSecret, type Where } from "./fields.ts";
import type { Detector, Finding } from "./index.ts";
import { redactionMarker, redactWith } from "./index.ts";
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

export { ENTROPY_EXEMPT_KEYS, isSecretName } from "./fields.ts";
export { RedactionError };

/** How to redact: the detector table (strict + user patterns) and the extra fields to keep. */
export interface RedactOptions {
  detectors?: readonly Detector[];
  keepFields?: readonly string[];
}

/** A finding with where it was, never what it was. */
export interface Located extends Finding {
  path: string;
}

function redactString(s: string, detectors: readonly Detector[], entropyRule: boolean): string {
  return redactWith(s, (t) => findStrict(t, detectors, entropyRule)).text;
}

/**
 * Redacts every string and key of a JSON value (a new value; the input is untouched), walked from
 * `where` ("request" for a request body; "value", the default, for tool-call arguments).
 */
export function redactValue(
  value: unknown,
  detectors: readonly Detector[],
  where: Where = "value",
  under: Under = {},
): unknown {
  if (secretValue(value, under)) return redactionMarker(SECRET_FIELD);
  if (typeof value === "string") {
    let s = value;
    if (!under.exempt) {
      // JSON held in a string (Responses `arguments`, tool results): its fields are fields too.
      const inner = embeddedJson(s);
      if (inner !== undefined) {
        const red = redactValue(inner, detectors);
        const text = JSON.stringify(red);
        if (text !== JSON.stringify(inner)) s = text;
      }
    }
    return redactString(s, detectors, !under.exempt);
  }
  if (Array.isArray(value)) {
    const item = itemAt(where);
    return value.map((v) => redactValue(v, detectors, item, { secret: under.secret }));
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[redactString(k, detectors, true)] = redactValue(v, detectors, childAt(where, k), {
        secret: isSecretName(k) || pairedSecret(value, k, under.secret === true),
        exempt: exemptAt(where, k, value),
      });
    return out;
  }
  return value;
}

/** Every finding left in a JSON value, with its JSON path (the re-scan after redaction). */
export function scanValue(
  value: unknown,
  detectors: readonly Detector[],
  where: Where = "request",
): Located[] {
  const out: Located[] = [];
  walkFindings(
    value,
    detectors,
    (detector, at) => {
      out.push({ detector, start: 0, end: 0, path: pathOf(at) });
      return false;
    },
    where,
  );
  return out;
}

/** The request with only allowlisted top-level fields, every string redacted. */
export function redactRequest(req: Record<string, unknown>, o: RedactOptions = {}): Record<string, unknown> {
  const keep = new Set([...KEEP_FIELDS, ...(o.keepFields ?? [])]);
  const detectors = o.detectors ?? STRICT_DETECTORS;
  const kept = Object.fromEntries(Object.entries(req).filter(([k]) => keep.has(k)));
  return redactValue(kept, detectors, "request") as Record<string, unknown>;
}

/** Throws RedactionError naming the detector and path (never the text) if anything survives in a request. */
export function assertClean(value: unknown, detectors: readonly Detector[], what: string): void {
  const left = scanValue(value, detectors);
  if (left.length > 0) {
    const f = left[0] as Located;
    throw new RedactionError(`Cannot write ${what}: a ${f.detector} shape survived redaction at ${f.path}`);
  }
}

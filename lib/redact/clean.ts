// The re-scan after redaction: one walk with the same rules as the redaction in request.ts (keys
// before values, object entries and array items in order, secret-named fields at any depth with
// string or numeric values, JSON held in strings walked as JSON, the entropy exemption only at
// provider-id paths). A clean value (the common case) is walked once with no allocation per node;
// only a survivor's path is spelled out. Any survivor is a RedactionError: nothing may be written.
import { ToolError } from "../core/errors.ts";
import { childAt, embeddedJson, exemptAt, isSecretName, itemAt, pairedSecret, type Where } from "./fields.ts";
import type { Detector } from "./index.ts";
import { findStrict } from "./strict.ts";

/** A credential shape survived redaction, or redaction broke the request: nothing may be written. */
export class RedactionError extends ToolError {
  constructor(message: string) {
    super(message, 3);
    this.name = "RedactionError";
  }
}

/** The detector name of a secret-named field's value. */
export const SECRET_FIELD = "secret-field";

/** How the parent sees a value: under a secret-named key, or at an entropy-exempt provider-id path. */
export interface Under {
  secret?: boolean;
  exempt?: boolean;
}

/** True for a value that a secret-named field must not keep (already-redacted markers are kept). */
export function secretValue(value: unknown, under: Under): boolean {
  if (!under.secret) return false;
  if (typeof value === "number") return true;
  return typeof value === "string" && value !== "" && !value.startsWith("[REDACTED");
}

const KEY = Symbol("key");
const JSON_TEXT = Symbol("json");
type Step = string | number | typeof KEY | typeof JSON_TEXT;
/** Called with each finding's detector and the steps to it; returns true to stop the walk. */
type Visit = (detector: string, at: readonly Step[]) => boolean;

/** Walks `value` as redaction does, calling `visit` per finding; true when a visit stopped it. */
export function walkFindings(
  value: unknown,
  detectors: readonly Detector[],
  visit: Visit,
  where: Where = "value",
  under: Under = {},
  at: Step[] = [],
): boolean {
  if (secretValue(value, under)) return visit(SECRET_FIELD, at);
  if (typeof value === "string") {
    if (!under.exempt) {
      const inner = embeddedJson(value);
      if (inner !== undefined) {
        at.push(JSON_TEXT);
        if (walkFindings(inner, detectors, visit, "value", {}, at)) return true;
        at.pop();
      }
    }
    for (const f of findStrict(value, detectors, !under.exempt)) if (visit(f.detector, at)) return true;
    return false;
  }
  if (Array.isArray(value)) {
    const item = itemAt(where);
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      if (walkFindings(value[i], detectors, visit, item, { secret: under.secret }, at)) return true;
      at.pop();
    }
    return false;
  }
  if (typeof value === "object" && value !== null) {
    for (const k of Object.keys(value)) {
      at.push(KEY);
      for (const f of findStrict(k, detectors, true)) if (visit(f.detector, at)) return true;
      at.pop();
      at.push(k);
      const u = {
        secret: isSecretName(k) || pairedSecret(value, k, under.secret === true),
        exempt: exemptAt(where, k, value),
      };
      if (walkFindings((value as Record<string, unknown>)[k], detectors, visit, childAt(where, k), u, at))
        return true;
      at.pop();
    }
  }
  return false;
}

/** `$.messages[0].content` for steps; a key finding ends in ` (key)`, JSON inside a string in ` (json)`. */
export function pathOf(at: readonly Step[]): string {
  let path = "$";
  for (const s of at)
    path += typeof s === "number" ? `[${s}]` : s === KEY ? " (key)" : s === JSON_TEXT ? " (json)" : `.${s}`;
  return path;
}

/**
 * Throws RedactionError naming the detector and path (never the text) if anything survives in
 * `value`, walked from `where` ("case": a harvested case's scanned parts; "request"; "value").
 */
export function assertCleanFast(
  value: unknown,
  detectors: readonly Detector[],
  what: string,
  where: Where = "case",
): void {
  let found: { detector: string; path: string } | undefined;
  walkFindings(
    value,
    detectors,
    (detector, at) => {
      found = { detector, path: pathOf(at) };
      return true;
    },
    where,
  );
  if (found)
    throw new RedactionError(
      `Cannot write ${what}: a ${found.detector} shape survived redaction at ${found.path}`,
    );
}

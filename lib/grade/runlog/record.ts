// One `.gitissue/runs.jsonl` record: gi-runlog.py's normalize_record, check for check and in the
// same order (the first violation is the one reported, with the original's message), then the
// canonical key order and the compact line. It does not read or write the log (see log.ts).
import { pyJsonDumps } from "../../compat/py/json.ts";
import { pySorted, strip } from "../../compat/py/text.ts";
import { isPyDict, isPyInt } from "../../compat/py/value.ts";

/** Canonical key order; also the set of allowed keys. */
export const KEY_ORDER = [
  "ts",
  "event_id",
  "issue",
  "mode",
  "skill",
  "complexity",
  "profile",
  "agent_overrides",
  "qa_cycles",
  "ceiling",
  "breach_reason",
  "outcome",
  "pr",
  "duration_s",
  "phases",
  "skipped_reason",
] as const;
const REQUIRED = ["ts", "issue", "mode", "skill", "outcome", "pr"];
const OPTIONAL = KEY_ORDER.filter((k) => !REQUIRED.includes(k));
const INT_KEYS = ["issue", "qa_cycles", "ceiling", "duration_s"];
const STR_KEYS = [
  "ts",
  "event_id",
  "mode",
  "skill",
  "outcome",
  "profile",
  "agent_overrides",
  "complexity",
  "skipped_reason",
  "breach_reason",
];

/** Terminal outcomes per writing skill. */
export const OUTCOMES_BY_SKILL: Record<string, readonly string[]> = {
  "issue-resolver": ["success", "already_resolved", "failed"],
  "auto-pilot": ["merged", "left_open", "partial_followup", "blocked_by_dependency", "failed", "skipped"],
};
export const PROFILES = ["light", "full"] as const;
export const AGENT_OVERRIDES = ["applied", "partial", "fallback"] as const;
/** The researcher's five-value complexity collapsed to the log's three. */
export const COMPLEXITY_COLLAPSE: Record<string, string> = {
  trivial: "low",
  low: "low",
  medium: "medium",
  high: "high",
  complex: "high",
};
export const MAX_PHASES = 16;

// Python's `re.match(...$)` also accepts one trailing "\n", and its `\d` is any Unicode digit.
const TS_RE = /^\p{Nd}{4}-\p{Nd}{2}-\p{Nd}{2}T\p{Nd}{2}:\p{Nd}{2}:\p{Nd}{2}Z\n?$/u;
const EVENT_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\n?$/;
const PHASE_NAME_RE = /^[a-z][a-z0-9_-]{0,31}\n?$/;

/** Policy QA-cycle ceiling: profile light → 1, complexity high → 5, else 2. */
export function policyCeiling(profile: unknown, complexity: unknown): number {
  if (profile === "light") return 1;
  return complexity === "high" ? 5 : 2;
}

/** UTC `YYYY-MM-DDTHH:MM:SSZ`. */
export function utcStamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

const gt = (a: number | bigint, b: number | bigint) =>
  typeof a === typeof b ? a > b : BigInt(a) > BigInt(b);

export type NormalizeResult =
  | { ok: true; record: Record<string, unknown>; line: string }
  | { ok: false; errors: string[] };

class RecordError extends Error {}

/**
 * Validates one submitted record and returns its canonical form and compact line, or the
 * original's error message. Values parsed by parsePyJson keep Python's float/int distinction;
 * plain JS numbers count as ints when integral (JSON.parse cannot tell `1.0` from `1`).
 */
export function normalizeRecord(raw: unknown, opts: { now?: Date } = {}): NormalizeResult {
  try {
    const record = normalize(raw, opts.now ?? new Date());
    return { ok: true, record, line: pyJsonDumps(record, { ensureAscii: false, separators: [",", ":"] }) };
  } catch (error) {
    if (error instanceof RecordError) return { ok: false, errors: [error.message] };
    throw error;
  }
}

function fail(message: string): never {
  throw new RecordError(message);
}

function normalize(input: unknown, now: Date): Record<string, unknown> {
  if (!isPyDict(input)) fail("stdin must be a single JSON object");
  // A JS caller's `undefined` is an absent key, as it would be after JSON.stringify.
  // Null-prototype copies: a "__proto__" key stays an ordinary (unknown) key.
  const raw: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(input)) if (input[k] !== undefined) raw[k] = input[k];
  const has = (k: string) => Object.hasOwn(raw, k);
  const unknown = pySorted(Object.keys(raw).filter((k) => !(KEY_ORDER as readonly string[]).includes(k)));
  if (unknown.length) fail(`unknown key(s): ${unknown.join(", ")}`);
  const missing = REQUIRED.filter((k) => k !== "ts" && !has(k));
  if (missing.length) fail(`missing required key(s): ${missing.join(", ")}`);
  const nulled = REQUIRED.filter((k) => k !== "pr" && k !== "ts" && has(k) && raw[k] === null);
  if (nulled.length) fail(`null is not a valid value for: ${nulled.join(", ")} (only \`pr\` is nullable)`);
  for (const k of INT_KEYS) if (has(k) && raw[k] != null && !isPyInt(raw[k])) fail(`${k} must be an integer`);
  for (const k of STR_KEYS)
    if (has(k) && raw[k] != null && typeof raw[k] !== "string") fail(`${k} must be a string`);
  if (raw.pr !== null && !isPyInt(raw.pr)) fail("pr must be an integer or null");

  const skill = raw.skill as string;
  const allowed = Object.hasOwn(OUTCOMES_BY_SKILL, skill) ? OUTCOMES_BY_SKILL[skill] : undefined;
  if (!allowed) fail(`skill must be one of ${pySorted(Object.keys(OUTCOMES_BY_SKILL)).join(", ")}`);
  if (!allowed.includes(raw.outcome as string)) {
    fail(
      `outcome '${raw.outcome}' is not valid for skill '${skill}' (allowed: ${pySorted(allowed).join(", ")})`,
    );
  }
  if (!raw.mode) fail("mode must be a non-empty string");

  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(raw)) out[k] = raw[k];
  const ts = out.ts;
  if (ts == null) out.ts = utcStamp(now);
  else if (!TS_RE.test(ts as string))
    fail(`ts '${ts}' is not an ISO-8601 UTC instant (YYYY-MM-DDTHH:MM:SSZ)`);

  const complexity = out.complexity as string | null | undefined;
  if (complexity != null) {
    if (!Object.hasOwn(COMPLEXITY_COLLAPSE, complexity)) {
      fail(
        `complexity '${complexity}' is not one of ${pySorted(Object.keys(COMPLEXITY_COLLAPSE)).join(", ")}`,
      );
    }
    out.complexity = COMPLEXITY_COLLAPSE[complexity];
  }
  if (out.event_id != null && !EVENT_ID_RE.test(out.event_id as string)) {
    fail("event_id must be 1-128 safe identifier characters ([A-Za-z0-9._:-])");
  }
  const profile = out.profile as string | null | undefined;
  if (profile != null && !(PROFILES as readonly string[]).includes(profile)) {
    fail(`profile '${profile}' is not one of ${pySorted(PROFILES).join(", ")}`);
  }
  const overrides = out.agent_overrides as string | null | undefined;
  if (overrides != null && !(AGENT_OVERRIDES as readonly string[]).includes(overrides)) {
    fail(`agent_overrides '${overrides}' is not one of ${pySorted(AGENT_OVERRIDES).join(", ")}`);
  }
  if (out.phases != null) out.phases = normalizePhases(out.phases);

  for (const k of OPTIONAL) if (Object.hasOwn(out, k) && out[k] == null) delete out[k];

  const qa = out.qa_cycles as number | bigint | undefined;
  if (qa !== undefined && qa < 0) fail("qa_cycles must be a non-negative integer");
  let ceiling = out.ceiling as number | bigint | undefined;
  if (ceiling !== undefined) {
    if (ceiling < 1) fail("ceiling must be a positive integer");
  } else {
    ceiling = policyCeiling(out.profile, out.complexity);
  }
  if (qa !== undefined && gt(qa, ceiling)) {
    const reason = out.breach_reason;
    if (typeof reason !== "string" || !strip(reason)) {
      fail(`qa_cycles ${qa} exceeds class ceiling ${ceiling}; breach_reason is required`);
    }
  }
  const record: Record<string, unknown> = {};
  for (const k of KEY_ORDER) if (Object.hasOwn(out, k)) record[k] = out[k];
  return record;
}

function normalizePhases(phases: unknown): Record<string, unknown> | null {
  if (!isPyDict(phases)) fail("phases must be an object of {phase name: seconds}");
  const names = Object.keys(phases);
  if (names.length > MAX_PHASES) fail(`phases carries ${names.length} entries (max ${MAX_PHASES})`);
  const copy: Record<string, unknown> = {};
  for (const name of names) {
    if (!PHASE_NAME_RE.test(name)) {
      fail(`phase name '${name}' must be 1-32 chars of [a-z0-9_-], starting with a letter`);
    }
    const seconds = phases[name];
    if (!isPyInt(seconds) || seconds < 0) fail(`phases.${name} must be a non-negative integer`);
    copy[name] = seconds;
  }
  return names.length ? copy : null;
}

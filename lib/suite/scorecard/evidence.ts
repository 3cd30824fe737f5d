// What a trial is evidence of. A trial is *scored* when its pass or fail is the verdict of the task's
// check and graders on what the agent did. It is *unscored*, of one kind, when: `infra` (a failure
// outside the agent: left out of every rate), `setup` (the task's setup command failed, so the agent
// never ran), `grader` (a grader gave no verdict, or the check did not finish: `check: ...`) or
// `agent` (the agent did not run: its command could not be executed or found, `agent exit 126` or
// `127`; its phase could not start it, `agent: ...` other than a timeout; or it wrote nothing its
// driver could read, `parse: ...`). An agent that ran and failed (another exit code, a timeout, the
// harness's own failure such as its turn or budget limit) is a scored fail: that is its outcome. An
// unscored trial still counts as the fail it is in every rate (the original's semantics), so its
// errors count against the variant that produced them; but it is no evidence that the variant works,
// so a variant most of whose trials are unscored cannot ship (MIN_SCORED_SHARE, gate.ts) and a
// comparison whose control is mostly unscored has no verdict (verdict.ts). Also each trial's failure
// in one line, for the progress line and the reasons lists, and the metrics a variant's harness never
// reported (shown as not measured, never as a 0).
import { mdCell } from "../../report/markdown.ts";
import { METRICS, type Trial, type VariantScore } from "./schema.ts";

/** Why a trial is unscored, most basic first. */
export const UNSCORED_KINDS = ["infra", "setup", "grader", "agent"] as const;
export type UnscoredKind = (typeof UNSCORED_KINDS)[number];

/**
 * The least share of a variant's trials that must be scored for it to ship (and, for the control,
 * for a comparison to have a verdict): a half. Below it the run mostly measured something else.
 */
export const MIN_SCORED_SHARE = 0.5;

/** Why `t` is unscored, or undefined when it is scored. */
export function unscoredKind(t: Trial): UnscoredKind | undefined {
  if (t.infra !== undefined) return "infra";
  if (t.setupFailed === true) return "setup";
  const error = t.error ?? "";
  if ((t.graderError ?? "") !== "" || error.startsWith("check:")) return "grader";
  if (/^agent exit 12[67]:/.test(error) || error.startsWith("parse:")) return "agent";
  if (error.startsWith("agent: ") && !error.startsWith("agent: timed out")) return "agent";
  return undefined;
}

/** A variant's trials: how many, how many scored, the unscored by kind. */
export interface Evidence {
  trials: number;
  scored: number;
  unscored: Record<UnscoredKind, number>;
}

/** The evidence of one variant's trials. */
export function evidenceOf(trials: readonly Trial[]): Evidence {
  const unscored = { infra: 0, setup: 0, grader: 0, agent: 0 };
  for (const t of trials) {
    const kind = unscoredKind(t);
    if (kind !== undefined) unscored[kind]++;
  }
  const missing = unscored.infra + unscored.setup + unscored.grader + unscored.agent;
  return { trials: trials.length, scored: trials.length - missing, unscored };
}

/** Whether too few of the trials were scored (under MIN_SCORED_SHARE; no trials at all is too few). */
export function tooFewScored(e: Evidence): boolean {
  return e.trials === 0 || e.scored < MIN_SCORED_SHARE * e.trials;
}

const KIND_WORDS: Record<UnscoredKind, string> = {
  infra: "infrastructure failures",
  setup: "setup failures",
  grader: "grader errors",
  agent: "agent errors",
};

/** `only 0 of 14 trials of "cand" were scored (12 agent errors, 2 grader errors)`. */
export function scoredLine(variant: string, e: Evidence): string {
  const kinds = UNSCORED_KINDS.filter((k) => e.unscored[k] > 0).map(
    (k) => `${e.unscored[k]} ${KIND_WORDS[k]}`,
  );
  return `only ${e.scored} of ${e.trials} trials of ${variant} were scored${kinds.length ? ` (${kinds.join(", ")})` : ""}`;
}

/** The longest failure reason, in characters. */
const MAX_REASON = 120;

/** Text on one line: whitespace runs (newlines too) as one space, trimmed. */
function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/**
 * A failure's words on one line of at most MAX_REASON characters: a long one keeps its kind (the text
 * before the first `: `) and its end, where the cause usually is (`agent exit 127: ... not found`).
 */
export function shortReason(text: string): string {
  const s = oneLine(text);
  if (s.length <= MAX_REASON) return s;
  const colon = s.indexOf(": ");
  const head = colon > 0 && colon < 40 ? s.slice(0, colon + 2) : "";
  const room = MAX_REASON - head.length - 4;
  return `${head}... ${s.slice(-room).trimStart()}`;
}

/** Why `t` did not pass, in one line; undefined when it passed without an error. */
export function failureReason(t: Trial): string | undefined {
  // Stopped by a signal: what broke as the run's containers went away is no reason of the trial's.
  if (t.infra === "cancelled") return "cancelled (the run was stopped; --resume runs it again)";
  if (t.infra !== undefined) return shortReason(`infra ${t.infra}: ${t.error ?? ""}`);
  if ((t.graderError ?? "") !== "") return shortReason(`grader error: ${t.graderError}`);
  if ((t.error ?? "") !== "") return shortReason(t.error!);
  if (t.tampered?.length) return "tampered with the verifier";
  return t.pass ? undefined : "check failed";
}

/** A failure reason and how many trials gave it. */
export interface ReasonCount {
  reason: string;
  count: number;
}

/** The `top` most common failure reasons of the trials, most first (ties by reason). */
export function failureReasons(trials: readonly Trial[], top = 5): ReasonCount[] {
  const counts = new Map<string, number>();
  for (const t of trials) {
    const r = failureReason(t);
    if (r !== undefined) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0))
    .slice(0, top);
}

/** The metrics none of `trials` reported (each lists it as unreported); [] when any trial has none. */
export function unreportedMetrics(trials: readonly Trial[]): (typeof METRICS)[number][] {
  if (trials.length === 0) return [];
  return METRICS.filter((m) => trials.every((t) => t.unreported?.includes(m)));
}

/** A variant's `scored`, `failureReasons` and `unreported` (the last two only when not empty). */
export function evidenceFields(
  all: readonly Trial[],
): Pick<VariantScore, "scored" | "failureReasons" | "unreported"> {
  const reasons = failureReasons(all);
  const unreported = unreportedMetrics(all.filter((t) => t.infra === undefined));
  return {
    scored: evidenceOf(all).scored,
    ...(reasons.length > 0 ? { failureReasons: reasons } : {}),
    ...(unreported.length > 0 ? { unreported } : {}),
  };
}

/** Our section at the end of the Markdown: each variant's most common failure reasons ("" when none failed). */
export function failureReasonsMarkdown(sc: { variants: readonly VariantScore[] }): string {
  const rows = sc.variants.flatMap((v) =>
    (v.failureReasons ?? []).map((r) => `| ${mdCell(v.name)} | ${mdCell(r.reason)} | ${r.count} |\n`),
  );
  if (rows.length === 0) return "";
  return `\n## Why trials did not pass (most common first)\n\n| Variant | Reason | Trials |\n|---|---|---|\n${rows.join("")}`;
}

/** How every output shows a figure nobody measured: never as $0.0000, 0 or NaN. */
export const NOT_MEASURED = "—";

/** Whether a variant's harness reported `metric` on any of its scored trials. */
export function measured(v: Pick<VariantScore, "unreported">, metric: (typeof METRICS)[number]): boolean {
  return !v.unreported?.includes(metric);
}

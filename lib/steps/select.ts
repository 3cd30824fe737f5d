// Which steps become cases (the spec's `--select` table). Pure: it sees the steps of every session
// already ordered, with production's recovered action, both arms' actions and the offered tools, and
// answers each step's expected action and reasons. `sample` is seeded and drawn per depth bucket.
import { Rng, shuffle } from "../stats/index.ts";
import type { OfferedTool } from "../wire/index.ts";
import { callsKey, isValidAction, type RawCall, toolsKey } from "./action.ts";
import type { SelectReason } from "./case.ts";
import { depthBucket } from "./session.ts";

/** One step as selection sees it. */
export interface StepView {
  pairId: string;
  depth: number;
  tools: readonly OfferedTool[];
  /** Production's action from the session's next request, when it could be recovered. */
  production?: readonly RawCall[];
  control: readonly RawCall[];
  candidate: readonly RawCall[];
  /** control.score - candidate.score from the judge history, when the pair was judged. */
  judgeLoss?: number;
}

/** How to select. */
export interface SelectOptions {
  reasons: readonly SelectReason[];
  perDepth: number;
  judgeLossThreshold: number;
  seed: number;
}

/** A step's verdict: skipped (its expected action is invalid) or its expected action and reasons. */
export interface StepChoice {
  view: StepView;
  expected: readonly RawCall[];
  expectedFrom: "production" | "control";
  /** The control replay, when production's action was recovered, differs and the control is valid. */
  alternative?: readonly RawCall[];
  reasons: SelectReason[];
}

/** Expected action and the rule-based reasons of one step; undefined when the step must be skipped. */
export function judgeStep(view: StepView, o: SelectOptions): StepChoice | undefined {
  const expected = view.production ?? view.control;
  if (!isValidAction(expected, view.tools)) return undefined;
  const want = new Set(o.reasons);
  const reasons: SelectReason[] = [];
  const cand = toolsKey(view.candidate);
  if (
    want.has("diverged") &&
    (cand !== toolsKey(view.control) || (view.production !== undefined && cand !== toolsKey(view.production)))
  )
    reasons.push("diverged");
  if (want.has("invalid-call") && !isValidAction(view.candidate, view.tools)) reasons.push("invalid-call");
  if (
    want.has("premature-stop") &&
    view.production !== undefined &&
    view.production.length > 0 &&
    view.candidate.length === 0
  )
    reasons.push("premature-stop");
  if (want.has("judge-loss") && view.judgeLoss !== undefined && view.judgeLoss > o.judgeLossThreshold)
    reasons.push("judge-loss");
  const alternative =
    view.production !== undefined &&
    callsKey(view.control) !== callsKey(view.production) &&
    isValidAction(view.control, view.tools)
      ? view.control
      : undefined;
  return {
    view,
    expected,
    expectedFrom: view.production !== undefined ? "production" : "control",
    ...(alternative ? { alternative } : {}),
    reasons,
  };
}

/**
 * The indices `sample` picks among `n` steps known by depth and pair id: `perDepth` seeded picks per
 * depth bucket, each bucket sorted by id first (so input order is moot). Only numbers are held per
 * step, so a harvest can draw over steps whose choices it keeps on disk.
 */
export function samplePicks(
  n: number,
  depthOf: (i: number) => number,
  idOf: (i: number) => string,
  perDepth: number,
  seed: number,
): number[] {
  const buckets = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const b = depthBucket(depthOf(i));
    const list = buckets.get(b);
    if (list) list.push(i);
    else buckets.set(b, [i]);
  }
  const rng = new Rng(seed);
  const picks: number[] = [];
  for (const b of ["0", "1-4", "5-19", "20+"]) {
    const list = (buckets.get(b) ?? []).sort((x, y) => {
      const a = idOf(x);
      const c = idOf(y);
      return a < c ? -1 : a > c ? 1 : 0;
    });
    picks.push(...shuffle(list, rng).slice(0, perDepth));
  }
  return picks;
}

/** Adds "sample" to `perDepth` seeded picks per depth bucket (ids sorted first, so input order is moot). */
export function drawSample(choices: readonly StepChoice[], perDepth: number, seed: number): void {
  const at = (i: number) => choices[i] as StepChoice;
  for (const i of samplePicks(
    choices.length,
    (i) => at(i).view.depth,
    (i) => at(i).view.pairId,
    perDepth,
    seed,
  ))
    at(i).reasons.push("sample");
}

/** Every step's choice; those with at least one reason are the cases, in input order. */
export function selectSteps(
  views: readonly StepView[],
  o: SelectOptions,
): { cases: StepChoice[]; skipped: number } {
  const choices: StepChoice[] = [];
  let skipped = 0;
  for (const v of views) {
    const c = judgeStep(v, o);
    if (c) choices.push(c);
    else skipped++;
  }
  if (o.reasons.includes("sample")) drawSample(choices, o.perDepth, o.seed);
  return { cases: choices.filter((c) => c.reasons.length > 0), skipped };
}

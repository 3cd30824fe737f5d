// The release gate: the suite's `gate:` key (the original halo eval's keys, unchanged) and the
// ship / hold / block decision of one candidate against the control. Pass-rate margins are absolute
// (0.05 = 5 points); cost, tokens, wall and tool-call limits are relative increases over the
// baseline mean (0.2 = +20%) and gate only when set. The pass rate is decided by exact tests on the
// paired per-task differences (the verdict's own, scorecard/verdict.ts), never by an interval that
// cannot measure its own uncertainty; no evidence (scorecard/evidence.ts) is never a ship, and grader
// errors, like every unscored trial, count against the variant whose trial they are: they never turn
// a block into a hold.
import { z } from "zod";
import { goFixed } from "../compat/go.ts";
import { pp, ppBare } from "../report/format.ts";
import { bootstrapMean, signFlipTest } from "../stats/index.ts";
import { evidenceOf, scoredLine, tooFewScored, unreportedMetrics } from "./scorecard/evidence.ts";
import { withHeadline } from "./scorecard/headline.ts";
import type { GateResult, MetricDelta, Scorecard, TaskDiff, Trial } from "./scorecard/schema.ts";
import { ALPHA, MIN_VERDICT_TASKS, pText, type TestInfo } from "./scorecard/verdict.ts";

const share = z.number().min(0);

/** The `gate:` key of a suite.yaml. */
export const GateFile = z
  .object({
    max_pass_drop: share
      .optional()
      .describe(
        "non-inferiority margin on the paired pass rate: ship needs the interval's low end >= -this (default 0.05)",
      ),
    max_cost_increase: share
      .optional()
      .describe("relative cost increase allowed (0.25 = +25%); unset: not gated"),
    max_tokens_increase: share.optional(),
    max_wall_increase: share.optional(),
    max_tool_calls_increase: share.optional(),
    task_regression: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("per-task pass-rate drop that marks a task regressed (default 0.5)"),
    max_regressed_tasks: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("more regressed tasks than this blocks (default 0)"),
    min_tasks: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("fewest non-flaky tasks a ship or block needs (default 1)"),
  })
  .strict();
export type GateFile = z.infer<typeof GateFile>;

/** The gate with defaults applied, as the original's (0 in task_regression/min_tasks means the default). */
export interface Thresholds {
  maxPassDrop: number;
  maxCostIncrease?: number;
  maxTokensIncrease?: number;
  maxWallIncrease?: number;
  maxToolCallsIncrease?: number;
  taskRegression: number;
  maxRegressedTasks: number;
  minTasks: number;
}

/** Defaults as the original: 5-point margin, a task regressed at a 50-point drop, none allowed, 1 task. */
export function thresholdsOf(gate: GateFile | undefined): Thresholds {
  const g = gate ?? {};
  const t: Thresholds = {
    maxPassDrop: g.max_pass_drop ?? 0.05,
    taskRegression: g.task_regression || 0.5,
    maxRegressedTasks: g.max_regressed_tasks ?? 0,
    minTasks: g.min_tasks || 1,
  };
  if (g.max_cost_increase !== undefined) t.maxCostIncrease = g.max_cost_increase;
  if (g.max_tokens_increase !== undefined) t.maxTokensIncrease = g.max_tokens_increase;
  if (g.max_wall_increase !== undefined) t.maxWallIncrease = g.max_wall_increase;
  if (g.max_tool_calls_increase !== undefined) t.maxToolCallsIncrease = g.max_tool_calls_increase;
  return t;
}

/** Gate verdicts, worst last. */
export const GATE_VERDICTS = ["ship", "hold", "block"] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** The worse of two gate verdicts. */
export function worse(a: GateVerdict, b: GateVerdict): GateVerdict {
  return GATE_VERDICTS.indexOf(b) > GATE_VERDICTS.indexOf(a) ? b : a;
}

/** The gate's metrics (keys of a comparison's `deltas`), in the original's order. */
export const GATE_METRICS = ["pass_rate", "cost_usd", "tokens", "wall_ms", "tool_calls"] as const;
export type GateMetric = (typeof GATE_METRICS)[number];

/** One arm's scored trials on one task, summed. */
interface Arm {
  n: number;
  passes: number;
  sums: Record<GateMetric, number>;
}

const VALUE: Record<GateMetric, (t: Trial) => number> = {
  pass_rate: (t) => (t.pass ? 1 : 0),
  cost_usd: (t) => t.costUSD,
  tokens: (t) => t.tokens,
  wall_ms: (t) => t.wallMs,
  tool_calls: (t) => t.toolCalls ?? 0,
};

/** Scored trials (infrastructure failures left out, as from every rate) by task. */
function arms(trials: readonly Trial[]): Map<string, Arm> {
  const out = new Map<string, Arm>();
  for (const t of trials) {
    if (t.infra !== undefined) continue;
    let a = out.get(t.task);
    if (!a) {
      a = {
        n: 0,
        passes: 0,
        sums: { pass_rate: 0, cost_usd: 0, tokens: 0, wall_ms: 0, tool_calls: 0 },
      };
      out.set(t.task, a);
    }
    a.n++;
    if (t.pass) a.passes++;
    for (const m of GATE_METRICS) a.sums[m] += VALUE[m](t);
  }
  return out;
}

const mean = (a: Arm, m: GateMetric) => a.sums[m] / a.n;
const pct0 = (x: number) => goFixed(100 * x, 0, true);

/** The trial metric a harness may leave unreported behind a gate metric (wall time is always measured). */
const REPORTED: Partial<Record<GateMetric, "cost" | "tokens" | "toolCalls">> = {
  cost_usd: "cost",
  tokens: "tokens",
  tool_calls: "toolCalls",
};

/** The limits the gate checks besides the pass rate, metric by metric. */
const LIMITS: [GateMetric, keyof Thresholds][] = [
  ["cost_usd", "maxCostIncrease"],
  ["tokens", "maxTokensIncrease"],
  ["wall_ms", "maxWallIncrease"],
  ["tool_calls", "maxToolCallsIncrease"],
];

/** Who the gate compares (for its reasons) and, for a run that stopped when decided, its sequence. */
export interface GateContext {
  control?: string;
  candidate?: string;
  /** The comparison's confidence sequence (scorecard/sequential.ts): it replaces the exact tests. */
  sequence?: TestInfo;
}

/**
 * The gate of `candidate` against `control` over the tasks both ran: flaky tasks (the control both
 * passed and failed) are named and left out; a task whose pass rate dropped by task_regression or
 * more is regressed. On the paired per-task differences of the rest, the exact sign-flip test decides
 * (the bootstrap interval is shown beside it): block when the pass rate is significantly worse
 * (two-sided, the comparison's own verdict `worse`), ship only when non-inferiority is shown (the
 * one-sided test of "the mean drops by max_pass_drop or more" rejected at 2.5%, the level of a 95%
 * interval's low end), else hold. A run that stopped when decided uses its confidence sequence
 * instead: block when its upper bound is below 0, ship when its lower bound is above -max_pass_drop.
 * Fewer than MIN_VERDICT_TASKS non-flaky tasks hold: neither test can reach its level on fewer.
 * A limit blocks when its whole interval is past it, holds when it straddles it. Unscored trials
 * (scorecard/evidence.ts: grader errors among them) count as fails of the variant that produced them
 * and never lift a verdict: a candidate most of whose trials are unscored while the control's are
 * not is blocked; an arm mostly unscored otherwise holds a ship. The reasons that decided the
 * verdict come first.
 */
export function gateOf(
  control: readonly Trial[],
  candidate: readonly Trial[],
  th: Thresholds,
  seed: number,
  who: GateContext = {},
): { gate: GateResult; deltas: Record<string, MetricDelta> } {
  const base = arms(control);
  const cand = arms(candidate);
  const names = [...base.keys()].filter((t) => cand.has(t)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const reasons = new Reasons();
  const flaky: TaskDiff[] = [];
  const regressed: TaskDiff[] = [];
  const tasks: TaskDiff[] = [];
  const gated: string[] = [];
  for (const task of names) {
    const b = base.get(task)!;
    const c = cand.get(task)!;
    const d: TaskDiff = {
      task,
      baseline: mean(b, "pass_rate"),
      candidate: mean(c, "pass_rate"),
      status: "same",
    };
    if (b.n >= 2 && b.passes > 0 && b.passes < b.n) {
      d.status = "flaky";
      d.reason = `baseline passed ${b.passes}/${b.n} trials`;
      flaky.push(d);
    } else if (d.baseline - d.candidate >= th.taskRegression) {
      d.status = "regressed";
      regressed.push(d);
    } else if (d.candidate > d.baseline) d.status = "improved";
    if (d.status !== "flaky") gated.push(task);
    tasks.push(d);
  }
  const lists = {
    ...(flaky.length ? { flaky } : {}),
    ...(regressed.length ? { regressed } : {}),
    ...(tasks.length ? { tasks } : {}),
  };
  if (gated.length === 0 || gated.length < th.minTasks) {
    reasons.add(
      "hold",
      `only ${gated.length} non-flaky tasks (${flaky.length} flaky); need ${Math.max(th.minTasks, 1)}`,
    );
    evidenceRule(reasons, control, candidate, who);
    return { gate: { verdict: reasons.verdict, reasons: reasons.list(), ...lists }, deltas: {} };
  }
  const deltas = {} as Record<GateMetric, MetricDelta>;
  for (const m of GATE_METRICS) {
    const bs = gated.map((t) => mean(base.get(t)!, m));
    const diffs = gated.map((t, i) => mean(cand.get(t)!, m) - bs[i]!);
    const ci = bootstrapMean(diffs, { seed, iterations: 2000 });
    deltas[m] = {
      mean: ci.estimate,
      ciLo: ci.lo,
      ciHi: ci.hi,
      baseline: bs.reduce((x, y) => x + y / bs.length, 0),
    };
  }
  const p = deltas.pass_rate;
  const passDiffs = gated.map((t) => mean(cand.get(t)!, "pass_rate") - mean(base.get(t)!, "pass_rate"));
  passRateRule(reasons, p, passDiffs, th, seed, who.sequence);
  if (regressed.length > th.maxRegressedTasks)
    reasons.add("block", `${regressed.length} tasks regressed (max ${th.maxRegressedTasks})`);
  for (const [m, key] of LIMITS) {
    const limit = th[key] as number | undefined;
    if (limit === undefined) continue;
    const d = deltas[m];
    // A harness that reports no cost gives 0s: no figure to hold against a limit.
    const metric = REPORTED[m];
    const arms: [string, readonly Trial[]][] = [
      [who.control ?? "the control", control],
      [who.candidate ?? "the candidate", candidate],
    ];
    const silent = arms
      .filter(
        ([, ts]) => metric && unreportedMetrics(ts.filter((t) => t.infra === undefined)).includes(metric),
      )
      .map(([name]) => name);
    if (silent.length > 0) {
      reasons.add("ship", `${m} not gated: ${silent.join(" and ")} did not report it (not measured)`);
      continue;
    }
    if (d.baseline <= 0) {
      reasons.add("ship", `${m} not gated: baseline mean is 0 (harness does not report it)`);
      continue;
    }
    const lo = d.ciLo / d.baseline;
    const hi = d.ciHi / d.baseline;
    if (hi <= limit) continue;
    const cap = `+${goFixed(100 * limit, 0)}%`;
    if (lo > limit)
      reasons.add(
        "block",
        `${m} up ${pct0(d.mean / d.baseline)}% (CI ${pct0(lo)}% to ${pct0(hi)}%), limit ${cap}`,
      );
    else reasons.add("hold", `${m} CI upper bound ${pct0(hi)}% exceeds the ${cap} limit; inconclusive`);
  }
  evidenceRule(reasons, control, candidate, who);
  return { gate: { verdict: reasons.verdict, reasons: reasons.list(), ...lists }, deltas };
}

/** A gate's reasons, each with the verdict it asks for; the verdict is the worst asked. */
class Reasons {
  verdict: GateVerdict = "ship";
  readonly #all: { verdict: GateVerdict; text: string }[] = [];

  add(verdict: GateVerdict, text: string): void {
    this.verdict = worse(this.verdict, verdict);
    this.#all.push({ verdict, text });
  }

  /** The reasons, those asking for the verdict reached first (each group in the order added). */
  list(): string[] {
    const first = this.#all.filter((r) => r.verdict === this.verdict);
    return [...first, ...this.#all.filter((r) => r.verdict !== this.verdict)].map((r) => r.text);
  }
}

/** The pass rate's rule: significantly worse blocks, non-inferiority shown ships, else hold. */
function passRateRule(
  reasons: Reasons,
  p: MetricDelta,
  diffs: readonly number[],
  th: Thresholds,
  seed: number,
  sequence: TestInfo | undefined,
): void {
  const shown = `${pp(p.mean)} (95% CI ${ppBare(p.ciLo)} to ${ppBare(p.ciHi)})`;
  const margin = `-${goFixed(100 * th.maxPassDrop, 1)} pp margin`;
  if (sequence?.method === "confidence-sequence") {
    const cs = `confidence sequence ${ppBare(sequence.lo ?? -1)} to ${ppBare(sequence.hi ?? 1)} after ${sequence.rounds ?? 0} rounds`;
    if ((sequence.hi ?? 1) < 0) reasons.add("block", `pass rate significantly worse: ${shown}, ${cs}`);
    else if ((sequence.lo ?? -1) > -th.maxPassDrop)
      reasons.add("ship", `non-inferior on ${diffs.length} tasks: pass rate ${shown}, ${cs}`);
    else reasons.add("hold", `pass rate not shown within the ${margin}: ${shown}, ${cs}; inconclusive`);
    return;
  }
  // Below MIN_VERDICT_TASKS neither test can reach its level, whatever the data: too few to decide.
  if (diffs.length < MIN_VERDICT_TASKS) {
    reasons.add(
      "hold",
      `insufficient evidence to ship: only ${diffs.length} non-flaky tasks; a ship needs at least ${MIN_VERDICT_TASKS}`,
    );
    return;
  }
  const two = signFlipTest(diffs, { seed });
  if (two.p <= ALPHA && two.statistic < 0) {
    reasons.add("block", `pass rate significantly worse: ${shown}, exact sign-flip p = ${pText(two.p)}`);
    return;
  }
  const ni = signFlipTest(diffs, { seed, alternative: "greater", shift: -th.maxPassDrop });
  const at = `exact one-sided p = ${pText(ni.p)} at the ${margin}`;
  if (ni.p <= ALPHA / 2)
    reasons.add("ship", `non-inferior on ${diffs.length} tasks: pass rate ${shown}, ${at}`);
  else
    reasons.add(
      "hold",
      `pass rate not shown within the ${margin}: ${shown}, ${at} (needs <= 0.025); inconclusive`,
    );
}

/**
 * No evidence, no ship: an arm most of whose trials gave no scored result. The candidate's unscored
 * trials are evidence against it (blocked when the control's were scored); else the gate holds.
 * A block stands either way: unscored trials never lift a verdict.
 */
function evidenceRule(
  reasons: Reasons,
  control: readonly Trial[],
  candidate: readonly Trial[],
  who: GateContext,
): void {
  const base = evidenceOf(control);
  const cand = evidenceOf(candidate);
  const candLine = scoredLine(who.candidate ?? "the candidate", cand);
  if (tooFewScored(cand) && !tooFewScored(base)) {
    reasons.add(
      "block",
      `no evidence: ${candLine}, against ${base.scored} of ${base.trials} of ${who.control ?? "the control"}; a candidate that mostly gives no scored result is blocked`,
    );
    return;
  }
  for (const [name, e] of [
    [who.control ?? "the control", base],
    [who.candidate ?? "the candidate", cand],
  ] as const)
    if (tooFewScored(e))
      reasons.add(
        "hold",
        `no evidence: ${scoredLine(name, e)}; a ship needs at least half of each arm's trials scored`,
      );
}

/**
 * The scorecard with the gate applied: each comparison gains `deltas` and `gate`, the scorecard the
 * worst gate (its reasons prefixed `<variant>: `) and the thresholds. No comparison (one variant):
 * no gate, as the original.
 */
export function applyGate(sc: Scorecard, th: Thresholds): Scorecard {
  const comparisons = sc.comparisons ?? [];
  if (comparisons.length === 0) return sc;
  const trials = sc.trials ?? [];
  const of = (v: string) => trials.filter((t) => t.variant === v);
  let verdict: GateVerdict = "ship";
  const reasons: string[] = [];
  const gatedComparisons = comparisons.map((c) => {
    const sequence = c.test?.method === "confidence-sequence" ? c.test : undefined;
    const { gate, deltas } = gateOf(of(c.control), of(c.variant), th, sc.seed ?? 1, {
      control: c.control,
      candidate: c.variant,
      ...(sequence ? { sequence } : {}),
    });
    verdict = worse(verdict, gate.verdict);
    for (const r of gate.reasons ?? []) reasons.push(`${c.variant}: ${r}`);
    return { ...c, ...(Object.keys(deltas).length > 0 ? { deltas } : {}), gate };
  });
  return withHeadline({
    ...sc,
    comparisons: gatedComparisons,
    gate: { verdict, reasons },
    thresholds: { ...th },
  });
}

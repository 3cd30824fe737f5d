// The release gate: the suite's `gate:` key (the original halo eval's keys, unchanged) and the
// ship / hold / block decision of one candidate against the control. Pass-rate margins are absolute
// (0.05 = 5 points); cost, tokens, wall and tool-call limits are relative increases over the
// baseline mean (0.2 = +20%) and gate only when set.
import { z } from "zod";
import { goFixed } from "../compat/go.ts";
import { pp, ppBare } from "../report/format.ts";
import { bootstrapMean } from "../stats/index.ts";
import type { GateResult, MetricDelta, Scorecard, TaskDiff, Trial } from "./scorecard/schema.ts";
import { MIN_VERDICT_TASKS } from "./scorecard/verdict.ts";

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
  graderErrors: number;
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
        graderErrors: 0,
        sums: { pass_rate: 0, cost_usd: 0, tokens: 0, wall_ms: 0, tool_calls: 0 },
      };
      out.set(t.task, a);
    }
    a.n++;
    if (t.pass) a.passes++;
    if ((t.graderError ?? "") !== "") a.graderErrors++;
    for (const m of GATE_METRICS) a.sums[m] += VALUE[m](t);
  }
  return out;
}

const mean = (a: Arm, m: GateMetric) => a.sums[m] / a.n;
const pct0 = (x: number) => goFixed(100 * x, 0, true);

/** The limits the gate checks besides the pass rate, metric by metric. */
const LIMITS: [GateMetric, keyof Thresholds][] = [
  ["cost_usd", "maxCostIncrease"],
  ["tokens", "maxTokensIncrease"],
  ["wall_ms", "maxWallIncrease"],
  ["tool_calls", "maxToolCallsIncrease"],
];

/**
 * The gate of `candidate` against `control` over the tasks both ran, as the original decides it:
 * flaky tasks (the control both passed and failed) are named and left out; a task whose pass rate
 * dropped by task_regression or more is regressed; ship needs the paired pass-rate interval's low end
 * above -max_pass_drop; a limit blocks when its whole interval is past it, holds when it straddles it;
 * grader errors hold. Stricter than the original: a ship on fewer than MIN_VERDICT_TASKS non-flaky
 * tasks is a hold, so a gate never ships on too little evidence.
 */
export function gateOf(
  control: readonly Trial[],
  candidate: readonly Trial[],
  th: Thresholds,
  seed: number,
): { gate: GateResult; deltas: Record<string, MetricDelta> } {
  const base = arms(control);
  const cand = arms(candidate);
  const names = [...base.keys()].filter((t) => cand.has(t)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let verdict: GateVerdict = "ship";
  const reasons: string[] = [];
  const flaky: TaskDiff[] = [];
  const regressed: TaskDiff[] = [];
  const tasks: TaskDiff[] = [];
  const gated: string[] = [];
  let graderErrors = 0;
  for (const task of names) {
    const b = base.get(task)!;
    const c = cand.get(task)!;
    const d: TaskDiff = {
      task,
      baseline: mean(b, "pass_rate"),
      candidate: mean(c, "pass_rate"),
      status: "same",
    };
    graderErrors += b.graderErrors + c.graderErrors;
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
    reasons.push(
      `only ${gated.length} non-flaky tasks (${flaky.length} flaky); need ${Math.max(th.minTasks, 1)}`,
    );
    return { gate: { verdict: "hold", reasons, ...lists }, deltas: {} };
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
  if (p.ciLo >= -th.maxPassDrop) {
    // non-inferior on the pass rate
  } else if (p.ciHi < 0) {
    verdict = "block";
    reasons.push(
      `pass rate significantly worse: ${pp(p.mean)} (95% CI ${ppBare(p.ciLo)} to ${ppBare(p.ciHi)})`,
    );
  } else {
    verdict = "hold";
    reasons.push(
      `pass rate CI lower bound ${pp(p.ciLo)} is below the -${goFixed(100 * th.maxPassDrop, 1)} pp margin; inconclusive`,
    );
  }
  if (regressed.length > th.maxRegressedTasks) {
    verdict = worse(verdict, "block");
    reasons.push(`${regressed.length} tasks regressed (max ${th.maxRegressedTasks})`);
  }
  for (const [m, key] of LIMITS) {
    const limit = th[key] as number | undefined;
    if (limit === undefined) continue;
    const d = deltas[m];
    if (d.baseline <= 0) {
      reasons.push(`${m} not gated: baseline mean is 0 (harness does not report it)`);
      continue;
    }
    const lo = d.ciLo / d.baseline;
    const hi = d.ciHi / d.baseline;
    if (hi <= limit) continue;
    const cap = `+${goFixed(100 * limit, 0)}%`;
    if (lo > limit) {
      verdict = worse(verdict, "block");
      reasons.push(`${m} up ${pct0(d.mean / d.baseline)}% (CI ${pct0(lo)}% to ${pct0(hi)}%), limit ${cap}`);
    } else {
      verdict = worse(verdict, "hold");
      reasons.push(`${m} CI upper bound ${pct0(hi)}% exceeds the ${cap} limit; inconclusive`);
    }
  }
  if (graderErrors > 0) {
    // contaminated data proves nothing either way: neither ship nor block
    verdict = "hold";
    reasons.push(
      `${graderErrors} trials had grader errors (counted as failures); rerun before trusting the verdict`,
    );
  }
  // Too few tasks for any verdict (scorecard/verdict.ts) is too few to ship. A zero-width interval
  // is not: every gated task giving the same difference is the most agreement the data can show.
  if (verdict === "ship" && gated.length < MIN_VERDICT_TASKS) {
    verdict = "hold";
    reasons.push(
      `insufficient evidence to ship: only ${gated.length} non-flaky tasks; a ship needs at least ${MIN_VERDICT_TASKS}`,
    );
  }
  if (verdict === "ship")
    reasons.push(
      `non-inferior on ${gated.length} tasks: pass rate ${pp(p.mean)} (95% CI ${ppBare(p.ciLo)} to ${ppBare(p.ciHi)})`,
    );
  return { gate: { verdict, reasons, ...lists }, deltas };
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
    const { gate, deltas } = gateOf(of(c.control), of(c.variant), th, sc.seed ?? 1);
    verdict = worse(verdict, gate.verdict);
    for (const r of gate.reasons ?? []) reasons.push(`${c.variant}: ${r}`);
    return { ...c, ...(Object.keys(deltas).length > 0 ? { deltas } : {}), gate };
  });
  return { ...sc, comparisons: gatedComparisons, gate: { verdict, reasons }, thresholds: { ...th } };
}

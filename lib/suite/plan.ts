// `agent-eval plan --suite SUITE.yaml | --scorecard FILE`: how many tasks (and repeats) a suite's
// paired comparison needs to detect a given drop in pass rate, before spending money on a run. The
// comparison tests the mean per-task difference, so the power is a paired one (lib/stats power):
// tasks = ((z_0.975 + z_0.8) sd / drop)^2, never below MIN_VERDICT_TASKS. From a suite alone the
// per-task difference's SD is the trial noise of two arms at the expected rate, sqrt(2p(1-p)/r) with
// r repeats (task difficulty cancels in a pair; a change that helps some tasks and hurts others adds
// spread this does not see). From a past scorecard it is measured: the largest over its comparisons.
import { pyJsonDumps } from "../compat/py/json.ts";
import { UsageError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { pairedDetectable, pairedSampleSize } from "../stats/index.ts";
import { loadScorecard, MIN_VERDICT_TASKS, type Scorecard } from "./scorecard/index.ts";
import { loadSuite } from "./suite.ts";

/** The flags `agent-eval plan` gains for suites. */
export const SUITE_PLAN_ARGS = {
  suite: {
    type: "string",
    description: "a suite file: tasks and repeats needed to detect a drop (with --baseline)",
  },
  scorecard: { type: "string", description: "a past suite scorecard: the same, from its measured spread" },
  drop: {
    type: "string",
    description: "one pass-rate drop to detect (default: 0.05, 0.1, 0.2 and the gate's)",
  },
} as const;

export interface SuitePlanRow {
  repeats: number;
  sd: number;
  drop: number;
  tasks_needed: number;
}

export interface SuitePlan {
  suite: string;
  source: "suite" | "scorecard";
  tasks: number;
  repeats: number;
  baseline_rate: number;
  sd_from: string;
  alpha: 0.05;
  power: 0.8;
  min_tasks: number;
  rows: SuitePlanRow[];
  detectable_drop: number | null;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
const modelSd = (p: number, r: number) => Math.sqrt((2 * p * (1 - p)) / r);

function sampleSd(xs: readonly number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
}

/** Per comparison of `sc`, the SD of its per-task pass-rate differences (scored trials; 2+ tasks). */
function measuredSd(sc: Scorecard): { sd: number; variant: string } | undefined {
  let best: { sd: number; variant: string } | undefined;
  for (const c of sc.comparisons ?? []) {
    const rate = (v: string) => {
      const by = new Map<string, number[]>();
      for (const t of sc.trials ?? [])
        if (t.variant === v && t.infra === undefined)
          by.set(t.task, [...(by.get(t.task) ?? []), t.pass ? 1 : 0]);
      return new Map([...by].map(([k, xs]) => [k, xs.reduce((a, b) => a + b, 0) / xs.length]));
    };
    const a = rate(c.control);
    const b = rate(c.variant);
    const diffs = [...a.keys()].filter((k) => b.has(k)).map((k) => b.get(k)! - a.get(k)!);
    if (diffs.length < 2) continue;
    const sd = sampleSd(diffs);
    if (!best || sd > best.sd) best = { sd, variant: c.variant };
  }
  return best;
}

function rowsFor(repeats: number[], drops: number[], sdOf: (r: number) => number): SuitePlanRow[] {
  return repeats.flatMap((r) =>
    drops.map((drop) => ({
      repeats: r,
      sd: round(sdOf(r)),
      drop,
      tasks_needed: Math.max(MIN_VERDICT_TASKS, sdOf(r) === 0 ? 1 : pairedSampleSize(sdOf(r), drop)),
    })),
  );
}

/** The plan for a suite file or a past scorecard (exactly one); `baseline` and `drop` as the flags. */
export function suitePlan(opts: {
  suite?: string;
  scorecard?: string;
  baseline?: string;
  drop?: string;
}): SuitePlan {
  if ((opts.suite === undefined) === (opts.scorecard === undefined))
    throw new UsageError("plan: give --suite SUITE.yaml or --scorecard FILE, not both");
  const drop = numberFlag("--drop", opts.drop, { integer: false });
  if (drop !== undefined && !(drop > 0 && drop <= 1))
    throw new UsageError(`--drop must be in (0, 1], got ${drop}`);
  const baselineFlag = numberFlag("--baseline", opts.baseline, { integer: false });
  if (baselineFlag !== undefined && !(baselineFlag >= 0 && baselineFlag <= 1))
    throw new UsageError(`--baseline must be a rate in 0..1, got ${baselineFlag}`);
  const base = { alpha: 0.05 as const, power: 0.8 as const, min_tasks: MIN_VERDICT_TASKS };
  if (opts.suite !== undefined) {
    const s = loadSuite(opts.suite);
    const p = baselineFlag ?? 0.5;
    const gateDrop = s.gate?.max_pass_drop;
    const drops =
      drop !== undefined ? [drop] : [...new Set([0.05, 0.1, 0.2, ...(gateDrop ? [gateDrop] : [])])].sort();
    const repeats = [...new Set([1, 2, 3, 5, 10, s.repeats])].sort((a, b) => a - b);
    const sd = modelSd(p, s.repeats);
    return {
      suite: s.name,
      source: "suite",
      tasks: s.tasks.length,
      repeats: s.repeats,
      baseline_rate: p,
      sd_from: `trial noise at the baseline rate: sqrt(2 p (1 - p) / repeats)`,
      ...base,
      rows: rowsFor(repeats, drops, (r) => modelSd(p, r)),
      detectable_drop:
        s.tasks.length >= MIN_VERDICT_TASKS ? round(pairedDetectable(sd, s.tasks.length)) : null,
    };
  }
  const sc = loadScorecard(opts.scorecard!);
  const control = sc.variants.find((v) => v.name === sc.control)!;
  const p = baselineFlag ?? control.pass1;
  const tasks = control.tasks ?? new Set((sc.trials ?? []).map((t) => t.task)).size;
  const repeats = Math.max(1, Math.round(control.trials / Math.max(tasks, 1)));
  const measured = measuredSd(sc);
  const sd = measured && measured.sd > 0 ? measured.sd : modelSd(p, repeats);
  const drops = drop !== undefined ? [drop] : [0.05, 0.1, 0.2];
  return {
    suite: sc.suite,
    source: "scorecard",
    tasks,
    repeats,
    baseline_rate: round(p),
    sd_from:
      measured && measured.sd > 0
        ? `measured: per-task differences of ${measured.variant} (the widest comparison)`
        : "trial noise at the control's rate (no comparison with 2+ tasks that differ)",
    ...base,
    rows: rowsFor([repeats], drops, () => sd),
    detectable_drop: tasks >= MIN_VERDICT_TASKS ? round(pairedDetectable(sd, tasks)) : null,
  };
}

/** The plan as text for a terminal. */
export function renderSuitePlan(plan: SuitePlan): string {
  const lines = [
    `suite ${plan.suite}: tasks needed for 80% power (paired, two-sided, alpha 0.05), baseline pass rate ${plan.baseline_rate}`,
    `per-task difference SD from ${plan.sd_from}; never fewer than ${plan.min_tasks} tasks (below that the verdict is insufficient)`,
    "repeats    drop      sd  tasks",
    ...plan.rows.map(
      (r) =>
        `${String(r.repeats).padStart(7)}  ${r.drop.toFixed(2).padStart(6)}  ${r.sd.toFixed(3).padStart(6)}  ${String(r.tasks_needed).padStart(5)}`,
    ),
    plan.detectable_drop === null
      ? `with ${plan.tasks} tasks (fewer than ${plan.min_tasks}) no verdict is possible`
      : `with ${plan.tasks} tasks x ${plan.repeats} repeats the smallest detectable drop is ${plan.detectable_drop.toFixed(2)}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** `agent-eval plan --suite | --scorecard`: the plan as one JSON object on stdout, the table on stderr. */
export function suitePlanCmd(args: {
  suite?: string;
  scorecard?: string;
  baseline?: string;
  drop?: string;
}): number {
  const plan = suitePlan(args);
  process.stdout.write(`${pyJsonDumps(plan, { sortKeys: true, ensureAscii: false })}\n`);
  createLogger("agent-eval").log(renderSuitePlan(plan).trimEnd());
  return 0;
}

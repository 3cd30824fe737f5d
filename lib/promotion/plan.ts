// `agent-eval plan`: how many runs per arm a comparison needs, before anyone spends money on a
// model. For an expected baseline pass rate it lists, for each candidate rate in a grid (or the one
// given), the runs per arm an 80%-power two-sided test at alpha 0.05 needs (lib/stats power, the
// normal approximation), and for a planned `--runs N` the smallest rise it could detect.
import { UsageError } from "../core/errors.ts";
import { minDetectableDifference, sampleSizeTwoProportions } from "../stats/index.ts";

export interface PlanRow {
  candidate_rate: number;
  difference: number;
  runs_per_arm: number;
}

export interface PlanResult {
  baseline_rate: number;
  alpha: 0.05;
  power: 0.8;
  rows: PlanRow[];
  runs: number | null;
  detectable_difference: number | null;
}

function rate(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0 || v > 1) throw new UsageError(`${name} must be a rate in 0..1, got ${v}`);
  return v;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** The table for `baseline` (and one `candidate`, or the grid 0.1..1.0 above and below it). */
export function promotionPlan(opts: { baseline: number; candidate?: number; runs?: number }): PlanResult {
  const b = rate("--baseline", opts.baseline);
  if (opts.runs !== undefined && (!Number.isInteger(opts.runs) || opts.runs < 1))
    throw new UsageError(`--runs must be an integer >= 1, got ${opts.runs}`);
  const grid =
    opts.candidate !== undefined
      ? [rate("--candidate", opts.candidate)]
      : Array.from({ length: 10 }, (_, i) => round((i + 1) / 10));
  const rows = grid
    .filter((c) => c !== b)
    .map((c) => ({
      candidate_rate: c,
      difference: round(c - b),
      runs_per_arm: sampleSizeTwoProportions(b, c),
    }));
  if (opts.candidate !== undefined && rows.length === 0)
    throw new UsageError("--candidate must differ from --baseline: equal rates cannot be told apart");
  const mdd = opts.runs !== undefined ? minDetectableDifference(b, opts.runs) : null;
  return {
    baseline_rate: b,
    alpha: 0.05,
    power: 0.8,
    rows,
    runs: opts.runs ?? null,
    detectable_difference: mdd === null ? null : round(mdd),
  };
}

/** The table as text for a terminal. */
export function renderPlan(plan: PlanResult): string {
  const lines = [
    `runs per arm for 80% power (two-sided, alpha 0.05), baseline pass rate ${plan.baseline_rate}`,
    "candidate  difference  runs/arm",
    ...plan.rows.map(
      (r) =>
        `${r.candidate_rate.toFixed(2).padStart(9)}  ${(r.difference >= 0 ? "+" : "") + r.difference.toFixed(2)}`.padEnd(
          21,
        ) + String(r.runs_per_arm).padStart(10),
    ),
  ];
  if (plan.runs !== null)
    lines.push(
      plan.detectable_difference === null
        ? `with ${plan.runs} runs per arm no rise over the baseline is detectable`
        : `with ${plan.runs} runs per arm the smallest detectable rise is ${plan.detectable_difference.toFixed(2)}`,
    );
  return `${lines.join("\n")}\n`;
}

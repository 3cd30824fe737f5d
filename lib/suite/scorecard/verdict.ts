// The paired comparison's verdict: an exact test, not an interval. Each task both arms ran gives one
// difference (variant pass rate - control pass rate); the sign-flip permutation test over those
// differences (lib/stats/signflip.ts: exact up to 20 tasks that differ, seeded Monte Carlo above) gives
// a two-sided p, and the verdict is `better` or `worse` (by the mean's sign) when p <= ALPHA, else
// `no_significant_difference`: the original's words. Under the null the arms are exchangeable within a
// task, which is what running the same task, fixture and check for both makes true; tasks are the
// units, so the verdict speaks for tasks like these, not only these. `insufficient` says the data
// cannot carry a verdict: with fewer than MIN_VERDICT_TASKS paired tasks no outcome could reach
// significance (2^(1-n) > ALPHA), or most of the control's trials produced no scored result
// (evidence.ts). The bootstrap interval beside it is for display. Six tasks all -100 pp are `worse`
// (p = 2/64 = 0.031); six identical tasks are `no_significant_difference` (p = 1). A run that stopped
// when decided (--until-decided) takes its verdict from the confidence sequence instead (sequential.ts),
// since a fixed-sample p-value is not valid after peeking.
import { goFixed } from "../../compat/go.ts";
import { minAttainableP, minUnits, signFlipTest } from "../../stats/index.ts";
import { type Evidence, scoredLine, tooFewScored } from "./evidence.ts";
import type { Comparison, TestInfo } from "./schema.ts";

/** The level of every verdict and gate decision (the two-sided 5% of the 95% intervals shown). */
export const ALPHA = 0.05;

/** The fewest paired tasks at which the exact test at ALPHA can reject at all: 6 (2/64 = 3.1%; 5 give 6.25%). */
export const MIN_VERDICT_TASKS = minUnits(ALPHA);

/** How a comparison's verdict was reached (schema.ts TestInfo): the exact test's p, or a sequence's decision. */
export type { TestInfo };

/** The exact two-sided paired test of per-task differences (Monte Carlo above 20, seeded). */
export function pairedTest(diffs: readonly number[], seed: number): TestInfo {
  const r = signFlipTest(diffs, { seed });
  return {
    method: "sign-flip",
    alpha: ALPHA,
    p: r.p,
    n: r.n,
    exact: r.exact,
    ...(r.draws !== undefined ? { draws: r.draws } : {}),
  };
}

/** Why `tasks` paired tasks are too few for any verdict, or undefined when they are enough. */
export function insufficiency(tasks: number): string | undefined {
  if (tasks >= MIN_VERDICT_TASKS) return undefined;
  const n = `${tasks} paired task${tasks === 1 ? "" : "s"}`;
  return `only ${n}: the exact test cannot reach significance at 5% on fewer than ${MIN_VERDICT_TASKS} (the smallest p ${n} can give is ${goFixed(minAttainableP(tasks), 3)})`;
}

/** A p-value as the reasons print it: three decimals, or `< 0.001`. */
export function pText(p: number): string {
  return p < 0.001 ? "< 0.001" : goFixed(p, 3);
}

/**
 * The verdict of a comparison over `tasks` paired tasks whose differences have mean `delta`, from its
 * test (the exact test's p, or a sequence's decision), and the reason when it is `insufficient`.
 * `control` is the control's evidence: mostly unscored, there is nothing to compare against.
 */
export function verdictFor(c: {
  tasks: number;
  delta: number;
  test: TestInfo;
  control?: { name: string; evidence: Evidence };
}): { verdict: Comparison["verdict"]; reason?: string } {
  if (c.control && tooFewScored(c.control.evidence))
    return {
      verdict: "insufficient",
      reason: `no evidence: ${scoredLine(c.control.name, c.control.evidence)}; a verdict needs at least half the control's trials scored`,
    };
  if (c.test.method === "confidence-sequence") {
    const d = c.test.decision;
    return { verdict: d === "better" || d === "worse" ? d : "no_significant_difference" };
  }
  const reason = insufficiency(c.tasks);
  if (reason !== undefined) return { verdict: "insufficient", reason };
  if ((c.test.p ?? 1) <= ALPHA && c.delta !== 0) return { verdict: c.delta > 0 ? "better" : "worse" };
  return { verdict: "no_significant_difference" };
}

// The paired comparison's verdict, stricter than the original's: the original says better/worse
// whenever the 95% interval excludes 0, so one task with one trial per arm is `better` on a
// degenerate 100%..100% interval. Here too little evidence says so: `insufficient`, with the reason,
// below MIN_VERDICT_TASKS paired tasks or when the interval has zero width.
import { goFixed } from "../../compat/go.ts";
import type { Comparison } from "./schema.ts";

/**
 * The fewest paired tasks a better/worse/no_significant_difference verdict needs: 6, the fewest at
 * which a two-sided sign test at 5% can reject at all (even if every task moves the same way,
 * 2 x 0.5^5 = 6.25% > 5% with 5 tasks; 3.1% with 6). Below it the bootstrap's interval is too short of
 * distinct resamples to mean anything.
 */
export const MIN_VERDICT_TASKS = 6;

/** Why the evidence is too thin for a verdict, or undefined when it is enough. */
export function insufficiency(interval: { tasks: number; lo: number; hi: number }): string | undefined {
  if (interval.tasks < MIN_VERDICT_TASKS)
    return `only ${interval.tasks} paired tasks; a verdict needs at least ${MIN_VERDICT_TASKS}`;
  if (interval.lo === interval.hi)
    return `the 95% interval has zero width (every resample gave ${goFixed(100 * interval.lo, 1, true)} pp): the tasks' differences do not vary, so the bootstrap cannot measure the uncertainty`;
  return undefined;
}

/** The verdict of a paired interval over `tasks` tasks, and the reason when it is `insufficient`. */
export function verdictFor(interval: { tasks: number; lo: number; hi: number }): {
  verdict: Comparison["verdict"];
  reason?: string;
} {
  const reason = insufficiency(interval);
  if (reason !== undefined) return { verdict: "insufficient", reason };
  if (interval.lo > 0) return { verdict: "better" };
  if (interval.hi < 0) return { verdict: "worse" };
  return { verdict: "no_significant_difference" };
}

// Intervals for a binomial proportion: the Wilson score interval (Wilson 1927; Newcombe 1998,
// method 3), which keeps its coverage near nominal for small n and rates near 0 or 1, where the
// Wald interval collapses. Used for step-suite rows and any rate over independent trials.
import { count, fail, type Interval, probability } from "./_check.ts";
import { normalQuantile } from "./normal.ts";

/** The Wilson score interval for `successes` of `trials` at `confidence` (default 0.95). */
export function wilson(successes: number, trials: number, confidence = 0.95): Interval {
  const what = "compute a Wilson interval";
  count(what, "successes", successes);
  count(what, "trials", trials);
  probability(what, "confidence", confidence, true);
  if (trials === 0) fail(what, "trials must be at least 1");
  if (successes > trials) fail(what, `successes ${successes} exceed trials ${trials}`);
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / trials;
  const z2n = (z * z) / trials;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / trials + z2n / (4 * trials));
  return {
    estimate: p,
    lo: successes === 0 ? 0 : Math.max(0, centre - half),
    hi: successes === trials ? 1 : Math.min(1, centre + half),
  };
}

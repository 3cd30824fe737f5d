// Percentile bootstrap intervals, with the original halo scorecard's semantics (originals.md §6.6):
// B resamples with replacement (default 2000), the statistic of each, sorted; lo = s[trunc(a/2 *
// (B-1))], hi = s[trunc((1-a/2) * (B-1))] (s[49] and s[1949] at the defaults); the estimate is the
// statistic of the full sample. Item, cluster (resample clusters, pool their items) and paired forms.
import { allFinite, count, fail, finite, type Interval, probability } from "./_check.ts";
import { Rng } from "./prng.ts";

/** Bootstrap settings: iterations (2000), alpha (0.05), and a seed (1) or a caller's running Rng. */
export interface BootstrapOptions {
  iterations?: number;
  alpha?: number;
  seed?: number | bigint;
  rng?: Rng;
}

/** One observation of a paired comparison: its cluster (task or session) and its value (0/1 pass). */
export interface Observation {
  cluster: string;
  value: number;
}

/** The verdict words of the original scorecard. */
export type Verdict = "better" | "worse" | "no_significant_difference";

/** A paired comparison: clusters in both arms, mean difference (variant - control), its CI, verdict. */
export interface PairedComparison extends Interval {
  clusters: number;
  verdict: Verdict;
}

/** The core: `draw(rng)` gives one resampled statistic; returns the sorted-percentile bounds. */
function percentile(
  what: string,
  opts: BootstrapOptions,
  draw: (rng: Rng) => number,
): { lo: number; hi: number } {
  const iterations = opts.iterations ?? 2000;
  const alpha = opts.alpha ?? 0.05;
  if (count(what, "iterations", iterations) < 1) fail(what, "iterations must be at least 1");
  probability(what, "alpha", alpha, true);
  const rng = opts.rng ?? new Rng(opts.seed ?? 1);
  const stats = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    const s = draw(rng);
    if (Number.isNaN(s)) fail(what, `the statistic gave NaN on resample ${b}`);
    stats[b] = s;
  }
  stats.sort();
  return {
    lo: stats[Math.trunc((alpha / 2) * (iterations - 1))]!,
    hi: stats[Math.trunc((1 - alpha / 2) * (iterations - 1))]!,
  };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Percentile bootstrap of the mean of `values` (the original's pass@1 interval). */
export function bootstrapMean(values: readonly number[], opts: BootstrapOptions = {}): Interval {
  const what = "bootstrap a mean";
  const n = values.length;
  if (n === 0) fail(what, "no values");
  allFinite(what, values);
  const { lo, hi } = percentile(what, opts, (rng) => {
    let total = 0;
    for (let i = 0; i < n; i++) total += values[rng.int(n)]!;
    return total / n;
  });
  return { estimate: sum(values) / n, lo, hi };
}

/** Percentile bootstrap of `statistic` over items (the sample array is reused: do not keep it). */
export function bootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number,
  opts: BootstrapOptions = {},
): Interval {
  const what = "bootstrap a statistic";
  const n = items.length;
  if (n === 0) fail(what, "no items");
  const sample: T[] = items.slice();
  const { lo, hi } = percentile(what, opts, (rng) => {
    for (let i = 0; i < n; i++) sample[i] = items[rng.int(n)]!;
    return statistic(sample);
  });
  return { estimate: finite(what, "the statistic", statistic(items)), lo, hi };
}

/** Cluster bootstrap: resample clusters with replacement, `statistic` over their pooled items. */
export function clusterBootstrap<T>(
  clusters: readonly (readonly T[])[],
  statistic: (pooled: readonly T[]) => number,
  opts: BootstrapOptions = {},
): Interval {
  const what = "bootstrap over clusters";
  const n = clusters.length;
  if (n === 0) fail(what, "no clusters");
  const pooled: T[] = [];
  const { lo, hi } = percentile(what, opts, (rng) => {
    pooled.length = 0;
    for (let i = 0; i < n; i++) for (const item of clusters[rng.int(n)]!) pooled.push(item);
    return statistic(pooled);
  });
  return { estimate: finite(what, "the statistic", statistic(clusters.flat() as T[])), lo, hi };
}

// Pass rate = passes / trials per task; cost or latency per trial = sum / trials. No pooling: fast.
/** Cluster bootstrap of a ratio of sums (Σnum / Σden over the drawn clusters; each den > 0). */
export function bootstrapRatio(
  clusters: readonly { num: number; den: number }[],
  opts: BootstrapOptions = {},
): Interval {
  const what = "bootstrap a ratio over clusters";
  const n = clusters.length;
  if (n === 0) fail(what, "no clusters");
  const num = new Float64Array(n);
  const den = new Float64Array(n);
  clusters.forEach((c, i) => {
    num[i] = finite(what, `clusters[${i}].num`, c.num);
    den[i] = finite(what, `clusters[${i}].den`, c.den);
    if (c.den <= 0) fail(what, `clusters[${i}].den must be > 0, got ${c.den}`);
  });
  const { lo, hi } = percentile(what, opts, (rng) => {
    let a = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      const j = rng.int(n);
      a += num[j]!;
      b += den[j]!;
    }
    return a / b;
  });
  return { estimate: num.reduce((x, y) => x + y, 0) / den.reduce((x, y) => x + y, 0), lo, hi };
}

/** The original's verdict: better if lo > 0, worse if hi < 0, else no_significant_difference. */
export function verdictOf(interval: { lo: number; hi: number }): Verdict {
  if (interval.lo > 0) return "better";
  if (interval.hi < 0) return "worse";
  return "no_significant_difference";
}

/** Per-cluster means of an arm, keyed by cluster. */
function clusterMeans(what: string, arm: string, observations: readonly Observation[]): Map<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  observations.forEach((o, i) => {
    finite(what, `${arm}[${i}].value`, o.value);
    const s = sums.get(o.cluster) ?? { total: 0, n: 0 };
    s.total += o.value;
    s.n += 1;
    sums.set(o.cluster, s);
  });
  return new Map([...sums].map(([k, s]) => [k, s.total / s.n]));
}

/** Clusters in both arms, sorted by code point, and each one's difference of means (variant - control). */
export function pairedDifferences(
  control: readonly Observation[],
  variant: readonly Observation[],
): { clusters: string[]; diffs: number[] } {
  const what = "compare arms";
  const c = clusterMeans(what, "control", control);
  const v = clusterMeans(what, "variant", variant);
  const clusters = [...c.keys()].filter((k) => v.has(k)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (clusters.length === 0) fail(what, "no cluster appears in both arms");
  return { clusters, diffs: clusters.map((k) => v.get(k)! - c.get(k)!) };
}

/** Paired bootstrap by cluster key: the mean per-cluster difference, its interval and the verdict. */
export function pairedBootstrap(
  control: readonly Observation[],
  variant: readonly Observation[],
  opts: BootstrapOptions = {},
): PairedComparison {
  const { clusters, diffs } = pairedDifferences(control, variant);
  const ci = bootstrapMean(diffs, opts);
  return { clusters: clusters.length, ...ci, verdict: verdictOf(ci) };
}

// The paired sign-flip permutation test (Fisher 1935; Pitman 1937): under the null that the two arms
// are exchangeable within each unit (task), every per-unit difference is as likely to have the other
// sign, so the observed sum of differences is compared with the sums of all 2^n sign patterns. Exact
// by full enumeration (meet in the middle: two halves of at most 2^10 sums each) up to EXACT_MAX
// non-zero differences, a seeded Monte Carlo above (p = (1 + hits) / (1 + draws), Phipson and Smyth
// 2010, never 0). Zero differences carry no sign and are dropped, which leaves p unchanged. A shift
// tests a location other than 0 (the difference minus the shift is symmetric about 0), which is how a
// non-inferiority margin is tested. The smallest p any n units can give is 2^-n (one-sided) or
// 2^(1-n) (two-sided): below that many units no data can reach significance (minUnits).
import { allFinite, count, fail, finite, probability } from "./_check.ts";
import { Rng } from "./prng.ts";

/** Two-sided (|T| as large), greater (T as large) or less (T as small). */
export type Alternative = "two-sided" | "greater" | "less";

/** Settings: the alternative, a null location, when to enumerate, and the Monte Carlo's draws and seed. */
export interface SignFlipOptions {
  alternative?: Alternative;
  /** The null location of the differences (default 0): a margin -0.05 tests "no worse than 5 points". */
  shift?: number;
  /** Enumerate every sign pattern up to this many non-zero differences (default 20), else draw. */
  exactMax?: number;
  /** Monte Carlo sign patterns above exactMax (default 100,000). */
  draws?: number;
  seed?: number | bigint;
  rng?: Rng;
}

/** A test's outcome: its p-value, the non-zero units it rests on, and how it was computed. */
export interface SignFlipResult {
  p: number;
  /** Units whose difference (less the shift) is not zero: the only ones a sign flip moves. */
  n: number;
  /** The observed sum of (difference - shift). */
  statistic: number;
  exact: boolean;
  /** Monte Carlo draws (absent when exact). */
  draws?: number;
}

/** The default largest n enumerated exactly (2^20 patterns, as two halves of 2^10). */
export const EXACT_MAX = 20;

const WHAT = "run a sign-flip test";

/** Every signed sum of `xs` (±x each), 2^len of them, built by doubling. */
function signedSums(xs: readonly number[]): Float64Array {
  const out = new Float64Array(1 << xs.length);
  out[0] = -xs.reduce((a, b) => a + b, 0);
  for (let i = 0; i < xs.length; i++) {
    const bit = 1 << i;
    const step = 2 * xs[i]!;
    for (let m = 0; m < bit; m++) out[m | bit] = out[m]! + step;
  }
  return out;
}

/** The count of sorted values >= x (binary search). */
function atLeast(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! >= x) hi = mid;
    else lo = mid + 1;
  }
  return sorted.length - lo;
}

/** The count of sorted values <= x (binary search). */
function atMost(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Patterns (of 2^n) whose sum is at least hi or (two-sided) at most lo, counted over the two halves. */
function exactCount(a: readonly number[], hi: number, lo: number | undefined): number {
  const half = a.length >> 1;
  const left = signedSums(a.slice(0, half));
  const right = signedSums(a.slice(half)).sort();
  let hits = 0;
  for (const s of left) {
    hits += atLeast(right, hi - s);
    if (lo !== undefined) hits += atMost(right, lo - s);
  }
  return hits;
}

/**
 * The sign-flip test of `diffs` (one per unit: a task's variant - control). Two-sided by default.
 * @example signFlipTest([-1, -1, -1, -1, -1, -1]).p // 0.03125: 2 of the 64 patterns are as extreme
 */
export function signFlipTest(diffs: readonly number[], opts: SignFlipOptions = {}): SignFlipResult {
  allFinite(WHAT, diffs);
  const alternative = opts.alternative ?? "two-sided";
  if (!["two-sided", "greater", "less"].includes(alternative))
    fail(WHAT, `alternative must be two-sided, greater or less, got ${alternative}`);
  const shift = finite(WHAT, "shift", opts.shift ?? 0);
  const exactMax = count(WHAT, "exactMax", opts.exactMax ?? EXACT_MAX);
  if (exactMax > 30) fail(WHAT, `exactMax must be at most 30, got ${exactMax}`);
  const x = diffs.map((d) => d - shift).filter((d) => d !== 0);
  const statistic = x.reduce((s, v) => s + v, 0);
  const n = x.length;
  if (n === 0) return { p: 1, n, statistic: 0, exact: true };
  const a = x.map(Math.abs);
  // Sums that differ from the observed one by rounding alone count as equal to it.
  const eps = 1e-9 * a.reduce((s, v) => s + v, 0);
  const t = Math.abs(statistic);
  const [hi, lo] =
    alternative === "two-sided"
      ? [t - eps, -t + eps]
      : alternative === "greater"
        ? [statistic - eps, undefined]
        : [Number.POSITIVE_INFINITY, statistic + eps];
  if (n <= exactMax) {
    const hits = exactCount(a, hi, lo);
    return { p: Math.min(1, hits / 2 ** n), n, statistic, exact: true };
  }
  const draws = count(WHAT, "draws", opts.draws ?? 100_000);
  if (draws < 1) fail(WHAT, "draws must be at least 1");
  const rng = opts.rng ?? new Rng(opts.seed ?? 1);
  let hits = 0;
  for (let b = 0; b < draws; b++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 31) === 0) bits = rng.nextUint32();
      s += bits & 1 ? a[i]! : -a[i]!;
      bits >>>= 1;
    }
    if (s >= hi || (lo !== undefined && s <= lo)) hits++;
  }
  return { p: (1 + hits) / (1 + draws), n, statistic, exact: false, draws };
}

/** The smallest p-value any data on `n` units can give: 2^-n one-sided, 2^(1-n) two-sided. */
export function minAttainableP(n: number, alternative: Alternative = "two-sided"): number {
  count("compute the smallest p-value", "n", n);
  return Math.min(1, (alternative === "two-sided" ? 2 : 1) / 2 ** n);
}

/** The fewest units at which a sign-flip test at `alpha` can reject at all (6 at 0.05 two-sided). */
export function minUnits(alpha: number, alternative: Alternative = "two-sided"): number {
  probability("compute the fewest units", "alpha", alpha, true);
  let n = 0;
  while (minAttainableP(n, alternative) > alpha) n++;
  return n;
}

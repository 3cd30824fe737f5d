// Power for comparing two proportions with equal arms, two-sided test at alpha: the normal
// approximation without continuity correction (Fleiss, Levin and Paik 2003, eq. 4.14),
// n = (z_{1-a/2} sqrt(2 pbar qbar) + z_{1-b} sqrt(p1 q1 + p2 q2))^2 / (p1 - p2)^2 per arm.
// Tells a suite author how many tasks (clusters) a comparison needs, or what it can detect.
import { count, fail, probability } from "./_check.ts";
import { normalCdf, normalQuantile } from "./normal.ts";

/** Alpha (two-sided, default 0.05) and the wanted power (default 0.8). */
export interface PowerOptions {
  alpha?: number;
  power?: number;
}

function settings(what: string, opts: PowerOptions): { za: number; zb: number } {
  const alpha = probability(what, "alpha", opts.alpha ?? 0.05, true);
  const power = probability(what, "power", opts.power ?? 0.8, true);
  return { za: normalQuantile(1 - alpha / 2), zb: normalQuantile(power) };
}

function rawSize(p1: number, p2: number, za: number, zb: number): number {
  const pbar = (p1 + p2) / 2;
  const root = za * Math.sqrt(2 * pbar * (1 - pbar)) + zb * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return (root * root) / ((p1 - p2) * (p1 - p2));
}

/** Per-arm sample size to detect p1 vs p2 at alpha with the given power (rounded up). */
export function sampleSizeTwoProportions(p1: number, p2: number, opts: PowerOptions = {}): number {
  const what = "compute a sample size";
  probability(what, "p1", p1);
  probability(what, "p2", p2);
  if (p1 === p2) fail(what, "p1 and p2 must differ");
  const { za, zb } = settings(what, opts);
  return Math.ceil(rawSize(p1, p2, za, zb) - 1e-9);
}

/** Power of a two-sided test at alpha to tell p1 from p2 with n per arm (the far tail ignored). */
export function powerTwoProportions(p1: number, p2: number, n: number, alpha = 0.05): number {
  const what = "compute power";
  probability(what, "p1", p1);
  probability(what, "p2", p2);
  if (count(what, "n", n) < 1) fail(what, "n must be at least 1");
  const za = normalQuantile(1 - probability(what, "alpha", alpha, true) / 2);
  const pbar = (p1 + p2) / 2;
  const spread = Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  if (spread === 0) return p1 === p2 ? alpha : 1;
  return normalCdf((Math.abs(p1 - p2) * Math.sqrt(n) - za * Math.sqrt(2 * pbar * (1 - pbar))) / spread);
}

// The smallest d with p1 + d <= 1 for which the sample-size formula says n suffices, by bisection
// to 1e-9; null when not even p2 = 1 is detectable. For a fall from p1, ask about 1 - p1.
/** Minimum detectable rise over baseline p1 with n per arm at alpha and power; null if none. */
export function minDetectableDifference(p1: number, n: number, opts: PowerOptions = {}): number | null {
  const what = "compute a minimum detectable difference";
  probability(what, "p1", p1);
  if (count(what, "n", n) < 1) fail(what, "n must be at least 1");
  const { za, zb } = settings(what, opts);
  if (p1 === 1 || rawSize(p1, 1, za, zb) > n) return null;
  let lo = 0;
  let hi = 1 - p1;
  while (hi - lo > 1e-9) {
    const mid = (lo + hi) / 2;
    if (mid > 0 && rawSize(p1, p1 + mid, za, zb) <= n) hi = mid;
    else lo = mid;
  }
  return hi;
}

// A paired design (each task run by both arms, its difference the unit) tested by its mean: the
// normal approximation n = ((z_{1-a/2} + z_{1-b}) sd / delta)^2 over tasks, sd the per-task
// differences' standard deviation. What a suite's paired comparison needs, given that spread.
/** Tasks (clusters) needed to detect a mean paired difference `delta` when the differences have SD `sd`. */
export function pairedSampleSize(sd: number, delta: number, opts: PowerOptions = {}): number {
  const what = "compute a paired sample size";
  if (!Number.isFinite(sd) || sd < 0) fail(what, `sd must be a finite number >= 0, got ${sd}`);
  if (!Number.isFinite(delta) || delta <= 0) fail(what, `delta must be > 0, got ${delta}`);
  const { za, zb } = settings(what, opts);
  const root = ((za + zb) * sd) / delta;
  return Math.max(1, Math.ceil(root * root - 1e-9));
}

/** The smallest mean paired difference `n` tasks detect when the differences have SD `sd`. */
export function pairedDetectable(sd: number, n: number, opts: PowerOptions = {}): number {
  const what = "compute a paired detectable difference";
  if (!Number.isFinite(sd) || sd < 0) fail(what, `sd must be a finite number >= 0, got ${sd}`);
  if (count(what, "n", n) < 1) fail(what, "n must be at least 1");
  const { za, zb } = settings(what, opts);
  return ((za + zb) * sd) / Math.sqrt(n);
}

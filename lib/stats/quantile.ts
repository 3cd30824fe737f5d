// Order statistics as the original halo scorecard computes wall-time percentiles (originals.md
// §6.6): sort ascending, take x[ceil(q * n) - 1], the index clamped into the array; an empty input
// gives 0. This is the "nearest rank" definition, no interpolation: 1..10 gives p50 5 and p95 10.
// Beside it the textbook median (the two middle values averaged), what the benches report.
import { allFinite, probability } from "./_check.ts";

/** The nearest-rank q-quantile of `values` (x[ceil(q*n)-1], clamped); 0 for an empty input. */
export function quantile(values: readonly number[], q: number): number {
  probability("compute a quantile", "q", q);
  allFinite("compute a quantile", values);
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** Several nearest-rank quantiles of one input, sorting it once; 0s for an empty input. */
export function quantiles(values: readonly number[], qs: readonly number[]): number[] {
  for (const q of qs) probability("compute a quantile", "q", q);
  allFinite("compute a quantile", values);
  if (values.length === 0) return qs.map(() => 0);
  const sorted = Float64Array.from(values).sort();
  return qs.map((q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!);
}

/** The median: the middle value, or the mean of the two middle ones (1..10 gives 5.5); 0 for an empty input. */
export function median(values: readonly number[]): number {
  allFinite("compute a median", values);
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// Argument checks the stats modules share. Every failure is a RangeError whose message names the
// function and the bad value, in the house grammar: `Cannot compute pass@k: k 5 exceeds n 3`.
// Internal: callers validate user input at their own boundary; these guard against caller bugs.
// Also home of the one shape every interval in lib/stats returns.

/** A point estimate with its interval. */
export interface Interval {
  estimate: number;
  lo: number;
  hi: number;
}

/** Throws a RangeError `Cannot <what>: <detail>`. */
export function fail(what: string, detail: string): never {
  throw new RangeError(`Cannot ${what}: ${detail}`);
}

/** A finite number, else a RangeError. */
export function finite(what: string, name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value))
    fail(what, `${name} must be finite, got ${value}`);
  return value;
}

/** A non-negative safe integer (a count), else a RangeError. */
export function count(what: string, name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0)
    fail(what, `${name} must be a count (integer >= 0), got ${value}`);
  return value;
}

/** A probability in [0, 1] (or the open interval when `open`), else a RangeError. */
export function probability(what: string, name: string, value: number, open = false): number {
  const ok = Number.isFinite(value) && (open ? value > 0 && value < 1 : value >= 0 && value <= 1);
  if (!ok) fail(what, `${name} must be in ${open ? "(0, 1)" : "[0, 1]"}, got ${value}`);
  return value;
}

/** Every value finite, else a RangeError naming the first bad index. */
export function allFinite(what: string, values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== "number" || !Number.isFinite(v)) fail(what, `values[${i}] must be finite, got ${v}`);
  }
}

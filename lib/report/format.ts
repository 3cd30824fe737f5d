// How reports print numbers: the same rounding as the Markdown scorecard (Go's %.1f, ties to even),
// so a figure reads the same in the HTML, the Markdown and the terminal. Every lane's report uses it.
import { goFixed } from "../compat/go.ts";

/** 0.8125 -> "81.3%". */
export const pct = (x: number): string => `${goFixed(100 * x, 1)}%`;
/** 0.125 -> "+12.5 pp". */
export const pp = (x: number): string => `${goFixed(100 * x, 1, true)} pp`;
/** 0.125 -> "+12.5" (percentage points without the unit, for interval bounds). */
export const ppBare = (x: number): string => goFixed(100 * x, 1, true);
/** 0.01234 -> "$0.0123". */
export const usd = (x: number): string => `$${goFixed(x, 4)}`;
/** 1234 (ms) -> "1.2s". */
export const secs = (ms: number): string => `${goFixed(ms / 1000, 1)}s`;
/** An integer with thousands separators. */
export const int = (n: number): string => n.toLocaleString("en-US");

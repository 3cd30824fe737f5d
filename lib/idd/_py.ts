// Python number semantics the stats report shows: round() (half to even), statistics.median (the
// middle element, or a float mean of the two middle ones), `:g` formatting and repr() of a string.
// Values are the parsed JSON of lib/runlog/_pyjson.ts (PyFloat for floats, booleans count as ints).
import { PyFloat } from "../runlog/_pyjson.ts";

/** A Python number as parsed JSON holds it. */
export type PyNum = number | bigint | boolean | PyFloat;

/** The numeric value of a Python number. */
export function num(v: PyNum): number {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "boolean") return v ? 1 : 0;
  return Number(v);
}

/** Python round(x) to an int: halves go to the even neighbour. */
export function pyRound(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** `round(100 * n / d) if d else None`. */
export function pct(n: number, d: number): number | null {
  return d ? pyRound((100 * n) / d) : null;
}

/** statistics.median: the middle element itself, or a float mean of the two middle ones. */
export function median(values: readonly PyNum[]): PyNum | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => num(a) - num(b));
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid]!;
  return new PyFloat((num(sorted[mid - 1]!) + num(sorted[mid]!)) / 2);
}

/** `a - b` keeping Python's int/float result type. */
export function subtract(a: PyNum, b: PyNum): PyNum {
  const d = num(a) - num(b);
  return a instanceof PyFloat || b instanceof PyFloat ? new PyFloat(d) : d;
}

/** Python `f"{x:g}"`: six significant digits, exponent form below 1e-4 and from 1e6, zeros trimmed. */
export function formatG(v: PyNum): string {
  const x = num(v);
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [mant = "", e = "0"] = x.toExponential(5).split("e");
  const exp = Number(e);
  const trim = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (exp >= -4 && exp < 6) return trim(x.toFixed(5 - exp));
  return `${trim(mant)}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/** Python repr() of a str. */
export function reprStr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s.replace(/\\/g, "\\\\")}"`;
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Python str() of a parsed JSON scalar (containers fall back to JSON text). */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return v;
  if (v instanceof PyFloat) return Number.isInteger(v.value) ? `${v.value}.0` : String(v.value);
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return JSON.stringify(v);
}

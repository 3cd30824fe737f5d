// Python's printed forms of values: str() and repr() of parsed JSON values (strings escaped as
// str.isprintable() decides, floats with repr's shortest round-trip digits), round() and `:g`.
// Deliberately not here: JSON text (json.ts writes NaN/Infinity and \u escapes), text helpers
// (text.ts). Imports only value.ts, so the gh replay path stays light.
import { isPyDict, num, PyFloat, type PyNum } from "./value.ts";

/** Python repr() of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant = "", expText = "0"] = x.toExponential().split("e");
  const exp = Number(expText);
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace(/^-/, "").replace(".", "");
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1);
    return `${sign}${int}.${frac || "0"}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

// JSON.parse cannot tell `1` from `1.0`, so a bare JS number prints as an int when integral; values
// from parsePyJson carry floats as PyFloat and print `1.0`.
/** str() of a JS number: integral values as Python ints, others as a float repr. */
export function pyNumber(n: number): string {
  return Number.isInteger(n) ? BigInt(n).toString() : pyFloatRepr(n);
}

// Characters Python's str.isprintable() rejects (besides the ASCII space, which is printable).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && NON_PRINTABLE.test(ch)) {
      if (cp < 0x100) out += `\\x${hex(cp, 2)}`;
      else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
      else out += `\\U${hex(cp, 8)}`;
    } else out += ch;
  }
  return out + quote;
}

/** Python repr() of a JSON value: `'it'`, `"it's"`, `['a', 1, None]`, `{'k': 1.0}`. */
export function pyRepr(v: unknown): string {
  if (typeof v === "string") return reprString(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (isPyDict(v)) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  }
  return pyStr(v);
}

/** Python str() of a JSON value: strings as they are, None/True/False, numbers, containers as repr. */
export function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (typeof v === "number") return pyNumber(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "object") return pyRepr(v);
  return String(v);
}

/** Python round(x) to an int: halves go to the even neighbour. */
export function pyRound(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
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

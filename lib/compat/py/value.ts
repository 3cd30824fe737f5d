// Python's value model over parsed JSON: the float/int split (PyFloat vs number/bigint), dict and int
// type tests, truthiness, `==`, int() and the numeric value of a number. Shared by every lane that
// ports a Python tool. Deliberately not here: parsing and printing (json.ts, repr.ts), text (text.ts).
// No imports: the gh replay path loads this module.

/** A JSON number Python reads as float (kept apart from ints, which are number or bigint). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A parsed JSON value with Python's number types. */
export type PyValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | PyFloat
  | PyValue[]
  | { [key: string]: PyValue };

/** A Python number as parsed JSON holds it (booleans are ints in Python). */
export type PyNum = number | bigint | boolean | PyFloat;

/** The numeric value of a Python number. */
export function num(v: PyNum): number {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "boolean") return v ? 1 : 0;
  return Number(v);
}

/** True for a JSON object (a Python dict). */
export function isPyDict(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

/** True for a JSON int (Python `type(v) is int`): not a bool, not a float. */
export function isPyInt(v: unknown): v is number | bigint {
  return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
}

/** Python truthiness of a JSON value (`value or default`). */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === 0n || v === "") return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isPyDict(v)) return Object.keys(v).length > 0;
  return true;
}

function numeric(v: unknown): number | bigint | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (v instanceof PyFloat) return v.value;
  return null;
}

/** Python `==` between parsed values: numbers across int/float/bool by value, dicts by key set. */
export function pyEquals(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== null || nb !== null) {
    if (na === null || nb === null) return false;
    if (typeof na === "bigint" || typeof nb === "bigint") {
      const fa = typeof na === "bigint" ? na : Number.isInteger(na) ? BigInt(na) : null;
      const fb = typeof nb === "bigint" ? nb : Number.isInteger(nb) ? BigInt(nb) : null;
      return fa !== null && fb !== null && fa === fb;
    }
    return na === nb;
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEquals(v, b[i]))
    );
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && pyEquals((a as Record<string, unknown>)[k], rb[k]));
}

// int(): ints as they are, bools as 0/1, floats truncated, strings of ASCII digits (sign, surrounding
// whitespace, `_` separators). Where Python raises, null, so the caller can report it instead.
/** Python int() of a JSON value, or null where Python would raise. */
export function pyInt(v: unknown): number | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  const n = v instanceof PyFloat ? v.value : typeof v === "bigint" ? Number(v) : v;
  if (typeof n === "number") return Number.isFinite(n) ? Math.trunc(n) + 0 : null;
  if (typeof n === "string" && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(n)) {
    return Number(n.trim().replaceAll("_", "")) + 0;
  }
  return null;
}

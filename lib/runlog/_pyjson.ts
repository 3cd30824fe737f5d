// Python's json module, as far as gi-runlog's byte contract needs it: a parser that keeps the int /
// float distinction (`1.0` and `1e2` are floats, big ints stay exact as bigint), accepts NaN and
// Infinity, and reports Python's error texts; `dumps` with Python's escaping and float repr; and
// Python `==` for parsed values (1 == 1.0 == True). Objects parse to null-prototype records.

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

/** JSON that Python's json.loads would reject; `msg` is Python's exc.msg. */
export class PyJsonError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(`${msg}: char ${pos}`);
    this.name = "PyJsonError";
  }
}

const WS = /[ \t\n\r]*/y;
const NUMBER = /(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const MAX_DEPTH = 900;

/** Python json.loads(text). Throws PyJsonError. */
export function parsePyJson(text: string): PyValue {
  if (text.startsWith("\ufeff")) throw new PyJsonError("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
  let pos = 0;
  const skip = () => {
    WS.lastIndex = pos;
    WS.exec(text);
    pos = WS.lastIndex;
  };
  const value = (depth: number): PyValue => {
    if (depth > MAX_DEPTH) throw new PyJsonError("Nesting too deep", pos);
    const ch = text[pos];
    if (ch === '"') return str();
    if (ch === "{") return object(depth);
    if (ch === "[") return array(depth);
    for (const [word, v] of LITERALS) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) throw new PyJsonError("Expecting value", pos);
    pos = NUMBER.lastIndex;
    if (m[2] || m[3]) return new PyFloat(Number(m[0]));
    const big = BigInt(m[1]!);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(big)
      : big;
  };
  const str = (): string => {
    const start = pos;
    pos++;
    let out = "";
    for (;;) {
      const ch = text[pos];
      if (ch === undefined) throw new PyJsonError("Unterminated string starting at", start);
      if (ch === '"') {
        pos++;
        return out;
      }
      if (ch < " ") throw new PyJsonError("Invalid control character at", pos);
      if (ch !== "\\") {
        out += ch;
        pos++;
        continue;
      }
      const esc = text[pos + 1];
      if (esc === undefined) throw new PyJsonError("Unterminated string starting at", start);
      if (esc === "u") {
        const cu = hex4(pos + 2);
        pos += 6;
        if (cu >= 0xd800 && cu <= 0xdbff && text.startsWith("\\u", pos)) {
          const lo = hex4(pos + 2);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            out += String.fromCharCode(cu, lo);
            pos += 6;
            continue;
          }
        }
        out += String.fromCharCode(cu);
        continue;
      }
      const mapped = ESCAPES[esc];
      if (mapped === undefined) throw new PyJsonError(`Invalid \\escape: ${pyRepr(esc)}`, pos);
      out += mapped;
      pos += 2;
    }
  };
  const hex4 = (at: number): number => {
    const h = text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) throw new PyJsonError("Invalid \\uXXXX escape", at - 1);
    return Number.parseInt(h, 16);
  };
  const object = (depth: number): PyValue => {
    const obj: { [key: string]: PyValue } = Object.create(null);
    pos++;
    skip();
    if (text[pos] === "}") {
      pos++;
      return obj;
    }
    for (;;) {
      if (text[pos] !== '"') throw new PyJsonError("Expecting property name enclosed in double quotes", pos);
      const key = str();
      skip();
      if (text[pos] !== ":") throw new PyJsonError("Expecting ':' delimiter", pos);
      pos++;
      skip();
      obj[key] = value(depth + 1);
      skip();
      if (text[pos] === "}") {
        pos++;
        return obj;
      }
      if (text[pos] !== ",") throw new PyJsonError("Expecting ',' delimiter", pos);
      pos++;
      skip();
    }
  };
  const array = (depth: number): PyValue => {
    const arr: PyValue[] = [];
    pos++;
    skip();
    if (text[pos] === "]") {
      pos++;
      return arr;
    }
    for (;;) {
      arr.push(value(depth + 1));
      skip();
      if (text[pos] === "]") {
        pos++;
        return arr;
      }
      if (text[pos] !== ",") throw new PyJsonError("Expecting ',' delimiter", pos);
      pos++;
      skip();
    }
  };
  skip();
  const result = value(0);
  skip();
  if (pos !== text.length) throw new PyJsonError("Extra data", pos);
  return result;
}

const LITERALS: [string, PyValue][] = [
  ["null", null],
  ["true", true],
  ["false", false],
  ["NaN", new PyFloat(Number.NaN)],
  ["Infinity", new PyFloat(Number.POSITIVE_INFINITY)],
  ["-Infinity", new PyFloat(Number.NEGATIVE_INFINITY)],
];
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Python repr() of a short string, for error messages. */
function pyRepr(s: string): string {
  return s.includes("'") && !s.includes('"')
    ? `"${s}"`
    : `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Python float repr: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
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

function dumpString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else if (ensureAscii && c > 0x7f) {
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/**
 * Python `json.dumps(value, separators=(",", ":"), ensure_ascii=...)`: insertion key order, `/` not
 * escaped, control characters as lowercase `\u00XX`, integral JS numbers printed as ints.
 */
export function pyDumps(value: unknown, opts: { ensureAscii?: boolean } = {}): string {
  const ascii = opts.ensureAscii ?? false;
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number")
    return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value === "string") return dumpString(value, ascii);
  if (Array.isArray(value)) return `[${value.map((v) => pyDumps(v, opts)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${dumpString(k, ascii)}:${pyDumps(v, opts)}`).join(",")}}`;
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

/** Python `json.dumps(value, indent=2, sort_keys=...)` (ensure_ascii defaults to true, as in Python). */
export function pyDumpsIndented(
  value: unknown,
  opts: { sortKeys?: boolean; ensureAscii?: boolean } = {},
  depth = 0,
): string {
  const ascii = opts.ensureAscii ?? true;
  const pad = "  ".repeat(depth + 1);
  const end = "  ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => pad + pyDumpsIndented(v, opts, depth + 1)).join(",\n")}\n${end}]`;
  }
  if (value !== null && typeof value === "object" && !(value instanceof PyFloat)) {
    let entries = Object.entries(value as Record<string, unknown>);
    if (opts.sortKeys) entries = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) return "{}";
    const body = entries.map(
      ([k, v]) => `${pad}${dumpString(k, ascii)}: ${pyDumpsIndented(v, opts, depth + 1)}`,
    );
    return `{\n${body.join(",\n")}\n${end}}`;
  }
  return pyDumps(value, { ensureAscii: ascii });
}

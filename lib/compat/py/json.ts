// Python's json module: loads() keeping the int/float split (`1.0` and `1e2` are PyFloat, big ints
// stay exact as bigint, NaN/Infinity accepted) with Python's error texts, and dumps() with
// ensure_ascii, separators, indent and sort_keys. Objects parse to null-prototype records. Deliberately
// not here: str()/repr() (repr.ts) and `==` (value.ts). Imports only lib/compat/py, so gh replay stays light.
import { pyFloatRepr, pyNumber, pyRepr } from "./repr.ts";
import { codepointCompare, lineColumn } from "./text.ts";
import { PyFloat, type PyValue } from "./value.ts";

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

/** Python's text of a json.JSONDecodeError: `Expecting value: line 1 column 1 (char 0)`. */
export function pyJsonErrorText(error: PyJsonError, text: string): string {
  const { line, column } = lineColumn(text, error.pos);
  return `${error.msg}: line ${line} column ${column} (char ${error.pos})`;
}

/**
 * Where `text` (which JSON.parse refused) stops being JSON, in words that never quote it, e.g.
 * `Expecting value at line 1 column 5`: error messages about secret-bearing files must not echo them.
 */
export function jsonSyntaxWhere(text: string): string {
  try {
    parsePyJson(text);
  } catch (error) {
    if (error instanceof PyJsonError) {
      const { line, column } = lineColumn(text, error.pos);
      return `${error.msg.replace(/: .*$/s, "")} at line ${line} column ${column}`;
    }
  }
  return "NaN or Infinity is not JSON"; // the only texts Python accepts and JSON.parse refuses
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
      if (mapped === undefined)
        throw new PyJsonError(
          `Invalid \\escape: ${pyRepr(String.fromCodePoint(text.codePointAt(pos + 1)!))}`,
          pos,
        );
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

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A JSON string literal exactly as Python's json.dumps writes it (ensure_ascii also escapes DEL). */
export function pyJsonString(s: string, ensureAscii: boolean): string {
  const re = ensureAscii ? /[\\"\u0000-\u001f\u007f-\uffff]/g : /[\\"\u0000-\u001f]/g;
  return `"${s.replace(re, (ch) => SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/** Options of Python's json.dumps; defaults are Python's (ensure_ascii on, `", "`/`": "` separators). */
export interface PyJsonOptions {
  ensureAscii?: boolean;
  indent?: number;
  /** [item, key] separators; default `[", ", ": "]`, or `[",", ": "]` when indenting. */
  separators?: [string, string];
  /** Sort object keys by code point, as Python's sorted() of str keys. */
  sortKeys?: boolean;
}

/** A float as json.dumps writes it: repr digits, or NaN / Infinity / -Infinity. */
function jsonFloat(x: number): string {
  return Number.isFinite(x) ? pyFloatRepr(x) : x > 0 ? "Infinity" : x < 0 ? "-Infinity" : "NaN";
}

// Key order is insertion order, as in Python 3.7+; pass a Map where keys may look like integers
// (plain objects would reorder those). Integral JS numbers print as ints, PyFloat as floats.
/** Python json.dumps(value, ...) of a parsed value. */
export function pyJsonDumps(value: unknown, opts: PyJsonOptions = {}): string {
  const ensureAscii = opts.ensureAscii ?? true;
  const indent = opts.indent;
  const [itemSep, keySep] = opts.separators ?? (indent === undefined ? [", ", ": "] : [",", ": "]);
  const entries = (v: object): [string, unknown][] => {
    const all = v instanceof Map ? [...v.entries()] : Object.entries(v);
    return opts.sortKeys ? all.sort(([a], [b]) => codepointCompare(a, b)) : all;
  };
  const enc = (v: unknown, level: number): string => {
    if (v === null || v === undefined) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (v instanceof PyFloat) return jsonFloat(v.value);
    if (typeof v === "number") return Number.isFinite(v) ? pyNumber(v) : jsonFloat(v);
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "string") return pyJsonString(v, ensureAscii);
    const items: string[] = Array.isArray(v)
      ? v.map((x) => enc(x, level + 1))
      : entries(v).map(([k, x]) => `${pyJsonString(k, ensureAscii)}${keySep}${enc(x, level + 1)}`);
    const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
    if (items.length === 0) return open + close;
    if (indent === undefined) return open + items.join(itemSep) + close;
    const pad = `\n${" ".repeat(indent * (level + 1))}`;
    return `${open}${pad}${items.join(itemSep + pad)}\n${" ".repeat(indent * level)}${close}`;
  };
  return enc(value, 0);
}

// Byte-exact stand-ins for the few Python formatting functions gh_shim.py's outputs depend on:
// str() of JSON scalars, repr() of a list of strings, and json.dumps with its default escaping
// (ensure_ascii), separators and indent. Only the value shapes the shim handles are covered: JSON
// values parsed from cassettes and state files, never Python objects in general.

/** Python str() of a JSON scalar or value, as gh_shim.py coerces cassette argv items. */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pyNumber(value);
  if (Array.isArray(value)) return `[${value.map(pyReprValue).join(", ")}]`;
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${pyRepr(k)}: ${pyReprValue(v)}`,
    );
    return `{${parts.join(", ")}}`;
  }
  return String(value);
}

function pyReprValue(value: unknown): string {
  return typeof value === "string" ? pyRepr(value) : pyStr(value);
}

/**
 * A JSON number as Python prints it. JSON.parse cannot tell `1` from `1.0`, so integral values print
 * as Python ints (the common case in cassettes); other floats use the shortest round-trip digits.
 */
export function pyNumber(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (Number.isInteger(n)) return BigInt(n).toString();
  return String(n).replace(/e([+-])(\d)$/, "e$10$2"); // Python pads the exponent to two digits
}

// Characters Python's str.isprintable() rejects (besides the ASCII space, which is printable).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python repr() of a str: single quotes unless only double quotes avoid escaping. */
export function pyRepr(s: string): string {
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

/** Python repr() of a list of str, e.g. `['issue', 'list']`. */
export function pyReprList(items: readonly string[]): string {
  return `[${items.map(pyRepr).join(", ")}]`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A JSON string literal exactly as Python's json.dumps writes it. */
export function pyJsonString(s: string, ensureAscii: boolean): string {
  const re = ensureAscii ? /[\\"\u0000-\u001f\u007f-\uffff]/g : /[\\"\u0000-\u001f]/g;
  return `"${s.replace(re, (ch) => SHORT[ch] ?? `\\u${hex(ch.charCodeAt(0), 4)}`)}"`;
}

/** Options of Python's json.dumps that the shim uses. */
export interface PyJsonOptions {
  ensureAscii?: boolean;
  indent?: number;
  /** [item, key] separators; default `[", ", ": "]`, or `[",", ": "]` when indenting. */
  separators?: [string, string];
}

/**
 * Python json.dumps(value, ...) for JSON values. Key order is insertion order, as in Python 3.7+;
 * pass a Map where keys may look like integers (plain objects would reorder those).
 */
export function pyJsonDumps(value: unknown, opts: PyJsonOptions = {}): string {
  const ensureAscii = opts.ensureAscii ?? true;
  const indent = opts.indent;
  const [itemSep, keySep] = opts.separators ?? (indent === undefined ? [", ", ": "] : [",", ": "]);
  const enc = (v: unknown, level: number): string => {
    if (v === null || v === undefined) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "number")
      return Number.isFinite(v) ? pyNumber(v) : v > 0 ? "Infinity" : v < 0 ? "-Infinity" : "NaN";
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "string") return pyJsonString(v, ensureAscii);
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as Record<string, unknown>);
    const items: string[] = Array.isArray(v)
      ? v.map((x) => enc(x, level + 1))
      : entries.map(([k, x]) => `${pyJsonString(k, ensureAscii)}${keySep}${enc(x, level + 1)}`);
    const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
    if (items.length === 0) return open + close;
    if (indent === undefined) return open + items.join(itemSep) + close;
    const pad = `\n${" ".repeat(indent * (level + 1))}`;
    return `${open}${pad}${items.join(itemSep + pad)}\n${" ".repeat(indent * level)}${close}`;
  };
  return enc(value, 0);
}

/** str(pathlib.PurePosixPath(s)): repeated slashes and `.` segments collapse, a trailing slash goes. */
export function pyPath(s: string): string {
  const root = s.startsWith("//") && !s.startsWith("///") ? "//" : s.startsWith("/") ? "/" : "";
  const parts = s.split("/").filter((p) => p !== "" && p !== ".");
  return root + parts.join("/") || ".";
}

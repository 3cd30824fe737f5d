// The few Python behaviours grade.py's output depends on, over values from the Python-compatible
// JSON parser of lib/runlog.ts (floats are PyFloat, ints beyond 2^53 bigint): str() and repr()
// (labels, "unknown tool 'x'"), int() of expect_exit, truthiness of `x or default`, the type tests
// grade.py made, str.splitlines(), and OSError and json error text. No I/O.
import { PyFloat, type PyJsonError } from "../runlog.ts";

export { PyFloat, PyJsonError, parsePyJson } from "../runlog.ts";

/** True for a JSON object (a Python dict). */
export function isPyDict(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

/** True for a JSON int (Python `type(v) is int`): not a bool, not a float. */
export function isPyInt(v: unknown): v is number | bigint {
  return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
}

/** 1-based line and column of a character offset, as Python's json errors count them. */
export function lineColumn(text: string, pos: number): { line: number; column: number } {
  const before = text.slice(0, pos);
  return { line: (before.match(/\n/g)?.length ?? 0) + 1, column: pos - before.lastIndexOf("\n") };
}

/** Python's text of a json.JSONDecodeError: `Expecting value: line 1 column 1 (char 0)`. */
export function pyJsonErrorText(error: PyJsonError, text: string): string {
  const { line, column } = lineColumn(text, error.pos);
  return `${error.msg}: line ${line} column ${column} (char ${error.pos})`;
}

/** Python truthiness of a JSON value (`value or default`). */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === 0n || v === "") return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isPyDict(v)) return Object.keys(v).length > 0;
  return true;
}

function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x.toFixed(0)}.0`;
  return String(x).replace(/e([+-])(\d)$/, "e$10$2");
}

function numberStr(x: number): string {
  if (Number.isInteger(x)) return BigInt(x).toString();
  return floatRepr(x);
}

/** Python repr() of a JSON value. */
export function pyRepr(v: unknown): string {
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of v) {
      const c = ch.codePointAt(0)!;
      if (ch === "\\" || ch === quote) out += `\\${ch}`;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += `\\x${c.toString(16).padStart(2, "0")}`;
      else out += ch;
    }
    return `${quote}${out}${quote}`;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (isPyDict(v)) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  }
  return pyStr(v);
}

/** Python str() of a JSON value. */
export function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (typeof v === "number") return numberStr(v);
  if (typeof v === "bigint") return v.toString();
  return pyRepr(v);
}

/**
 * Python int() of expect_exit: ints as they are, bools as 0/1, floats truncated, strings of ASCII
 * digits (with sign, surrounding whitespace, `_` separators). Anything else, where grade.py crashed
 * with a traceback, returns null so the caller can fail that one assertion instead.
 */
export function pyInt(v: unknown): number | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  const n = v instanceof PyFloat ? v.value : typeof v === "bigint" ? Number(v) : v;
  if (typeof n === "number") return Number.isFinite(n) ? Math.trunc(n) + 0 : null;
  if (typeof n === "string" && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(n)) {
    return Number(n.trim().replaceAll("_", "")) + 0;
  }
  return null;
}

const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python str.splitlines(): no trailing empty line. */
export function pySplitlines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(LINE_BREAKS);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const ERRNO: Record<string, [number, string]> = {
  ENOENT: [2, "No such file or directory"],
  EACCES: [13, "Permission denied"],
  EISDIR: [21, "Is a directory"],
  ENOTDIR: [20, "Not a directory"],
  ELOOP: [40, "Too many levels of symbolic links"],
};

/** The text of a Python OSError for a Node fs error on `path`: `[Errno 2] No such file or directory: 'p'`. */
export function pyOSError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException)?.code ?? "";
  const known = ERRNO[code];
  if (known) return `[Errno ${known[0]}] ${known[1]}: ${pyRepr(path)}`;
  return `${code || "error"}: ${pyRepr(path)}`;
}

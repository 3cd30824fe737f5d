// Python str and path semantics the ported tools read and print text by: str.splitlines() and
// strip() boundaries, `\s`/`\d`/`\w` of Python's Unicode regexes, len() and slices in code points,
// sorted() order of str, str(PurePosixPath), a json error's line/column and an OSError's text.
// Deliberately not here: str()/repr() of values (repr.ts) and JSON (json.ts).
import { pyRepr } from "./repr.ts";

/** Python's `\s` (str.isspace) as a regex class body. */
export const PY_WS =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\s` for `u`-flag regexes. */
export const S = `[${PY_WS}]`;
/** Python's `\S` for `u`-flag regexes. */
export const NS = `[^${PY_WS}]`;
/** Python's `\d` (Unicode decimal digits) for `u`-flag regexes. */
export const D = "\\p{Nd}";
/** Python's `\w` for `u`-flag regexes. */
export const W = "[\\p{L}\\p{N}_]";

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
const STRIP_START = new RegExp(`^${S}+`, "u");
const STRIP_END = new RegExp(`${S}+$`, "u");

/** Python str.splitlines(): no trailing empty line after a final line break. */
export function splitlines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(LINE_BREAK);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Python str.strip() with no argument. */
export function strip(text: string): string {
  return text.replace(STRIP_START, "").replace(STRIP_END, "");
}

/** Python str.rstrip() with no argument. */
export function rstrip(text: string): string {
  return text.replace(STRIP_END, "");
}

/** Python len(): code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Python text[:n] in code points. */
export function pySlice(text: string, n: number): string {
  return Array.from(text).slice(0, n).join("");
}

/** Python's text-mode file read: universal newlines ("\r\n" and "\r" become "\n"). */
export function universalNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Python's str order (code points; plain `<` compares UTF-16 units), lone surrogates included. */
export function codepointCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** Python sorted() of str. */
export function pySorted(items: Iterable<string>): string[] {
  return [...items].sort(codepointCompare);
}

/** str(pathlib.PurePosixPath(s)): repeated slashes and `.` segments collapse, a trailing slash goes. */
export function pyPath(s: string): string {
  const root = s.startsWith("//") && !s.startsWith("///") ? "//" : s.startsWith("/") ? "/" : "";
  const parts = s.split("/").filter((p) => p !== "" && p !== ".");
  return root + parts.join("/") || ".";
}

/** 1-based line and column of a character offset, as Python's json errors count them. */
export function lineColumn(text: string, pos: number): { line: number; column: number } {
  const before = text.slice(0, pos);
  return { line: (before.match(/\n/g)?.length ?? 0) + 1, column: pos - before.lastIndexOf("\n") };
}

// Linux errno numbers and strerror texts, for the codes Node's fs reports.
const ERRNO: Record<string, [number, string]> = {
  EPERM: [1, "Operation not permitted"],
  ENOENT: [2, "No such file or directory"],
  EIO: [5, "Input/output error"],
  EACCES: [13, "Permission denied"],
  EEXIST: [17, "File exists"],
  ENOTDIR: [20, "Not a directory"],
  EISDIR: [21, "Is a directory"],
  ENOSPC: [28, "No space left on device"],
  EROFS: [30, "Read-only file system"],
  ELOOP: [40, "Too many levels of symbolic links"],
};

// An errno missing from ERRNO prints `CODE: 'path'` for a given path (the shown path, never Node's
// absolute one), else Node's own message.
/** Python's OSError text for a fs error: `[Errno 2] No such file or directory: 'p'` (path repr()'d). */
export function pyOSError(error: unknown, path?: string): string {
  const e = error as NodeJS.ErrnoException | undefined;
  const known = e?.code ? ERRNO[e.code] : undefined;
  if (!known && path !== undefined) return `${e?.code || "error"}: ${pyRepr(path)}`;
  if (!known) return e instanceof Error ? e.message : String(e);
  const file = path ?? e?.path;
  return `[Errno ${known[0]}] ${known[1]}${file === undefined ? "" : `: ${pyRepr(file)}`}`;
}

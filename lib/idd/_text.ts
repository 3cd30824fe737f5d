// Python str semantics the IDD rules depend on, so the TypeScript port reads text exactly as the
// original idd-lint.py did: str.splitlines() boundaries, str.strip() whitespace, `\s`/`\d`/`\w` of
// Python's Unicode regexes, and lengths in code points. Regex fragments are strings for `u` regexes.

/** Python's `\s` (str.isspace) as a regex class body. */
export const PY_WS =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's `\s`, `\S`, `\d`, `\w` for `u`-flag regexes. */
export const S = `[${PY_WS}]`;
export const NS = `[^${PY_WS}]`;
export const D = "\\p{Nd}";
export const W = "[\\p{L}\\p{N}_]";

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
const STRIP_START = new RegExp(`^${S}+`, "u");
const STRIP_END = new RegExp(`${S}+$`, "u");

/** Python str.splitlines(): no trailing empty line after a final line break. */
export function splitlines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(new RegExp(LINE_BREAK.source, "u"));
  if (LINE_BREAK.test(text.slice(-1))) lines.pop();
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

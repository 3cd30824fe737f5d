// A port of Python's shlex.split (POSIX mode, no comments), enough to read the one command string a
// legacy `shell` assertion carries. It splits; it never runs anything, and it knows no shell syntax
// beyond quoting: `$(...)`, `<` and `|` are ordinary characters here, as they are to shlex.

/** A string shlex.split rejects, with Python's message ("No closing quotation", "No escaped character"). */
export class ShlexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShlexError";
  }
}

const WHITESPACE = " \t\r\n";

/** Splits `s` the way `shlex.split(s)` does. */
export function shlexSplit(s: string): string[] {
  const tokens: string[] = [];
  let token = "";
  let inToken = false;
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (WHITESPACE.includes(ch)) {
      if (inToken) tokens.push(token);
      token = "";
      inToken = false;
      i++;
    } else if (ch === "\\") {
      if (i + 1 >= s.length) throw new ShlexError("No escaped character");
      token += s[i + 1];
      inToken = true;
      i += 2;
    } else if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new ShlexError("No closing quotation");
      token += s.slice(i + 1, end);
      inToken = true;
      i = end + 1;
    } else if (ch === '"') {
      inToken = true;
      i++;
      for (;;) {
        if (i >= s.length) throw new ShlexError("No closing quotation");
        const c = s[i]!;
        if (c === '"') {
          i++;
          break;
        }
        if (c === "\\") {
          if (i + 1 >= s.length) throw new ShlexError("No escaped character");
          const next = s[i + 1]!;
          // Inside double quotes a backslash escapes only `"` and `\`; before anything else it stays.
          token += next === '"' || next === "\\" ? next : `\\${next}`;
          i += 2;
        } else {
          token += c;
          i++;
        }
      }
    } else {
      token += ch;
      inToken = true;
      i++;
    }
  }
  if (inToken) tokens.push(token);
  return tokens;
}

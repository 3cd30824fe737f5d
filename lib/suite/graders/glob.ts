// The diff grader's globs, with Go's path.Match semantics (the original matched changed paths with
// it): `*` is any run of non-`/` characters, `?` one non-`/` character, `[...]` / `[^...]` a class
// with ranges, `\` escapes. A pattern is compiled once to a RegExp; a malformed one (an unclosed or
// empty class, a bad range, a trailing `\`) is refused when the task loads, never at grading time.

/** A malformed pattern: the reason, as one short phrase. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GlobError";
  }
}

const escapeChar = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** Reads one class character at `i` (a `\` escapes the next); throws on the end of the pattern. */
function classChar(p: string, i: number): { c: string; next: number } {
  if (i >= p.length) throw new GlobError("unclosed character class");
  if (p[i] === "\\") {
    if (i + 1 >= p.length) throw new GlobError("trailing backslash");
    return { c: p[i + 1]!, next: i + 2 };
  }
  if (p[i] === "-" || p[i] === "]") throw new GlobError("bad character range");
  return { c: p[i]!, next: i + 1 };
}

function compileClass(p: string, start: number): { source: string; next: number } {
  let i = start;
  let negate = false;
  if (p[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  while (first || p[i] !== "]") {
    if (i >= p.length) throw new GlobError("unclosed character class");
    first = false;
    const lo = classChar(p, i);
    i = lo.next;
    if (p[i] === "-") {
      const hi = classChar(p, i + 1);
      if (hi.c < lo.c) throw new GlobError("bad character range");
      body += `${escapeChar(lo.c)}-${escapeChar(hi.c)}`;
      i = hi.next;
    } else body += escapeChar(lo.c);
  }
  return { source: `[${negate ? "^" : ""}${body}]`, next: i + 1 };
}

/** `pattern` as an anchored RegExp; throws GlobError when it is malformed. */
export function compileGlob(pattern: string): RegExp {
  let source = "";
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "*") {
      source += "[^/]*";
      i++;
    } else if (c === "?") {
      source += "[^/]";
      i++;
    } else if (c === "[") {
      const cls = compileClass(pattern, i + 1);
      source += cls.source;
      i = cls.next;
    } else if (c === "\\") {
      if (i + 1 >= pattern.length) throw new GlobError("trailing backslash");
      source += escapeChar(pattern[i + 1]!);
      i += 2;
    } else {
      source += escapeChar(c);
      i++;
    }
  }
  return new RegExp(`^${source}$`, "su");
}

/** Why `pattern` is malformed, or null when it compiles. */
export function globProblem(pattern: string): string | null {
  try {
    compileGlob(pattern);
    return null;
  } catch (error) {
    if (error instanceof GlobError) return error.message;
    throw error;
  }
}

/** Each glob compiled once per process (a task's few globs meet every changed path of every trial). */
const COMPILED = new Map<string, RegExp>();

function compiledGlob(pattern: string): RegExp {
  let re = COMPILED.get(pattern);
  if (re === undefined) {
    re = compileGlob(pattern);
    COMPILED.set(pattern, re);
  }
  return re;
}

/**
 * True when some glob matches the slash-separated `path`: the whole path, or (for a glob with no
 * `/`) its last element, so `*_test.go` covers `pkg/a_test.go` as in the original.
 */
export function anyGlobMatches(globs: readonly string[], path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return globs.some((g) => {
    const re = compiledGlob(g);
    return re.test(path) || (!g.includes("/") && re.test(base));
  });
}

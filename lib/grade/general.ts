// The general grade tools beside grade.py's six: `file-contains` / `file-not-contains` (literal text or
// a regex, with counts), `file-equals` (byte for byte against a golden file in the case directory) and
// `json-path` (the value at a path equals a JSON value or matches a regex). Each reads its file under
// OUT through lib/core/confined.ts (no link at any component, never a FIFO, capped), the golden under
// the case directory the same way. A check that holds is got 0, one that does not is got 1; either
// way it says what it tested (types.ts Check), so a mismatch is one line, `✗ <label> — OUT/a.txt: want
// at least 1 match of "done", got 0`, with any excerpt under it, and a check that failed as expect_exit
// asked prints nothing beside its ✓. A file that cannot be read or a malformed assertion is a reason
// (fails whatever expect_exit says). generalProblem() is the shape rule `grade lint` applies too.
import { PyJsonError, parsePyJson, pyJsonErrorText } from "../compat/py/json.ts";
import { pyRepr } from "../compat/py/repr.ts";
import { readConfined } from "../core/confined.ts";
import { jsonAt, jsonEquals, parseJsonPath, showJson } from "./_json-path.ts";
import { caseFile, excerpt, outFile, type ReadText, readProblem, readText } from "./_read.ts";
import { GENERAL_TOOLS } from "./case.ts";
import type { GradeContext, GradeHandler, ToolOutcome } from "./types.ts";

/** The regex flags of every pattern: ^ and $ match at line ends, every match counted. */
export const REGEX_FLAGS = "gm";

/** A problem with an assertion's own fields: the field and what was expected, or null. */
export interface FieldProblem {
  field: string;
  message: string;
}

function regexProblem(a: Record<string, unknown>, field: string): FieldProblem | null {
  if (typeof a[field] !== "string") return null;
  try {
    new RegExp(a[field] as string, REGEX_FLAGS);
    return null;
  } catch (error) {
    return { field, message: `expected a valid regular expression: ${(error as Error).message}` };
  }
}

function pathProblem(a: Record<string, unknown>, field: string, root: string): FieldProblem | null {
  const v = a[field];
  if (typeof v !== "string" || v === "") return null;
  const rel = field === "file" ? v.replace(/^OUT\//, "") : v;
  if (rel.startsWith("/") || rel.split("/").includes(".."))
    return { field, message: `expected a path under ${root} without "..", got ${pyRepr(v)}` };
  return null;
}

type Field = [name: string, kind: "string" | "count", required: boolean];
const NEEDLE: Field[] = [
  ["file", "string", true],
  ["text", "string", false],
  ["regex", "string", false],
];

/** The fields each general file tool reads, and what each must be (grade does not run the schema). */
const FIELDS: Record<string, Field[]> = {
  "file-contains": [...NEEDLE, ["count", "count", false], ["min_count", "count", false]],
  "file-not-contains": NEEDLE,
  "file-equals": [
    ["file", "string", true],
    ["golden", "string", true],
  ],
  "json-path": [
    ["file", "string", true],
    ["path", "string", true],
    ["matches", "string", false],
  ],
};

function typeProblem(a: Record<string, unknown>): FieldProblem | null {
  for (const [field, kind, required] of FIELDS[String(a.tool)] ?? []) {
    const v = a[field];
    if (v === undefined && !required) continue;
    if (kind === "string" && (typeof v !== "string" || (v === "" && field !== "path")))
      return {
        field,
        message: `expected a non-empty string, got ${v === undefined ? "nothing" : pyRepr(v)}`,
      };
    if (kind === "count" && !(typeof v === "number" && Number.isInteger(v) && v >= 0))
      return { field, message: `expected an integer >= 0, got ${pyRepr(v)}` };
  }
  return null;
}

/**
 * What is wrong with a general assertion beyond its types (which the zod schema checks): a path
 * leaving OUT or the case directory, a regex that does not compile, text and regex both or neither,
 * equals and matches both or neither, a json-path that does not parse. Null when nothing is.
 */
export function generalProblem(a: Record<string, unknown>): FieldProblem | null {
  const tool = a.tool;
  if (!(GENERAL_TOOLS as readonly unknown[]).includes(tool)) return null;
  if (tool === "command") {
    for (const f of ["stdout_matches", "stderr_matches"]) {
      const p = regexProblem(a, f);
      if (p) return p;
    }
    return null;
  }
  const t = typeProblem(a);
  if (t) return t;
  const p = pathProblem(a, "file", "OUT") ?? pathProblem(a, "golden", "the case directory");
  if (p) return p;
  if (tool === "file-contains" || tool === "file-not-contains") {
    if ((a.text === undefined) === (a.regex === undefined))
      return { field: "text", message: "expected exactly one of text, regex" };
    if (tool === "file-contains" && a.count !== undefined && a.min_count !== undefined)
      return { field: "count", message: "expected count or min_count, not both" };
    return regexProblem(a, "regex");
  }
  if (tool === "json-path") {
    if ((a.equals === undefined) === (a.matches === undefined))
      return { field: "equals", message: "expected exactly one of equals, matches" };
    if (typeof a.path === "string" && parseJsonPath(a.path) === null)
      return { field: "path", message: `expected a path like "a.b[0].c", got ${pyRepr(a.path)}` };
    return regexProblem(a, "matches");
  }
  return null;
}

const fail = (reason: string): ToolOutcome => ({ got: null, reason, output: [] });

type Text = Extract<ReadText, { ok: true }>;

/** The assertion's OUT file as text, or the outcome that fails it (a malformed assertion, a bad read). */
function opened(a: Record<string, unknown>, ctx: GradeContext, binary = false): Text | ToolOutcome {
  const p = generalProblem(a);
  if (p) return fail(`${p.field}: ${p.message}`);
  const read = readText(outFile(a.file, ctx), ctx, binary);
  return read.ok ? read : fail(read.reason);
}

const isOutcome = (r: Text | ToolOutcome): r is ToolOutcome => !("text" in r);

/** Occurrences of the assertion's text or regex in `text`, and the line of the first. */
function occurrences(a: Record<string, unknown>, text: string): { n: number; firstLine: number | null } {
  let n = 0;
  let first = -1;
  if (typeof a.regex === "string") {
    for (const m of text.matchAll(new RegExp(a.regex, REGEX_FLAGS))) {
      if (first < 0) first = m.index;
      n++;
    }
  } else {
    const needle = String(a.text);
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) {
      if (first < 0) first = i;
      n++;
    }
  }
  return { n, firstLine: first < 0 ? null : text.slice(0, first).split("\n").length };
}

function what(a: Record<string, unknown>): string {
  return typeof a.regex === "string" ? `/${a.regex}/` : JSON.stringify(a.text);
}

/** `2 (first at line 4)`: a count, and where the first one is. */
function counted(n: number, firstLine: number | null): string {
  return `${n}${firstLine === null ? "" : ` (first at line ${firstLine})`}`;
}

const matches = (n: number) => (n === 1 ? "match" : "matches");

/** `file-contains`: got 0 when the text or regex occurs `count` times (default: at least min_count, 1). */
export const fileContainsTool: GradeHandler = async (a, ctx) => {
  const read = opened(a, ctx);
  if (isOutcome(read)) return read;
  const { n, firstLine } = occurrences(a, read.text);
  const exact = typeof a.count === "number" ? a.count : null;
  const min = typeof a.min_count === "number" ? a.min_count : 1;
  const ok = exact !== null ? n === exact : n >= min;
  const of = `of ${what(a)}`;
  const check = {
    where: read.shown,
    want:
      exact !== null ? `exactly ${exact} ${matches(exact)} ${of}` : `at least ${min} ${matches(min)} ${of}`,
    wantNot:
      exact !== null
        ? `other than ${exact} ${matches(exact)} ${of}`
        : min === 1
          ? `no match ${of}`
          : `fewer than ${min} ${matches(min)} ${of}`,
    got: counted(n, firstLine),
  };
  return { got: ok ? 0 : 1, output: [], check };
};

/** `file-not-contains`: got 0 when the text or regex does not occur at all. */
export const fileNotContainsTool: GradeHandler = async (a, ctx) => {
  const read = opened(a, ctx);
  if (isOutcome(read)) return read;
  const { n, firstLine } = occurrences(a, read.text);
  const check = {
    where: read.shown,
    want: `no match of ${what(a)}`,
    wantNot: `a match of ${what(a)}`,
    got: counted(n, firstLine),
  };
  if (n === 0) return { got: 0, output: [], check };
  return { got: 1, output: [`line ${firstLine}: ${excerpt(read.text, firstLine ?? 1)}`], check };
};

/** `file-equals`: got 0 when the OUT file's bytes equal the golden file's (under the case directory). */
export const fileEqualsTool: GradeHandler = async (a, ctx) => {
  const got = opened(a, ctx, true);
  if (isOutcome(got)) return got;
  if (!ctx.caseDir) return fail("file-equals needs the case directory");
  const golden = caseFile(a.golden, ctx.caseDir);
  let want: Buffer;
  try {
    want = readConfined(ctx.caseDir, golden.rel, { maxBytes: ctx.maxFileBytes });
  } catch (error) {
    return fail(readProblem(error, `golden ${golden.shown}`));
  }
  const terms = {
    where: got.shown,
    want: `the bytes of ${golden.shown}`,
    wantNot: `other bytes than ${golden.shown}`,
  };
  if (want.equals(got.bytes)) return { got: 0, output: [], check: { ...terms, got: "the same bytes" } };
  const w = want.toString("utf8").split("\n");
  const g = got.text.split("\n");
  let i = 0;
  while (i < w.length && i < g.length && w[i] === g[i]) i++;
  return {
    got: 1,
    output: [
      `  want: ${i < w.length ? JSON.stringify(w[i]) : "(end of file)"}`,
      `  got:  ${i < g.length ? JSON.stringify(g[i]) : "(end of file)"}`,
    ],
    check: { ...terms, got: `a difference at line ${i + 1}` },
  };
};

/** `json-path`: got 0 when the value at `path` equals `equals` or is a string matching `matches`. */
export const jsonPathTool: GradeHandler = async (a, ctx) => {
  const read = opened(a, ctx);
  if (isOutcome(read)) return read;
  let doc: unknown;
  try {
    doc = parsePyJson(read.text);
  } catch (error) {
    if (error instanceof PyJsonError) return fail(`${read.shown}: ${pyJsonErrorText(error, read.text)}`);
    throw error;
  }
  const path = String(a.path);
  const found = jsonAt(doc, parseJsonPath(path) ?? []);
  const where = `${read.shown} at ${path}`;
  const terms =
    typeof a.matches === "string"
      ? {
          where,
          want: `a string matching /${a.matches}/`,
          wantNot: `anything but a string matching /${a.matches}/`,
        }
      : { where, want: showJson(a.equals), wantNot: `anything but ${showJson(a.equals)}` };
  if (!found.ok) return { got: 1, output: [], check: { ...terms, got: `no value (${found.why})` } };
  const ok =
    typeof a.matches === "string"
      ? typeof found.value === "string" && new RegExp(a.matches, REGEX_FLAGS).test(found.value)
      : jsonEquals(found.value, a.equals);
  return { got: ok ? 0 : 1, output: [], check: { ...terms, got: showJson(found.value) } };
};

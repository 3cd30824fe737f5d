// The case.json format of the hermetic lane: one zod schema for a good case (what `grade lint` and
// schemas/case.schema.json hold cases to), and loadCase(), which reads a case as leniently as
// grade.py did: only what grading needs (an object with a non-empty grade list) is a load error;
// a bad assertion is graded as a failed line, not refused here. case.json is read capped and never
// from a FIFO; a parse error names the file, the line and the column (nesting is bounded, no stack
// overflow).
import { closeSync, constants, fstatSync, openSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { PyJsonError, parsePyJson } from "../compat/py/json.ts";
import { pyRepr, pyStr } from "../compat/py/repr.ts";
import { lineColumn } from "../compat/py/text.ts";
import { isPyDict, pyTruthy } from "../compat/py/value.ts";
import { ConfigError } from "../core/errors.ts";
import { readAt } from "../core/fsx.ts";

/** The six grade tools of grade.py, in its GRADE_HANDLERS order. */
export const IDD_TOOLS = [
  "idd-lint",
  "gi-runlog-echo",
  "file-exists",
  "red-green",
  "shell",
  "gh-calls",
] as const;

/** The general tools beside them (lib/grade/general.ts, lib/grade/command.ts). */
export const GENERAL_TOOLS = [
  "file-contains",
  "file-not-contains",
  "file-equals",
  "json-path",
  "command",
] as const;

/** Every tool a grade assertion may name. */
export const CASE_TOOLS = [...IDD_TOOLS, ...GENERAL_TOOLS] as const;
export type CaseTool = (typeof CASE_TOOLS)[number];

const common = {
  expect_exit: z.number().int().optional().describe("the exit code the tool must return (default 0)"),
  label: z.string().min(1).describe("the line printed for this assertion; unique within the case"),
};
const outPath = z.string().min(1).describe("an artifact path; OUT stands for the artifact directory");
const count = z.number().int().min(0);
const regex = z.string().min(1).describe("a JavaScript regular expression; ^ and $ match at line ends");
const needle = {
  text: z.string().min(1).optional().describe("the literal text to look for (this or regex)"),
  regex: regex.optional().describe("the pattern to look for (this or text)"),
};

/** One grade assertion. */
export const Assertion = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("idd-lint"), args: z.array(z.string()).min(1), ...common }).strict(),
  z.object({ tool: z.literal("gi-runlog-echo"), file: outPath, ...common }).strict(),
  z
    .object({
      tool: z.literal("file-exists"),
      file: outPath.optional(),
      args: z.array(z.string()).min(1).optional(),
      ...common,
    })
    .strict(),
  z.object({ tool: z.literal("red-green"), file: outPath, ...common }).strict(),
  z
    .object({
      tool: z.literal("shell"),
      args: z.tuple([z.string()]).describe("one allowlisted idd-lint command string; never run by a shell"),
      ...common,
    })
    .strict(),
  z
    .object({
      tool: z.literal("gh-calls"),
      file: outPath.optional().describe("the call log (default OUT/gh-calls.jsonl)"),
      expect_count: count.optional().describe("exact number of calls"),
      expect_by_command: z
        .record(z.string(), count)
        .optional()
        .describe('calls per "argv[0] argv[1]"; 0 = absent'),
      expect_argv: z.array(z.array(z.string())).optional().describe("the whole normalized argv sequence"),
      ...common,
    })
    .strict(),
  z
    .object({
      tool: z.literal("file-contains"),
      file: outPath,
      ...needle,
      count: count.optional().describe("exactly this many occurrences (default: at least min_count)"),
      min_count: count.optional().describe("at least this many occurrences (default 1)"),
      ...common,
    })
    .strict(),
  z.object({ tool: z.literal("file-not-contains"), file: outPath, ...needle, ...common }).strict(),
  z
    .object({
      tool: z.literal("file-equals"),
      file: outPath,
      golden: z
        .string()
        .min(1)
        .describe("the expected file, relative to the case directory (e.g. expected/a.md)"),
      ...common,
    })
    .strict(),
  z
    .object({
      tool: z.literal("json-path"),
      file: outPath,
      path: z.string().describe('where the value is: "a.b[0].c" ("" or "$" is the whole document)'),
      equals: z.unknown().optional().describe("the value must equal this JSON value (this or matches)"),
      matches: regex.optional().describe("the value must be a string matching this (this or equals)"),
      ...common,
    })
    .strict(),
  z
    .object({
      tool: z.literal("command"),
      run: z
        .string()
        .min(1)
        .describe("a bash command run in the subject's sandbox with OUT as its directory"),
      stdout_contains: z.string().optional().describe("literal text its stdout must contain"),
      stdout_matches: regex.optional().describe("a pattern its stdout must match"),
      stderr_contains: z.string().optional().describe("literal text its stderr must contain"),
      stderr_matches: regex.optional().describe("a pattern its stderr must match"),
      ...common,
    })
    .strict(),
]);
export type Assertion = z.infer<typeof Assertion>;

/** A case.json file. Existing cases carry no version; a versioned one says 1. */
export const Case = z
  .object({
    version: z.literal(1).optional(),
    name: z
      .string()
      .min(1)
      .optional()
      .describe('"<skill>/<case>", the case directory relative to the cases root'),
    skill: z.string().min(1).optional().describe("the skill under test: the case's parent directory"),
    prompt: z.string().min(1).optional().describe("what the skill is asked; metadata only"),
    repo_scripts: z
      .array(z.string())
      .optional()
      .describe(
        "repository files the subject may run: src/shared/scripts/<name>.py, or any file under run-eval --scripts-root DIR",
      ),
    grade: z.array(Assertion).min(1),
    human_review: z
      .looseObject({
        criteria: z.array(z.string()).optional(),
        feedback: z.string().optional(),
        scope: z.string().optional(),
      })
      .optional()
      .describe("notes for a human reviewer; ignored by grade"),
  })
  .strict();
export type Case = z.infer<typeof Case>;

/** The JSON Schema committed as schemas/case.schema.json. */
export function caseJsonSchema(): unknown {
  return z.toJSONSchema(Case);
}

/** A case as grading reads it: the raw object, its printed name and its grade list. */
export interface LoadedCase {
  /** Absolute path of case.json. */
  path: string;
  /** Absolute case directory. */
  dir: string;
  /** case.name, else the directory's name. */
  name: string;
  data: Record<string, unknown>;
  grade: unknown[];
}

/** The largest case.json read (real ones are a few KiB). */
export const MAX_CASE_BYTES = 4 * 1024 * 1024;

/** Reads a regular file (a link is followed: the case is the user's) without blocking, capped. */
function readCaseBytes(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error("not a regular file");
    if (st.size > MAX_CASE_BYTES) throw new Error(`larger than ${MAX_CASE_BYTES} bytes`);
    return readAt(fd, 0, st.size);
  } finally {
    closeSync(fd);
  }
}

/** Reads and parses case.json under `dir`; throws ConfigError (missing, not JSON, not an object). */
export function readCaseJson(dir: string): { path: string; dir: string; data: Record<string, unknown> } {
  let abs = resolve(dir);
  try {
    abs = realpathSync(abs);
  } catch {
    // a missing directory: reported as a missing case.json below
  }
  const path = join(abs, "case.json");
  let kind: "file" | "other" | "missing" = "missing";
  try {
    kind = statSync(path).isFile() ? "file" : "other";
  } catch {
    kind = "missing";
  }
  if (kind === "missing") throw new ConfigError(`missing case.json: ${path}`);
  if (kind === "other") throw new ConfigError(`Cannot read case "${path}": not a regular file`);
  let data: unknown;
  let text = "";
  try {
    const bytes = readCaseBytes(path);
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    data = parsePyJson(text);
  } catch (error) {
    if (error instanceof PyJsonError) {
      const { line, column } = lineColumn(text, error.pos);
      throw new ConfigError(`Cannot parse case "${path}": ${error.msg} at line ${line} column ${column}`);
    }
    if (error instanceof TypeError) throw new ConfigError(`Cannot read case "${path}": not valid UTF-8`);
    throw new ConfigError(`Cannot read case "${path}": ${(error as Error).message}`, { cause: error });
  }
  if (!isPyDict(data))
    throw new ConfigError(`Cannot load case "${path}": expected an object at the top level`);
  return { path, dir: abs, data };
}

/**
 * Loads the case in `dir` for grading. Throws ConfigError naming the file and the field when the case
 * is unusable: missing case.json, malformed JSON, a version other than 1, no non-empty grade list.
 */
export function loadCase(dir: string): LoadedCase {
  const { path, dir: abs, data } = readCaseJson(dir);
  if (data.version !== undefined && data.version !== 1) {
    throw new ConfigError(`Cannot load case "${path}": expected 1 at version, got ${pyRepr(data.version)}`);
  }
  const name = pyTruthy(data.name) ? pyStr(data.name) : basename(abs);
  const grade = pyTruthy(data.grade) ? data.grade : [];
  if (!Array.isArray(grade) || grade.length === 0)
    throw new ConfigError(`case ${name}: grade section missing or empty`);
  return { path, dir: abs, name, data, grade };
}

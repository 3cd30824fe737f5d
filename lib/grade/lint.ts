// `grade lint`: the acceptance rules of a good case (test-357 T1 and more), as findings that each
// name the file, the field path and what was expected. The zod schema in lib/grade/case.ts does the
// typing; this adds the rules no schema can say: name and skill against the directory, unique labels,
// OUT paths, allowlisted shell shapes, an expectation per gh-calls, and one assertion that expects failure.
import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { z } from "zod";
import { pyRepr } from "../compat/py/repr.ts";
import { isPyDict, PyFloat, pyInt } from "../compat/py/value.ts";
import { keysAt } from "../core/schema-keys.ts";
import { closest } from "../core/suggest.ts";
import { CASE_TOOLS, Case, IDD_TOOLS, readCaseJson } from "./case.ts";
import { generalProblem } from "./general.ts";
import { shellShapeProblem } from "./idd.ts";
import { OUT_PATH_RE } from "./out.ts";
import { repoScriptAllowed, repoScriptsWanted } from "./repo-scripts.ts";
import type { LintFinding, LintReport } from "./result.ts";

type Path = (string | number)[];

/** `grade[2].expect_exit`, `grade[0].expect_by_command["issue view"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(p))) out += out ? `.${String(p)}` : String(p);
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

function at(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur = data;
  for (const p of path)
    cur = isPyDict(cur) || Array.isArray(cur) ? (cur as Record<PropertyKey, unknown>)[p] : undefined;
  return cur;
}

/** Plain numbers for zod; integral float literals (1.0), which zod would take for ints, are noted. */
function unfloat(v: unknown, path: Path, floats: Path[]): unknown {
  if (v instanceof PyFloat) {
    if (Number.isInteger(v.value)) floats.push(path);
    return v.value;
  }
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map((x, i) => unfloat(x, [...path, i], floats));
  if (isPyDict(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(out, k, {
        value: unfloat(x, [...path, k], floats),
        enumerable: true,
        writable: true,
      });
    }
    return out;
  }
  return v;
}

const TYPE_WORDS: Record<string, string> = {
  number: "an integer",
  int: "an integer",
  string: "a string",
  array: "a list",
  object: "an object",
  boolean: "a boolean",
};

function issueMessage(issue: z.core.$ZodIssue, data: unknown): string {
  const got = at(data, issue.path);
  switch (issue.code) {
    case "invalid_type": {
      const what = TYPE_WORDS[issue.expected] ?? issue.expected;
      return `expected ${what}, got ${got === undefined ? "nothing" : pyRepr(got)}`;
    }
    case "invalid_union": {
      const near = typeof got === "string" ? closest(got, CASE_TOOLS) : undefined;
      const hint = near ? ` (did you mean ${JSON.stringify(near)}?)` : "";
      return `expected one of ${CASE_TOOLS.join(", ")}, got ${got === undefined ? "nothing" : pyRepr(got)}${hint}`;
    }
    case "too_small":
      if (issue.origin === "string") return "expected a non-empty string";
      if (issue.origin === "array") return "expected a non-empty list";
      return `expected a number >= ${String(issue.minimum)}`;
    case "too_big":
      return issue.origin === "array" ? "expected exactly one command string" : issue.message;
    case "invalid_value":
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}, got ${pyRepr(got)}`;
    default:
      return issue.message.replace(/^Invalid input: /, "");
  }
}

function outTokens(value: string): string[] {
  return [...value.matchAll(/(?<![A-Za-z0-9_])OUT(?=\/|$|[^A-Za-z0-9_])[^\s"'()<>;|&$`]*/g)].map((m) => m[0]);
}

function assertionRules(
  a: Record<string, unknown>,
  i: number,
  add: (path: Path, message: string, unlessFound?: boolean) => void,
): void {
  const strings: [Path, string][] = [];
  if (typeof a.file === "string" && isIddTool(a.tool)) strings.push([["grade", i, "file"], a.file]);
  if (Array.isArray(a.args)) {
    for (const [k, x] of a.args.entries())
      if (typeof x === "string") strings.push([["grade", i, "args", k], x]);
  }
  for (const [path, value] of strings) {
    for (const token of outTokens(value)) {
      if (!OUT_PATH_RE.test(token) || token.split("/").includes("..")) {
        add(path, `expected OUT paths matching OUT/[A-Za-z0-9._/-]+ without "..", got ${pyRepr(token)}`);
      }
    }
  }
  if (a.tool === "shell" && Array.isArray(a.args) && a.args.length === 1 && typeof a.args[0] === "string") {
    const problem = shellShapeProblem(a.args[0]);
    if (problem) add(["grade", i, "args", 0], `expected an allowlisted idd-lint command: ${problem}`);
  }
  if (
    a.tool === "gh-calls" &&
    a.expect_count == null &&
    a.expect_by_command == null &&
    a.expect_argv == null
  ) {
    add(["grade", i], "expected at least one of expect_count, expect_by_command, expect_argv");
  }
  if (a.tool === "file-exists" && a.file === undefined && a.args === undefined) {
    add(["grade", i, "file"], "expected the file to check (file, or args[0])");
  }
  const general = generalProblem(a);
  if (general) add(["grade", i, general.field], general.message, true);
}

function isIddTool(tool: unknown): boolean {
  return (IDD_TOOLS as readonly unknown[]).includes(tool);
}

/**
 * What run-eval refuses before any subject starts: the findings about the grade assertions themselves
 * (unknown tool, unknown key, wrong type, a malformed assertion), not the authoring rules (a label,
 * missing or repeated, is printed for you as grade.py did; name, skill, an assertion that expects
 * failure). Throws ConfigError when case.json cannot be read.
 */
export function assertionFindings(dir: string): LintFinding[] {
  return lintCase(dir).findings.filter((f) => f.runEval === "refuses" && /^grade\[\d+\]/.test(f.path));
}

/**
 * Whether run-eval refuses a case for a finding at `path` (the one list of what a case needs: its
 * grade assertions, repo_scripts, version, a grade list; and subject.sh, added as such), or runs it anyway: the
 * authoring rules (name and skill against the folders, labels, one assertion that expects failure,
 * keys run-eval does not read).
 */
function refusedAt(path: string): LintFinding["runEval"] {
  if (/^grade\[\d+\]\.label$/.test(path)) return "runs";
  return /^(grade(\[|$)|repo_scripts|version$)/.test(path) ? "refuses" : "runs";
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What `grade lint` is told of the run: the --scripts-root run-eval will be given, if any. */
export interface LintOptions {
  scriptsRoot?: string;
}

/** Lints the case in `dir`; throws ConfigError when it cannot be read as a JSON object. */
export function lintCase(dir: string, opts: LintOptions = {}): LintReport {
  const { path: file, dir: abs, data } = readCaseJson(dir);
  const findings: LintFinding[] = [];
  // `unlessFound`: a rule that repeats what the schema already said about the field adds nothing
  const add = (
    path: readonly PropertyKey[],
    message: string,
    unlessFound = false,
    runEval?: LintFinding["runEval"],
  ) => {
    const at = formatPath(path);
    if (!unlessFound || !findings.some((f) => f.path === at))
      findings.push({ file, path: at, message, runEval: runEval ?? refusedAt(at) });
  };
  const floats: Path[] = [];
  const plain = unfloat(data, [], floats) as Record<string, unknown>;
  const parsed = Case.safeParse(plain);
  const issues = parsed.success ? [] : parsed.error.issues;
  for (const path of floats) {
    const p = formatPath(path);
    if (!issues.some((i) => formatPath(i.path) === p))
      add(path, `expected an integer, got ${pyRepr(at(data, path))} (a float)`);
  }
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const near = closest(key, keysAt(Case, issue.path, plain));
        add([...issue.path, key], near ? `unknown field: did you mean ${near}?` : "unknown field");
      }
    } else {
      add(issue.path, issueMessage(issue, plain));
    }
  }
  const parent = basename(dirname(abs));
  const here = basename(abs);
  if (typeof plain.name === "string" && plain.name !== `${parent}/${here}`) {
    add(
      ["name"],
      `expected ${JSON.stringify(`${parent}/${here}`)} (<parent dir>/<dir>), got ${JSON.stringify(plain.name)}`,
    );
  }
  if (typeof plain.skill === "string" && plain.skill !== parent) {
    add(["skill"], `expected ${JSON.stringify(parent)} (the parent dir), got ${JSON.stringify(plain.skill)}`);
  }
  const grade = Array.isArray(plain.grade) ? plain.grade : [];
  const labels = new Map<string, number>();
  for (const [i, a] of grade.entries()) {
    if (!isPyDict(a)) continue;
    assertionRules(a, i, add);
    if (typeof a.label === "string" && a.label !== "") {
      const first = labels.get(a.label);
      if (first === undefined) labels.set(a.label, i);
      else
        add(
          ["grade", i, "label"],
          `expected a unique label, ${JSON.stringify(a.label)} is also grade[${first}].label`,
        );
    }
  }
  const expectsFailure = grade.some((a) => isPyDict(a) && (pyInt(a.expect_exit) ?? 0) !== 0);
  if (grade.length > 0 && !expectsFailure) {
    add(
      ["grade"],
      "expected at least one assertion with expect_exit != 0 (a case that can only pass is not an eval)",
      false,
      "runs",
    );
  }
  // What run-eval needs beside case.json: the subject it runs, and repo_scripts entries of the rule
  // it holds them to (lib/grade/repo-scripts.ts; the files are checked against the repository then).
  if (!isFile(join(abs, "subject.sh")))
    add([], "expected subject.sh beside case.json (the subject run-eval runs)", false, "refuses");
  if (Array.isArray(plain.repo_scripts))
    for (const [i, entry] of plain.repo_scripts.entries())
      if (typeof entry === "string" && !repoScriptAllowed(entry, opts.scriptsRoot))
        add(["repo_scripts", i], `expected ${repoScriptsWanted(opts.scriptsRoot)}, got ${pyRepr(entry)}`);
  return { version: 1, file, ok: findings.length === 0, findings };
}

/** One finding as a line: `<file>: <path>: <what was expected>`. */
export function findingLine(f: LintFinding): string {
  return f.path ? `${f.file}: ${f.path}: ${f.message}` : `${f.file}: ${f.message}`;
}

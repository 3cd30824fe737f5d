// Grades one case: loads it (lib/grade/case.ts), runs each assertion through HANDLERS (grade.py's six and the general tools) and compares
// the tool's exit with expect_exit, exactly as grade.py's _grade_one did. Bad assertions (not an
// object, unknown tool, expect_exit that int() refuses) are failed lines and grading goes on.
// It prints nothing; lib/grade/render.ts turns the GradeResult into grade.py's text.
import { resolve } from "node:path";
import { pyRepr, pyStr } from "../compat/py/repr.ts";
import { isPyDict, pyInt, pyTruthy } from "../compat/py/value.ts";
import { messageOf } from "../core/errors.ts";
import { realpathOr } from "../core/fsx.ts";
import { loadCase } from "./case.ts";
import { HANDLERS, isGradeTool } from "./handlers.ts";
import type { AssertionResult, GradeResult } from "./result.ts";
import type { Check, GradeContext, ToolOutcome } from "./types.ts";

/** Where the rule-pack calls run and relative paths are read from. */
export interface GradeOptions {
  /** grade.py's repo root: default $REPO_ROOT, else the current directory. */
  repoRoot?: string;
  /** The directory relative non-OUT paths are read from (default: the current directory). */
  cwd?: string;
  /** The cap on every file an assertion reads (default lib/grade/out.ts MAX_FILE_BYTES). */
  maxFileBytes?: number;
  /** Runs a `command` assertion sandboxed, with OUT as its directory (lib/grade/command.ts). */
  exec?: GradeContext["exec"];
}

/** Grades one assertion in `ctx`. */
export async function gradeAssertion(
  assertion: unknown,
  index: number,
  ctx: GradeContext,
): Promise<AssertionResult> {
  if (!isPyDict(assertion)) {
    return {
      index,
      label: null,
      tool: null,
      ok: false,
      want: null,
      got: null,
      reason: "non-object grade assertion",
      output: [],
    };
  }
  const tool = assertion.tool;
  const rawExit = "expect_exit" in assertion ? assertion.expect_exit : 0;
  const want = pyInt(rawExit);
  const label = pyTruthy(assertion.label)
    ? pyStr(assertion.label)
    : `${pyStr(tool)} expect_exit=${want ?? pyStr(rawExit)}`;
  const base = { index, label, tool: typeof tool === "string" ? tool : null };
  const failed = (reason: string, output: string[] = []): AssertionResult => ({
    ...base,
    ok: false,
    want,
    got: null,
    reason,
    output,
  });
  if (want === null) return failed(`expect_exit must be an integer, got ${pyRepr(rawExit)}`);
  if (!isGradeTool(tool)) return failed(`unknown tool ${pyRepr(tool)}`);
  let outcome: ToolOutcome;
  try {
    outcome = await HANDLERS[tool](assertion, ctx);
  } catch (error) {
    // grade.py would have died with a traceback here (say, an unreadable file); fail this line instead.
    return failed(`grading tool failed: ${messageOf(error)}`);
  }
  if (outcome.reason !== undefined) return failed(outcome.reason, outcome.output);
  const ok = outcome.got === want;
  // A general check says what it wanted and got in its verdict line; its lines only when it fails.
  if (outcome.check)
    return ok
      ? { ...base, ok, want, got: outcome.got, reason: null, output: [] }
      : {
          ...base,
          ok,
          want,
          got: outcome.got,
          reason: checkLine(outcome.check, want),
          output: outcome.output,
        };
  return { ...base, ok, want, got: outcome.got, reason: null, output: outcome.output };
}

/** `OUT/a.txt: want at least 1 match of "done", got 0`; under expect_exit 1 the opposite is wanted. */
export function checkLine(check: Check, want: number): string {
  if (want === 0) return `${check.where}: want ${check.want}, got ${check.got}`;
  if (want === 1) return `${check.where}: want ${check.wantNot} (expect_exit 1), got ${check.got}`;
  return `${check.where}: expect_exit ${want} never matches: this check gives 0 (it holds) or 1 (it does not)`;
}

/** Grades the case in `caseDir` against the artifacts in `outDir`; throws ConfigError for an unusable case. */
export async function gradeCase(
  caseDir: string,
  outDir: string,
  opts: GradeOptions = {},
): Promise<GradeResult> {
  const loaded = loadCase(caseDir);
  const repoRoot = opts.repoRoot || process.env.REPO_ROOT || process.cwd();
  const ctx: GradeContext = {
    outDir: realpathOr(outDir, resolve(outDir)),
    repoRoot: realpathOr(repoRoot, resolve(repoRoot)),
    cwd: resolve(opts.cwd ?? process.cwd()),
    maxFileBytes: opts.maxFileBytes,
    caseDir: loaded.dir,
    exec: opts.exec,
  };
  const assertions: AssertionResult[] = [];
  for (const [i, a] of loaded.grade.entries()) assertions.push(await gradeAssertion(a, i, ctx));
  const passed = assertions.filter((a) => a.ok).length;
  const failed = assertions.length - passed;
  return {
    version: 1,
    name: loaded.name,
    caseDir: loaded.dir,
    outDir: ctx.outDir,
    passed: failed === 0,
    counts: { passed, failed },
    assertions,
  };
}

// Many cases at once: find the case directories under the arguments, run them N at a time, and hand
// each outcome back in input order as soon as it and every case before it are done, so a caller can
// print whole blocks that never interleave. The exit code of the lot is the most severe case's.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ConfigError, messageOf, ToolError, UsageError } from "../core/errors.ts";
import { pool } from "../core/pool.ts";
import { assertionFindings, findingLine } from "../grade/lint.ts";
import { type CaseOutcome, type RunContext, runCase } from "./case-run.ts";
import type { Sink } from "./output.ts";

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function walk(dir: string, found: string[]): void {
  if (existsSync(join(dir, "case.json"))) {
    found.push(dir);
    return;
  }
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if (isDir(path)) walk(path, found);
  }
}

/**
 * The case directories the arguments name, in argument order, each folder's cases sorted by path. A
 * directory with case.json or subject.sh, or one with no case below it, is itself a case (so a
 * missing case.json is reported as run_eval.sh did). A path that does not exist is a usage error.
 */
export function findCases(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const abs = resolve(arg);
    if (!existsSync(abs)) throw new UsageError(`Cannot read case directory "${arg}": no such directory`);
    if (!isDir(abs) || existsSync(join(abs, "case.json")) || existsSync(join(abs, "subject.sh"))) {
      out.push(abs);
      continue;
    }
    const found: string[] = [];
    walk(abs, found);
    out.push(...(found.length ? found : [abs]));
  }
  return [...new Set(out)];
}

/**
 * Lints every case's grade assertions before any subject starts (lib/grade/lint.ts
 * assertionFindings: unknown tool, unknown key, a malformed assertion) and throws a UsageError (exit
 * 2) naming each case file, the assertion and what is wrong. A case that cannot be read is left to
 * runCase, which refuses it on its own (missing case.json, a parse error with line and column).
 */
export function lintCases(cases: readonly string[]): void {
  const lines: string[] = [];
  for (const dir of cases) {
    try {
      for (const f of assertionFindings(dir)) lines.push(findingLine(f));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  if (lines.length === 0) return;
  lines.push(
    `refused: ${lines.length} malformed assertion(s), no subject started (grade lint CASE checks one case)`,
  );
  throw new UsageError(lines.join("\n✗ "));
}

/** runCase, with an unexpected error turned into the case's outcome (exit 2, or the error's own code). */
export async function runCaseSafely(dir: string, ctx: RunContext, sink?: Sink): Promise<CaseOutcome> {
  const started = performance.now();
  try {
    return await runCase(dir, ctx, sink);
  } catch (error) {
    const message = messageOf(error);
    const line = `✗ ${message}\n`;
    sink?.err(line);
    return {
      name: basename(dir),
      caseDir: dir,
      exitCode: error instanceof ToolError ? error.exitCode : 2,
      stage: "refused",
      message,
      grade: null,
      sandbox: null,
      durationMs: performance.now() - started,
      subjectMs: null,
      kept: null,
      chunks: [{ fd: 2, text: line }],
    };
  }
}

/** Hooks for progress and ordered printing. */
export interface ManyHooks {
  /** A case started (index into the case list). */
  started?: (index: number) => void;
  /** A case finished (any order). */
  finished?: (index: number, outcome: CaseOutcome) => void;
  /** The next case in input order is done: called exactly once per case, in order. */
  inOrder?: (index: number, outcome: CaseOutcome) => void;
  /** Live output for case `index` (a single case streams; parallel cases are buffered). */
  sink?: (index: number) => Sink | undefined;
}

/** Runs every case `jobs` at a time; outcomes in input order. */
export async function runMany(
  cases: readonly string[],
  ctx: RunContext,
  jobs: number,
  hooks: ManyHooks = {},
): Promise<CaseOutcome[]> {
  const done = new Map<number, CaseOutcome>();
  let printed = 0;
  return pool(cases, jobs, async (dir, i) => {
    hooks.started?.(i);
    const outcome = await runCaseSafely(dir, ctx, hooks.sink?.(i));
    hooks.finished?.(i, outcome);
    done.set(i, outcome);
    while (done.has(printed)) {
      hooks.inOrder?.(printed, done.get(printed) as CaseOutcome);
      done.delete(printed);
      printed++;
    }
    return outcome;
  });
}

/**
 * The exit code of a set of cases: 0 when all passed, else the highest code. Severity has three
 * levels, 0 < 1 (an assertion failed) < 2 and above (refused, unusable, a subject's own failure);
 * within the top level the highest code is reported, so a subject's exit 7 outranks a refusal's 2.
 */
export function aggregateExit(codes: readonly number[]): number {
  return codes.reduce((worst, c) => Math.max(worst, c), 0);
}

#!/usr/bin/env bun
// run-eval: runs hermetic cases the way run_eval.sh did (its messages and exit codes), each subject
// in a real sandbox with only the EVAL_* environment and the gh shim first on PATH, then grades them.
// Several cases or folders of cases run -j N at a time; blocks print whole, in input order, then a
// summary table; --junit, $GITHUB_STEP_SUMMARY and --json report the same run. Thin: parse, call lib.
import { appendFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { UsageError } from "../lib/core/errors.ts";
import { writeFileAtomic } from "../lib/core/fsx.ts";
import { Progress } from "../lib/core/progress.ts";
import { isMain } from "../lib/core/runtime.ts";
import { stageGh } from "../lib/gh/stage.ts";
import { MAX_FILE_BYTES } from "../lib/grade/out.ts";
import { GRADE_TIMEOUT_MS, type RunContext } from "../lib/hermetic/case-run.ts";
import { renderJunit } from "../lib/hermetic/junit.ts";
import { aggregateExit, findCases, runMany } from "../lib/hermetic/many.ts";
import { flushChunks, processSink } from "../lib/hermetic/output.ts";
import { renderRunEvalReportHtml } from "../lib/hermetic/report.ts";
import { runResult } from "../lib/hermetic/result.ts";
import { renderMarkdown, renderSummary } from "../lib/hermetic/summary.ts";
import {
  DEFAULT_LIMITS,
  detectSandbox,
  MIN_MEMORY_MIB,
  openProbe,
  parseLimit,
  prepareWorkDir,
  type SandboxMechanism,
} from "../lib/isolation/sandbox/index.ts";
import { checkReportPath, writeReport } from "../lib/report/index.ts";

export const USAGE = "Usage: run-eval [options] <case-dir|folder>...\n";

const MECHANISMS = ["bwrap", "unshare", "sandbox-exec"] as const;

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

const command = defineCommand({
  meta: {
    name: "run-eval",
    description:
      "run hermetic cases sandboxed and grade them: exit 0 all passed, 1 an assertion failed, 2 refused or unusable, else a subject's own code",
  },
  args: {
    cases: { type: "positional", required: false, description: "case directories, or folders holding them" },
    jobs: { type: "string", alias: "j", description: "cases run at once (default: the number of cores)" },
    repo: { type: "string", description: "repository root for repo_scripts and grading (default: cwd)" },
    keep: { type: "string", description: "keep each case's OUT and logs under DIR/<case name>/" },
    junit: { type: "string", description: "write JUnit XML to FILE" },
    report: { type: "string", description: "write a self-contained HTML report to FILE" },
    json: {
      type: "boolean",
      description: "print one machine-readable result (schemas/run-result.schema.json)",
    },
    timeout: { type: "string", description: "kill a subject after SECONDS (exit 124; default: never)" },
    "grade-timeout": {
      type: "string",
      description: `give up grading a case after SECONDS (exit 2; default ${GRADE_TIMEOUT_MS / 1000})`,
    },
    "max-file-bytes": {
      type: "string",
      description: `cap on each file read back, published or kept (default ${MAX_FILE_BYTES})`,
    },
    sandbox: { type: "string", description: "use only this mechanism: bwrap, unshare or sandbox-exec" },
    "pids-max": {
      type: "string",
      description: `processes and threads of a subject's uid (RLIMIT_NPROC; default ${DEFAULT_LIMITS.pids})`,
    },
    "memory-max": {
      type: "string",
      description: `MiB of data per subject process (RLIMIT_DATA) and per private tmpfs (default ${DEFAULT_LIMITS.memoryMiB})`,
    },
  },
  async run({ args }) {
    const paths = (args._ as string[]).filter((a) => a !== "");
    if (paths.length === 0) {
      process.stdout.write(USAGE);
      return 2;
    }
    if (process.env.EVAL_RECORD === "1") {
      process.stderr.write(
        "✗ EVAL_RECORD=1 is set — record mode is forbidden for eval runs (CI fail-closed)\n" +
          "  Unset EVAL_RECORD and use committed cassettes under the case directory.\n",
      );
      return 2;
    }
    const jobs = positiveInt(args.jobs, "-j", availableParallelism());
    const timeoutMs = positiveInt(args.timeout, "--timeout", 0) * 1000;
    const gradeTimeoutMs =
      positiveInt(args["grade-timeout"], "--grade-timeout", GRADE_TIMEOUT_MS / 1000) * 1000;
    const maxFileBytes = positiveInt(args["max-file-bytes"], "--max-file-bytes", MAX_FILE_BYTES);
    if (args.sandbox !== undefined && !(MECHANISMS as readonly string[]).includes(args.sandbox))
      throw new UsageError(`--sandbox must be one of ${MECHANISMS.join(", ")}, got "${args.sandbox}"`);
    if (args.report) checkReportPath(resolve(args.report));
    const cases = findCases(paths);

    const limits = {
      pids: parseLimit(args["pids-max"], "--pids-max", DEFAULT_LIMITS.pids),
      memoryMiB: parseLimit(args["memory-max"], "--memory-max", DEFAULT_LIMITS.memoryMiB, MIN_MEMORY_MIB),
    };
    const prefer = args.sandbox ? { prefer: args.sandbox as SandboxMechanism } : {};
    const detection = await detectSandbox({ ...prefer, limits });
    if (!detection.ok) {
      process.stderr.write(`✗ ${detection.reason}\n  ${detection.remedy}\n`);
      return 2;
    }
    const ctx: RunContext = {
      sandbox: detection.sandbox,
      prepare: prepareWorkDir,
      probe: openProbe,
      gh: await stageGh(),
      repoRoot: resolve(args.repo ?? process.cwd()),
      keep: args.keep ? resolve(args.keep) : undefined,
      timeoutMs,
      gradeTimeoutMs,
      maxFileBytes,
    };

    const started = performance.now();
    const single = cases.length === 1 && !args.json;
    const progress = new Progress(cases.length, !single && !args.json ? undefined : false);
    const outcomes = await runMany(cases, ctx, jobs, {
      sink: () => (single ? processSink : undefined),
      started: (i) => progress.start(cases[i] ?? ""),
      finished: (i) => progress.finish(cases[i] ?? ""),
      inOrder: (_i, outcome) => {
        if (single || args.json) return;
        progress.clear();
        flushChunks(outcome.chunks);
        progress.render();
      },
    });
    progress.clear();

    const exitCode = aggregateExit(outcomes.map((o) => o.exitCode));
    const result = runResult(outcomes, {
      jobs,
      mechanism: detection.sandbox.mechanism,
      durationMs: performance.now() - started,
      exitCode,
    });
    if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (cases.length > 1) process.stdout.write(`\n${renderSummary(result)}`);
    if (args.junit) writeFileAtomic(resolve(args.junit), renderJunit(result));
    if (args.report) writeReport(resolve(args.report), renderRunEvalReportHtml(result));
    const stepSummary = process.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) appendFileSync(stepSummary, renderMarkdown(result));
    return exitCode;
  },
});

/** Interrupted: exit like a shell would, so the exit hooks kill the subjects and remove the work dirs. */
function onSignals(): void {
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));
}

/** Runs run-eval with `rawArgs` and returns its exit code. */
export function main(rawArgs: string[]): Promise<number> {
  onSignals();
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

// `run-eval`: the command body behind scripts/run-eval.ts. Flags to a RunContext, the cases (with
// --shard K/N only this part's, dealt by core/shard-set.ts) run -j N at a time (lib/hermetic/many.ts),
// then the reports (publish.ts): summary or --json on stdout, --junit, --report and
// $GITHUB_STEP_SUMMARY. Messages and exit codes are run_eval.sh's: 0 all passed, 1 an assertion
// failed, 2 refused or unusable, else a subject's own code. Errors go to the edge (lib/core/cli.ts).
import { availableParallelism } from "node:os";
import { relative, resolve, sep } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { Progress, progressMode } from "../core/progress.ts";
import { parseShard } from "../core/shard.ts";
import { stampShard } from "../core/shard-set.ts";
import { exitOnSignal, signalExitCode } from "../core/signals.ts";
import { stageGh } from "../gh/stage.ts";
import { MAX_FILE_BYTES } from "../grade/out.ts";
import {
  DEFAULT_LIMITS,
  detectSandbox,
  MIN_MEMORY_MIB,
  openProbe,
  parseLimit,
  prepareWorkDir,
  type SandboxMechanism,
} from "../isolation/sandbox/index.ts";
import { checkReportPath } from "../report/index.ts";
import { type CaseOutcome, GRADE_TIMEOUT_MS, type RunContext } from "./case-run.ts";
import { aggregateExit, findCases, lintCases, runMany } from "./many.ts";
import { flushChunks, processSink } from "./output.ts";
import { publishResult } from "./publish.ts";
import { runResult } from "./result.ts";
import { renderSummary, resultWord } from "./summary.ts";

export const USAGE = "Usage: run-eval [options] <case-dir|folder>...\n";

const MECHANISMS = ["bwrap", "unshare", "sandbox-exec"] as const;

/** run-eval's flags. */
export const RUN_EVAL_ARGS = {
  cases: { type: "positional", required: false, description: "case directories, or folders holding them" },
  jobs: { type: "string", alias: "j", description: "cases run at once (default: the number of cores)" },
  repo: { type: "string", description: "repository root for repo_scripts and grading (default: cwd)" },
  "scripts-root": {
    type: "string",
    description:
      "repo_scripts may name any file under DIR of --repo (`.`: anywhere; default: src/shared/scripts/<name>.py only)",
  },
  keep: { type: "string", description: "keep each case's OUT and logs under DIR/<case name>/" },
  junit: { type: "string", description: "write JUnit XML to FILE" },
  report: { type: "string", description: "write a self-contained HTML report to FILE" },
  json: {
    type: "boolean",
    description: "print one machine-readable result (schemas/run-result.schema.json)",
  },
  shard: {
    type: "string",
    description: "run only part K of N (0-based, e.g. 0/4; `run-eval merge` joins the parts' --json)",
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
} as const satisfies ArgsDef;

type Args = ParsedArgs<typeof RUN_EVAL_ARGS>;

/** The numeric flags; a bad one is a UsageError (exit 2). */
function limitsOf(args: Args) {
  const seconds = (flag: string, v: string | undefined, fallback: number) =>
    numberFlag(flag, v, { min: 1, fallback }) * 1000;
  return {
    jobs: numberFlag("--jobs", args.jobs, { min: 1, fallback: availableParallelism() }),
    timeoutMs: seconds("--timeout", args.timeout, 0),
    gradeTimeoutMs: seconds("--grade-timeout", args["grade-timeout"], GRADE_TIMEOUT_MS / 1000),
    maxFileBytes: numberFlag("--max-file-bytes", args["max-file-bytes"], {
      min: 1,
      fallback: MAX_FILE_BYTES,
    }),
    sandbox: {
      pids: parseLimit(args["pids-max"], "--pids-max", DEFAULT_LIMITS.pids),
      memoryMiB: parseLimit(args["memory-max"], "--memory-max", DEFAULT_LIMITS.memoryMiB, MIN_MEMORY_MIB),
    },
  };
}

/** A case's stable id, what --shard deals by: its directory under the repository, with / between names. */
export function caseId(repoRoot: string, dir: string): string {
  return relative(repoRoot, dir).split(sep).join("/");
}

/** Runs run-eval and returns its exit code. */
export async function runEval(args: Args): Promise<number> {
  const log = createLogger("run-eval");
  const paths = (args._ as string[]).filter((a) => a !== "");
  if (paths.length === 0) {
    // run_eval.sh's usage on stdout; the line on stderr says what was missing.
    process.stdout.write(USAGE);
    log.error("✗ no case given: name case directories (case.json, subject.sh) or folders holding them");
    return 2;
  }
  if (process.env.EVAL_RECORD === "1") {
    log.error(
      "✗ EVAL_RECORD=1 is set — record mode is forbidden for eval runs (CI fail-closed)\n" +
        "  Unset EVAL_RECORD and use committed cassettes under the case directory.",
    );
    return 2;
  }
  const n = limitsOf(args);
  const shard = args.shard === undefined ? undefined : parseShard(args.shard);
  if (args.sandbox !== undefined && !(MECHANISMS as readonly string[]).includes(args.sandbox))
    throw new UsageError(`--sandbox must be one of ${MECHANISMS.join(", ")}, got "${args.sandbox}"`);
  if (args.report) checkReportPath(resolve(args.report));
  const repoRoot = resolve(args.repo ?? process.cwd());
  const all = findCases(paths);
  lintCases(all); // a malformed assertion in any case: exit 2 before any subject starts
  // --shard K/N: this part's cases, dealt by their paths under --repo (the same on every checkout).
  const { units: cases, stamp } = shard
    ? stampShard(all, shard, (dir) => caseId(repoRoot, dir))
    : { units: all, stamp: undefined };

  const prefer = args.sandbox ? { prefer: args.sandbox as SandboxMechanism } : {};
  const detection = await detectSandbox({ ...prefer, limits: n.sandbox });
  if (!detection.ok) {
    log.error(`✗ ${detection.reason}\n  ${detection.remedy}`);
    return 2;
  }
  const ctx: RunContext = {
    sandbox: detection.sandbox,
    prepare: prepareWorkDir,
    probe: openProbe,
    gh: await stageGh(),
    repoRoot,
    ...(args["scripts-root"] !== undefined ? { scriptsRoot: args["scripts-root"] } : {}),
    keep: args.keep ? resolve(args.keep) : undefined,
    timeoutMs: n.timeoutMs,
    gradeTimeoutMs: n.gradeTimeoutMs,
    maxFileBytes: n.maxFileBytes,
  };

  const started = performance.now();
  const single = cases.length === 1 && !args.json;
  // A terminal gets the live line; a log (CI, a pipe) one line per finished case. A single case's
  // block streams as it runs, and --json keeps stderr for errors: no progress for either.
  const progress = new Progress(cases.length, single || args.json ? "off" : progressMode());
  const finished = new Map<number, CaseOutcome>();
  // Ctrl-C or SIGTERM: one line, the summary of the cases that finished, then the exit a shell gives
  // (130, 143); the exit hooks stop the subjects still running and remove their work directories.
  const stop = (signal: NodeJS.Signals) => {
    progress.clear();
    const done = [...finished.keys()].sort((a, b) => a - b).map((i) => finished.get(i) as CaseOutcome);
    log.error(`✗ ${signal}: stopped, ${done.length} of ${cases.length} case(s) finished`);
    if (done.length > 0 && !single && !args.json) {
      const partial = runResult(done, {
        jobs: n.jobs,
        mechanism: detection.sandbox.mechanism,
        durationMs: performance.now() - started,
        exitCode: aggregateExit([...done.map((o) => o.exitCode), signalExitCode(signal)]),
      });
      process.stdout.write(`\n${renderSummary(partial)}`);
    }
    exitOnSignal(signal);
  };
  // First in line, before the entry's plain exit (scripts/run-eval.ts exitOnSignals).
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.prependOnceListener(signal, stop);
  const outcomes = await runMany(cases, ctx, n.jobs, {
    sink: () => (single ? processSink : undefined),
    started: (i) => progress.start(cases[i] ?? ""),
    finished: (i, o) => {
      finished.set(i, o);
      progress.finish(cases[i] ?? "", { name: o.name, result: resultWord(o), ms: o.durationMs });
    },
    inOrder: (_i, outcome) => {
      if (single || args.json) return;
      progress.clear();
      flushChunks(outcome.chunks);
      progress.render();
    },
  });
  progress.clear();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.off(signal, stop);

  const exitCode = aggregateExit(outcomes.map((o) => o.exitCode));
  const result = runResult(outcomes, {
    jobs: n.jobs,
    mechanism: detection.sandbox.mechanism,
    durationMs: performance.now() - started,
    exitCode,
  });
  publishResult(stamp ? { ...result, shard: stamp } : result, {
    json: args.json,
    junit: args.junit,
    report: args.report,
    summary: cases.length > 1,
    lead: "\n",
  });
  return exitCode;
}

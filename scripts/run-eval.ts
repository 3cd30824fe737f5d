#!/usr/bin/env bun
// run-eval: runs hermetic cases the way run_eval.sh did (its messages and exit codes), each subject
// in a real sandbox with only the EVAL_* environment and the gh shim first on PATH, then grades them.
// The entry only: the flags and the body live in lib/hermetic/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { exitOnSignals } from "../lib/core/signals.ts";
import { RUN_EVAL_ARGS, runEval } from "../lib/hermetic/cmd.ts";
import { COMPARE_ARGS, compareCmd } from "../lib/hermetic/compare-cmd.ts";
import { MERGE_ARGS, mergeCmd } from "../lib/hermetic/merge.ts";
import { NEW_ARGS, newCmd } from "../lib/hermetic/new.ts";

/** `run-eval new SKILL/CASE`: scaffolds a case that lints and runs green (lib/hermetic/new.ts). */
const newCase = defineCommand({
  meta: { name: "new", description: "scaffold evals/cases/SKILL/CASE (or under --root DIR)" },
  args: NEW_ARGS,
  run: ({ args }) => newCmd(args),
});

/** `run-eval merge FILE...`: the shards' --json results as one unsharded run (lib/hermetic/merge.ts). */
const merge = defineCommand({
  meta: {
    name: "merge",
    description:
      "join the --json results of run-eval --shard K/N into the whole run's summary, JSON, JUnit and report; exits as that run would (0, 1, 2 or a subject's code)",
  },
  args: MERGE_ARGS,
  run: ({ args }) => mergeCmd(args),
});

/** `run-eval compare BASE.json HEAD.json`: per case better, worse, still failing, flaky (lib/hermetic/compare-cmd.ts). */
const compare = defineCommand({
  meta: {
    name: "compare",
    description:
      "compare two runs' --json results as Markdown (and --report HTML): exit 0 nothing worse, 1 a case got worse, 2 unusable input",
  },
  args: COMPARE_ARGS,
  run: ({ args }) => compareCmd(args),
});

/** Running cases: `run-eval <case-dir|folder>...`, the command without its one subcommand. */
const runCases = defineCommand({
  meta: {
    name: "run-eval",
    description:
      "run hermetic cases sandboxed and grade them: exit 0 all passed, 1 an assertion failed, 2 refused or unusable, else a subject's own code",
  },
  args: RUN_EVAL_ARGS,
  run: ({ args }) => runEval(args),
});

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({ ...runCases, subCommands: { new: newCase, merge, compare } });

/**
 * Runs run-eval with `rawArgs` and returns its exit code (a signal exits 130/143 so exit hooks clean
 * up; a run of cases first prints its one line and the partial summary: lib/hermetic/cmd.ts).
 */
export function main(rawArgs: string[]): Promise<number> {
  exitOnSignals();
  // Only a first word `new`, `merge` or `compare` is a subcommand (a case folder of that name is
  // `./new`): any other word is a case, which citty would refuse as an unknown command.
  const help = rawArgs.includes("--help") || rawArgs.includes("-h");
  const sub = ["new", "merge", "compare"].includes(rawArgs[0] ?? "");
  return runTool(sub || help ? command : runCases, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env bun
// run-eval: runs hermetic cases the way run_eval.sh did (its messages and exit codes), each subject
// in a real sandbox with only the EVAL_* environment and the gh shim first on PATH, then grades them.
// The entry only: the flags and the body live in lib/hermetic/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { exitOnSignals } from "../lib/core/signals.ts";
import { RUN_EVAL_ARGS, runEval } from "../lib/hermetic/cmd.ts";

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({
  meta: {
    name: "run-eval",
    description:
      "run hermetic cases sandboxed and grade them: exit 0 all passed, 1 an assertion failed, 2 refused or unusable, else a subject's own code",
  },
  args: RUN_EVAL_ARGS,
  run: ({ args }) => runEval(args),
});

/** Runs run-eval with `rawArgs` and returns its exit code (a signal exits 130/143 so exit hooks clean up). */
export function main(rawArgs: string[]): Promise<number> {
  exitOnSignals();
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env bun
// run-eval: runs hermetic cases the way run_eval.sh did (its messages and exit codes), each subject
// in a real sandbox with only the EVAL_* environment and the gh shim first on PATH, then grades them.
// The entry only: the flags and the body live in lib/hermetic/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { exitOnSignals } from "../lib/core/signals.ts";
import { RUN_EVAL_ARGS, runEval } from "../lib/hermetic/cmd.ts";
import { NEW_ARGS, newCmd } from "../lib/hermetic/new.ts";

/** `run-eval new SKILL/CASE`: scaffolds a case that lints and runs green (lib/hermetic/new.ts). */
const newCase = defineCommand({
  meta: { name: "new", description: "scaffold evals/cases/SKILL/CASE (or under --root DIR)" },
  args: NEW_ARGS,
  run: ({ args }) => newCmd(args),
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
export const command = defineCommand({ ...runCases, subCommands: { new: newCase } });

/** Runs run-eval with `rawArgs` and returns its exit code (a signal exits 130/143 so exit hooks clean up). */
export function main(rawArgs: string[]): Promise<number> {
  exitOnSignals();
  // Only a first word `new` is the subcommand (a case folder named new is `./new`): any other word is
  // a case, which citty would refuse as an unknown command if the definition had subcommands.
  const help = rawArgs.includes("--help") || rawArgs.includes("-h");
  return runTool(rawArgs[0] === "new" || help ? command : runCases, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

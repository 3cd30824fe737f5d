#!/usr/bin/env bun
// grade: grades a hermetic case's artifacts (grade.py's CLI, output and exit codes 0/1/2), lints a
// case against the acceptance rules, and runs the IDD rule pack directly for skill authors
// (lint-issue/-branch/-commit/-pr, runlog) with the originals' exit codes. Bodies: lib/grade/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import * as cmd from "../lib/grade/cmd.ts";

const { ARGS } = cmd;
const meta = (name: keyof typeof cmd.ABOUT) => ({ name, description: cmd.ABOUT[name] });

export const command = defineCommand({
  meta: meta("grade"),
  args: ARGS.grade,
  subCommands: {
    lint: defineCommand({ meta: meta("lint"), args: ARGS.lint, run: ({ args }) => cmd.lintCmd(args) }),
    "lint-issue": defineCommand({
      meta: meta("lint-issue"),
      args: ARGS["lint-issue"],
      run: ({ args }) => cmd.lintIssueCmd(args),
    }),
    "lint-branch": defineCommand({
      meta: meta("lint-branch"),
      args: ARGS["lint-branch"],
      run: ({ args }) => cmd.lintBranchCmd(args),
    }),
    "lint-commit": defineCommand({
      meta: meta("lint-commit"),
      args: ARGS["lint-commit"],
      run: ({ rawArgs }) => cmd.lintCommitCmd(rawArgs),
    }),
    "lint-pr": defineCommand({
      meta: meta("lint-pr"),
      args: ARGS["lint-pr"],
      run: ({ args }) => cmd.lintPrCmd(args),
    }),
    runlog: defineCommand({ meta: meta("runlog"), run: ({ rawArgs }) => cmd.runlogCmd(rawArgs) }),
  },
  run: ({ args }) => cmd.gradeCmd(args),
});

/** Runs grade with `rawArgs` and returns its exit code. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, cmd.GRADE_EDGE);
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

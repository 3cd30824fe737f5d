#!/usr/bin/env bun
// grade: grades a hermetic case's artifacts (grade.py's CLI, output and exit codes 0/1/2), lints a
// case against the acceptance rules, and runs the IDD rule pack directly for skill authors
// (lint-issue/-branch/-commit/-pr, runlog) with the originals' exit codes. Thin: parse, call lib, print.
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { defineCommand } from "citty";
import { runTool, type ToolEdge } from "../lib/core/cli.ts";
import { ConfigError, UsageError } from "../lib/core/errors.ts";
import { isMain } from "../lib/core/runtime.ts";
import { type LintRun, runIddLint } from "../lib/grade/idd/cli.ts";
import { findingLine, lintCase } from "../lib/grade/lint.ts";
import { MAX_FILE_BYTES } from "../lib/grade/out.ts";
import { renderGrade } from "../lib/grade/render.ts";
import { runRunlog } from "../lib/grade/runlog/index.ts";
import { gradeCase } from "../lib/grade/runner.ts";

/** An unusable case (ConfigError) is grade's exit 2, as in grade.py. */
const EDGE: ToolEdge = { usageExit: 2, remap: (error) => (error instanceof ConfigError ? 2 : undefined) };

function stdinBytes(): Uint8Array {
  try {
    return readFileSync(0);
  } catch {
    return new Uint8Array();
  }
}

function emit(run: LintRun): number {
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  return run.exitCode;
}

function lintIdd(argv: string[], useStdin = false): Promise<number> {
  const stdin = useStdin ? new TextDecoder().decode(stdinBytes()) : undefined;
  return runIddLint(argv, { cwd: process.cwd(), stdin }).then(emit);
}

const json = { type: "boolean", description: "print a machine-readable result on stdout" } as const;

const lint = defineCommand({
  meta: {
    name: "lint",
    description: "check a case.json against the acceptance rules (exit 0 clean, 1 findings, 2 unusable)",
  },
  args: {
    case: { type: "positional", description: "case directory (or its case.json)", required: true },
    json,
  },
  run({ args }) {
    const report = lintCase(basename(args.case) === "case.json" ? dirname(args.case) : args.case);
    if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      for (const f of report.findings) process.stdout.write(`✗ ${findingLine(f)}\n`);
      const n = report.findings.length;
      process.stdout.write(
        n ? `✗ lint failed: ${n} finding(s) in ${report.file}\n` : `✓ lint passed: ${report.file}\n`,
      );
    }
    return report.ok ? 0 : 1;
  },
});

const lintIssue = defineCommand({
  meta: { name: "lint-issue", description: "idd-lint issue FILE (stdin when FILE is - or omitted)" },
  args: { file: { type: "positional", required: false, description: "issue body (default: stdin)" } },
  run: ({ args }) => lintIdd(["issue", args.file ?? "-"], (args.file ?? "-") === "-"),
});

const lintBranch = defineCommand({
  meta: { name: "lint-branch", description: "idd-lint branch NAME" },
  args: { name: { type: "positional", required: true, description: "branch name" } },
  run: ({ args }) => lintIdd(["branch", args.name]),
});

const lintCommit = defineCommand({
  meta: { name: "lint-commit", description: "idd-lint commit MSG... (first line of each message)" },
  args: { msg: { type: "positional", required: false, description: "commit message(s)" } },
  run: ({ rawArgs }) => lintIdd(["commit", "--", ...rawArgs.filter((a) => a !== "--")]),
});

const lintPr = defineCommand({
  meta: { name: "lint-pr", description: "idd-lint pr FILE [--title T] [--type T] [--level L]" },
  args: {
    file: { type: "positional", required: false, description: "PR body (default: stdin)" },
    title: { type: "string", description: "PR title" },
    type: { type: "string", description: "bug | feature | improvement" },
    level: { type: "string", description: "L1 | L2 | L3 (default L3)" },
  },
  run({ args }) {
    const argv = [...(args.level ? ["--level", args.level] : []), "pr", args.file ?? "-"];
    if (args.title !== undefined) argv.push("--title", args.title);
    if (args.type !== undefined) argv.push("--type", args.type);
    return lintIdd(argv, (args.file ?? "-") === "-");
  },
});

const runlog = defineCommand({
  meta: { name: "runlog", description: "gi-runlog [args] with one JSON record on stdin (exit 0/2/3/4)" },
  run: ({ rawArgs }) => runRunlog(rawArgs, stdinBytes(), { cwd: process.cwd() }).then(emit),
});

const grade = defineCommand({
  meta: {
    name: "grade",
    description: "grade a case's artifacts: exit 0 all passed, 1 an assertion failed, 2 unusable case",
  },
  args: {
    case: { type: "string", required: true, description: "case directory (holds case.json)" },
    out: { type: "string", required: true, description: "artifact directory (OUT)" },
    "max-file-bytes": {
      type: "string",
      description: `cap on each file an assertion reads (default ${MAX_FILE_BYTES})`,
    },
    json,
  },
  subCommands: {
    lint,
    "lint-issue": lintIssue,
    "lint-branch": lintBranch,
    "lint-commit": lintCommit,
    "lint-pr": lintPr,
    runlog,
  },
  async run({ args }) {
    const cap = args["max-file-bytes"] ?? String(MAX_FILE_BYTES);
    if (!/^\d+$/.test(cap) || Number(cap) < 1)
      throw new UsageError(`--max-file-bytes must be a positive integer, got "${cap}"`);
    const result = await gradeCase(args.case, args.out, { maxFileBytes: Number(cap) });
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderGrade(result));
    return result.passed ? 0 : 1;
  },
});

/** Runs grade with `rawArgs` and returns its exit code. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(grade, rawArgs, EDGE);
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

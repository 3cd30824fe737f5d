// `grade` and its subcommands: the command bodies behind scripts/grade.ts. grade.py's CLI, output
// and exit codes 0/1/2 (GRADE_EDGE: an unusable case, ConfigError, is 2); `lint` checks a case
// against the acceptance rules; lint-issue/-branch/-commit/-pr and runlog run the IDD rule pack with
// the originals' own stdout, stderr and exit codes, passed through as they are.
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import type { ToolEdge } from "../core/cli.ts";
import { ConfigError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { useColor } from "../core/tty.ts";
import { type LintRun, runIddLint } from "./idd/cli.ts";
import { findingLine, lintCase } from "./lint.ts";
import { MAX_FILE_BYTES } from "./out.ts";
import { renderGrade } from "./render.ts";
import { runRunlog } from "./runlog/index.ts";
import { gradeCase } from "./runner.ts";

/** An unusable case (ConfigError) is grade's exit 2, as in grade.py. */
export const GRADE_EDGE: ToolEdge = {
  usageExit: 2,
  remap: (error) => (error instanceof ConfigError ? 2 : undefined),
};

/** What each command says of itself in --help. */
export const ABOUT = {
  grade: "grade a case's artifacts: exit 0 all passed, 1 an assertion failed, 2 unusable case",
  lint: "check a case.json against the acceptance rules (exit 0 clean, 1 findings, 2 unusable)",
  "lint-issue": "idd-lint issue FILE (stdin when FILE is - or omitted)",
  "lint-branch": "idd-lint branch NAME",
  "lint-commit": "idd-lint commit MSG... (first line of each message)",
  "lint-pr": "idd-lint pr FILE [--title T] [--type T] [--level L]",
  runlog: "gi-runlog [args] with one JSON record on stdin (exit 0/2/3/4)",
} as const;

const json = { type: "boolean", description: "print a machine-readable result on stdout" } as const;

/** The flags of grade and each subcommand. */
export const ARGS = {
  grade: {
    case: { type: "string", required: true, description: "case directory (holds case.json)" },
    out: { type: "string", required: true, description: "artifact directory (OUT)" },
    "max-file-bytes": {
      type: "string",
      description: `cap on each file an assertion reads (default ${MAX_FILE_BYTES})`,
    },
    json,
  },
  lint: {
    case: { type: "positional", description: "case directory (or its case.json)", required: true },
    "scripts-root": {
      type: "string",
      description: "the --scripts-root run-eval is given: repo_scripts may name any file under DIR",
    },
    json,
  },
  "lint-issue": { file: { type: "positional", required: false, description: "issue body (default: stdin)" } },
  "lint-branch": { name: { type: "positional", required: true, description: "branch name" } },
  "lint-commit": { msg: { type: "positional", required: false, description: "commit message(s)" } },
  "lint-pr": {
    file: { type: "positional", required: false, description: "PR body (default: stdin)" },
    title: { type: "string", description: "PR title" },
    type: { type: "string", description: "bug | feature | improvement" },
    level: { type: "string", description: "L1 | L2 | L3 (default L3)" },
  },
} as const satisfies Record<string, ArgsDef>;

type Args<K extends keyof typeof ARGS> = ParsedArgs<(typeof ARGS)[K]>;

function stdinBytes(): Uint8Array {
  try {
    return readFileSync(0);
  } catch {
    return new Uint8Array();
  }
}

/** Writes an original tool's own output as it is and returns its exit code. */
function emit(run: LintRun): number {
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  return run.exitCode;
}

function lintIdd(argv: string[], useStdin = false): Promise<number> {
  const stdin = useStdin ? new TextDecoder().decode(stdinBytes()) : undefined;
  return runIddLint(argv, { cwd: process.cwd(), stdin }).then(emit);
}

/** `grade --case DIR --out DIR`: exit 0 all passed, 1 an assertion failed. */
export async function gradeCmd(args: Args<"grade">): Promise<number> {
  const maxFileBytes = numberFlag("--max-file-bytes", args["max-file-bytes"], {
    min: 1,
    fallback: MAX_FILE_BYTES,
  });
  const result = await gradeCase(args.case, args.out, { maxFileBytes });
  process.stdout.write(
    args.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : renderGrade(result, { color: useColor(process.env, process.stdout) }),
  );
  return result.passed ? 0 : 1;
}

/**
 * `grade lint CASE`: exit 0 clean, 1 findings. What run-eval refuses the case for is a `✗` line, an
 * authoring rule it does not hold a case to a `⚠` line, and the last line counts each.
 */
export function lintCmd(args: Args<"lint">): number {
  const dir = basename(args.case) === "case.json" ? dirname(args.case) : args.case;
  const report = lintCase(
    dir,
    args["scripts-root"] !== undefined ? { scriptsRoot: args["scripts-root"] } : {},
  );
  if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    for (const f of report.findings)
      process.stdout.write(
        f.runEval === "refuses"
          ? `✗ ${findingLine(f)}\n`
          : `⚠ ${findingLine(f)} (an authoring rule: run-eval runs the case)\n`,
      );
    const n = report.findings.length;
    const refused = report.findings.filter((f) => f.runEval === "refuses").length;
    process.stdout.write(
      n
        ? `✗ lint failed: ${n} finding(s) in ${report.file}: ${refused} run-eval refuses the case for, ${n - refused} authoring rule(s)\n`
        : `✓ lint passed: ${report.file}\n`,
    );
  }
  return report.ok ? 0 : 1;
}

/** `grade lint-issue [FILE]`. */
export const lintIssueCmd = (args: Args<"lint-issue">) =>
  lintIdd(["issue", args.file ?? "-"], (args.file ?? "-") === "-");

/** `grade lint-branch NAME`. */
export const lintBranchCmd = (args: Args<"lint-branch">) => lintIdd(["branch", args.name]);

/** `grade lint-commit MSG...`: every word after the subcommand is a message. */
export const lintCommitCmd = (rawArgs: string[]) =>
  lintIdd(["commit", "--", ...rawArgs.filter((a) => a !== "--")]);

/** `grade lint-pr [FILE] [--title T] [--type T] [--level L]`. */
export function lintPrCmd(args: Args<"lint-pr">): Promise<number> {
  const argv = [...(args.level ? ["--level", args.level] : []), "pr", args.file ?? "-"];
  if (args.title !== undefined) argv.push("--title", args.title);
  if (args.type !== undefined) argv.push("--type", args.type);
  return lintIdd(argv, (args.file ?? "-") === "-");
}

/** `grade runlog [args]` with one JSON record on stdin (gi-runlog's exit 0/2/3/4). */
export const runlogCmd = (rawArgs: string[]) =>
  runRunlog(rawArgs, stdinBytes(), { cwd: process.cwd() }).then(emit);

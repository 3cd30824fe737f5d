// The idd-lint command line as a function: `runIddLint(argv, io)` behaves like
// `python3 scripts/idd-lint.py <argv>` (parent options --level/--quiet before the subcommand) and
// returns {exitCode, stdout, stderr} instead of printing, so grade can call it in-process. Usage
// errors and unreadable inputs are exit 2 with one `✗` line; it never throws.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ArgvError, type OptionDef, type Parsed, parseArgv } from "../../compat/py/argparse.ts";
import { splitlines, strip, universalNewlines } from "../../compat/py/text.ts";
import { ConfinedPathError } from "../../core/confined.ts";
import { fileProblem, messageOf } from "../../core/errors.ts";
import { run } from "../../core/proc.ts";
import { lintBranch } from "./branch.ts";
import { lintCommit } from "./commit.ts";
import { lintIssue } from "./issue.ts";
import { lintPr } from "./pr.ts";
import { type Finding, info, LEVELS, type Level, render, SPEC_URL, SPEC_VERSION } from "./report.ts";
import { collectStats, StatsReadError } from "./stats.ts";
import { renderStats, statsJson } from "./stats-report.ts";

/** Where the linter runs and what its stdin holds (used when FILE is "-" or omitted). */
export interface LintIo {
  cwd: string;
  stdin?: string;
  /** Reads FILE (absolute); the grader passes one that refuses FIFOs, links under OUT and big files. */
  readFile?: (path: string) => Uint8Array;
}

/** A finished run, as a child process would have produced it. */
export interface LintRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const SUBCOMMANDS = ["issue", "branch", "commit", "pr", "repo", "stats"] as const;
const PARENT: OptionDef[] = [
  { flags: ["--level"], dest: "level", value: true, choices: LEVELS },
  { flags: ["--quiet", "-q"], dest: "quiet" },
];
const SUB_OPTIONS: Record<string, OptionDef[]> = {
  issue: [],
  branch: [],
  commit: [{ flags: ["--range"], dest: "range", value: true }],
  pr: [
    { flags: ["--title"], dest: "title", value: true },
    { flags: ["--type"], dest: "type", value: true },
  ],
  repo: [{ flags: ["--base"], dest: "base", value: true }],
  stats: [
    { flags: ["--branch"], dest: "branch", value: true },
    { flags: ["--since"], dest: "since", value: true },
    { flags: ["--limit"], dest: "limit", value: true, int: true },
    { flags: ["--no-github"], dest: "no_github" },
    { flags: ["--json"], dest: "json" },
  ],
};
const SUB_POSITIONAL = {
  issue: { dest: "file", nargs: "?" },
  branch: { dest: "name", nargs: "1" },
  commit: { dest: "messages", nargs: "*" },
  pr: { dest: "file", nargs: "?" },
} as const;

const USAGE = `usage: idd-lint [-h] [--level {L1,L2,L3}] [--quiet] {${SUBCOMMANDS.join(",")}} ...

IDD Spec v${SPEC_VERSION} conformance checker — plain data, no LLM. Spec: ${SPEC_URL}

  idd-lint issue  [FILE|-]                        lint an issue body (L1)
  idd-lint branch NAME                            lint a branch name (L2)
  idd-lint commit MSG [MSG ...] | --range A..B    lint commit message(s) (L2)
  idd-lint pr     [FILE|-] [--title T] [--type bug|feature|improvement]
                                                  lint a PR body and title (L2 + L3)
  idd-lint repo   [--base REF]                    lint the branch and commits in REF..HEAD (L2)
  idd-lint stats  [--branch REF] [--since DATE] [--limit N] [--no-github] [--json]
                                                  evidence report (exit 0 unless data unreadable)

options:
  --level {L1,L2,L3}  conformance level to enforce (default: L3)
  --quiet, -q         print only warnings and errors

Exit codes: 0 conformant (warnings allowed), 1 errors found, 2 usage or unreadable input.
`;

/** Thrown inside this module for exit-2 outcomes; turned into a LintRun by runIddLint. */
class Exit2 extends Error {}

const usage = (stderr: string): LintRun => ({ exitCode: 2, stdout: "", stderr });

/** Equivalent of `python3 scripts/idd-lint.py <argv>`. Never throws. */
export async function runIddLint(argv: string[], io: LintIo): Promise<LintRun> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof ArgvError) return usage(`✗ idd-lint: ${error.message}\n`);
    if (error instanceof Exit2) return usage(`✗ ${error.message}\n`);
    // A bug of ours, not an outcome of the contract: exit 1, as the original's traceback would.
    return { exitCode: 1, stdout: "", stderr: `✗ idd-lint: internal error: ${messageOf(error)}\n` };
  }
}

async function dispatch(argv: string[], io: LintIo): Promise<LintRun> {
  const parent = parseArgv(argv, PARENT, { dest: "kind", nargs: "1" }, { stopAtPositional: true });
  if (parent.help) return { exitCode: 0, stdout: USAGE, stderr: "" };
  const kind = parent.values.kind as string;
  if (!(SUBCOMMANDS as readonly string[]).includes(kind)) {
    throw new ArgvError(`argument kind: invalid choice: '${kind}' (choose from ${SUBCOMMANDS.join(", ")})`);
  }
  const level = (parent.values.level as Level | undefined) ?? "L3";
  const quiet = parent.values.quiet === true;
  const sub = parseArgv(parent.rest, SUB_OPTIONS[kind]!, SUB_POSITIONAL[kind as keyof typeof SUB_POSITIONAL]);
  if (sub.help) return { exitCode: 0, stdout: USAGE, stderr: "" };
  if (kind === "stats") return stats(sub, io);
  const report = await lint(kind, sub, level, io);
  if ("stderr" in report) return report;
  const { text, exitCode } = render(report.findings, report.label, report.level, quiet);
  return { exitCode, stdout: text, stderr: "" };
}

type Lint = { findings: Finding[]; label: string; level: Level } | LintRun;

async function lint(kind: string, sub: Parsed, level: Level, io: LintIo): Promise<Lint> {
  const v = sub.values;
  switch (kind) {
    case "issue":
      return {
        findings: lintIssue(readInput(v.file as string | undefined, io)),
        label: "issue body",
        level: "L1",
      };
    case "branch":
      return {
        findings: lintBranch(v.name as string),
        label: `branch ${v.name}`,
        level: level === "L1" ? "L2" : level,
      };
    case "commit": {
      const subjects = [...(v.messages as string[])];
      if (typeof v.range === "string") subjects.push(...(await commitSubjects(v.range, io.cwd)));
      if (subjects.length === 0) {
        return {
          exitCode: 2,
          stdout: "",
          stderr: "✗ no commit messages given (pass MSG arguments or --range)\n",
        };
      }
      return { findings: subjects.flatMap(lintCommit), label: `${subjects.length} commit(s)`, level: "L2" };
    }
    case "pr": {
      const body = readInput(v.file as string | undefined, io);
      const findings = lintPr(body, {
        title: v.title as string | undefined,
        type: v.type as string | undefined,
        level,
      });
      return { findings, label: "pull request", level };
    }
    default:
      return lintRepo((v.base as string | undefined) ?? "main", io.cwd);
  }
}

/** `stats`: a report, exit 0 whatever it finds. */
async function stats(sub: Parsed, io: LintIo): Promise<LintRun> {
  const v = sub.values;
  const opts = {
    branch: v.branch as string | undefined,
    since: v.since as string | undefined,
    limit: Number(v.limit ?? 200),
    noGithub: v.no_github === true,
  };
  let collected: Awaited<ReturnType<typeof collectStats>>;
  try {
    collected = await collectStats(io.cwd, opts);
  } catch (error) {
    if (error instanceof StatsReadError) throw new Exit2(error.message);
    throw error;
  }
  return { exitCode: 0, stdout: v.json ? statsJson(collected) : renderStats(collected), stderr: "" };
}

async function lintRepo(base: string, cwd: string): Promise<Lint> {
  const branch = strip(await git(["rev-parse", "--abbrev-ref", "HEAD"], cwd));
  const findings: Finding[] = [];
  if (["main", "master", base.split("/").at(-1)].includes(branch)) {
    findings.push(info("B01", `on '${branch}' — branch name check skipped (§3.1)`));
  } else {
    findings.push(...lintBranch(branch));
  }
  const subjects = await commitSubjects(`${base}..HEAD`, cwd);
  if (subjects.length) findings.push(...subjects.flatMap(lintCommit));
  else findings.push(info("C01", `no commits in ${base}..HEAD`));
  return { findings, label: `repo @ ${branch}`, level: "L2" };
}

async function git(args: string[], cwd: string): Promise<string> {
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await run(["git", ...args], { cwd });
  } catch (error) {
    throw new Exit2(`git ${args.join(" ")}: ${messageOf(error)}`);
  }
  if (result.exitCode !== 0) throw new Exit2(`git ${args.join(" ")}: ${strip(result.stderr)}`);
  return result.stdout;
}

async function commitSubjects(range: string, cwd: string): Promise<string[]> {
  const out = await git(["log", "--no-merges", "--format=%s", range], cwd);
  return splitlines(out).filter((line) => strip(line));
}

/** A refusal's words without its path: "not a regular file", "larger than the size cap (...)". */
function refusedWhy(e: ConfinedPathError): string {
  return `refused, ${e.message.slice(`Refused "${e.path}": `.length)}`;
}

/** FILE or stdin as text; an unreadable or non-UTF-8 file is a usage error, not a crash. */
function readInput(file: string | undefined, io: LintIo): string {
  if (file === undefined || file === "-") return io.stdin ?? "";
  let bytes: Buffer;
  try {
    bytes = Buffer.from((io.readFile ?? readFileSync)(resolve(io.cwd, file)));
  } catch (error) {
    // The one line every tool gives a file it cannot read (`Cannot read file "x.md": no such file`).
    const why = error instanceof ConfinedPathError ? refusedWhy(error) : fileProblem(error);
    throw new Exit2(`Cannot read file "${file}": ${why}`);
  }
  try {
    return universalNewlines(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch {
    throw new Exit2(`Cannot read file "${file}": not valid UTF-8`);
  }
}

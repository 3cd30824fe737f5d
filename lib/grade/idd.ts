// The two tools that call the IDD linter: `idd-lint` (argv from the assertion, OUT substituted) and
// `shell`, which never starts a shell: it splits the one command string like shlex and accepts only
// grade.py's three allowlisted shapes (branch, commit, pr), reading each `$(tr -d '\n' < OUT/x)`
// artifact itself (lib/grade/out.ts) and passing its value as one argv item.

import { pyStr } from "../compat/py/repr.ts";
import { pyTruthy } from "../compat/py/value.ts";
import { runRule } from "./_run.ts";
import { type LintIo, runIddLint } from "./idd/cli.ts";
import { isGradedFile, outArtifact, readArtifactValue, readGraded, subOut } from "./out.ts";
import { ShlexError, shlexSplit } from "./shlex.ts";
import type { GradeContext, GradeHandler, ToolOutcome } from "./types.ts";

/** `idd-lint`: `args` (a list) with OUT substituted, run through the rule pack in the repo root. */
export const iddLintTool: GradeHandler = async (a, ctx) => {
  const args = pyTruthy(a.args) ? a.args : [];
  if (!Array.isArray(args)) return { got: null, reason: "args must be a list", output: [] };
  const argv = args.map((x) => subOut(pyStr(x), ctx.outDir));
  return runRule(() => runIddLint(argv, lintIo(ctx)));
};

/** The linter's io: files it reads go through lib/grade/out.ts (no FIFO, no link under OUT, capped). */
function lintIo(ctx: GradeContext): LintIo {
  return { cwd: ctx.repoRoot, stdin: "", readFile: (path) => readGraded(path, ctx.outDir, ctx.maxFileBytes) };
}

const PREFIX = ["python3", "scripts/idd-lint.py"] as const;
const SUBSTITUTION = /^\$\(tr -d '\\n' < (OUT\/[A-Za-z0-9._/-]+)\)$/;

type Translation = { ok: true; argv: string[] } | { ok: false; reason: string };

/** The OUT file a `$(tr -d '\n' < OUT/x)` token names, or null when it is not a readable artifact. */
function substituted(token: string | undefined, outDir: string): string | null {
  const m = token === undefined ? null : SUBSTITUTION.exec(token);
  return m ? artifactFile(m[1]!, outDir) : null;
}

function artifactFile(token: string | undefined, outDir: string): string | null {
  if (token === undefined) return null;
  const r = outArtifact(token, outDir);
  return r.ok && isGradedFile(r.path, outDir) ? r.path : null;
}

/** Translates a legacy shell assertion into a fixed idd-lint argv, or says why it was refused. */
export function translateShell(args: unknown, outDir: string): Translation {
  if (!Array.isArray(args) || args.length !== 1 || typeof args[0] !== "string") {
    return { ok: false, reason: "shell requires exactly one command string" };
  }
  let tokens: string[];
  try {
    tokens = shlexSplit(args[0]);
  } catch (error) {
    if (error instanceof ShlexError)
      return { ok: false, reason: `invalid shell assertion: ${error.message}` };
    throw error;
  }
  const prefixed = tokens[0] === PREFIX[0] && tokens[1] === PREFIX[1];
  const sub = tokens[2];
  if (prefixed && tokens.length === 4 && (sub === "branch" || sub === "commit")) {
    const file = substituted(tokens[3], outDir);
    if (file === null)
      return { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" };
    const value = readArtifactValue(file);
    return value.ok ? { ok: true, argv: [sub, value.value] } : value;
  }
  if (prefixed && tokens.length === 6 && sub === "pr" && tokens[4] === "--title") {
    const body = artifactFile(tokens[3], outDir);
    const title = substituted(tokens[5], outDir);
    if (body === null || title === null) {
      return { ok: false, reason: "PR assertion requires readable body and title OUT artifacts" };
    }
    const value = readArtifactValue(title);
    return value.ok ? { ok: true, argv: ["pr", body, "--title", value.value] } : value;
  }
  return { ok: false, reason: "command is not in the shell assertion allowlist" };
}

/** `shell`: an allowlisted command string, translated and run in-process; never a shell. */
export const shellTool: GradeHandler = async (a, ctx: GradeContext): Promise<ToolOutcome> => {
  const t = translateShell(a.args, ctx.outDir);
  if (!t.ok) return { got: null, reason: `rejected before execution: ${t.reason}`, output: [] };
  const argv = t.argv;
  return runRule(() => runIddLint(argv, lintIo(ctx)));
};

/** The lint view of a shell command: null when its shape is allowlisted, else the rejection reason. */
export function shellShapeProblem(command: string): string | null {
  let tokens: string[];
  try {
    tokens = shlexSplit(command);
  } catch (error) {
    return `invalid shell assertion: ${(error as Error).message}`;
  }
  const ok = (token: string | undefined) => token !== undefined && SUBSTITUTION.test(token);
  const prefixed = tokens[0] === PREFIX[0] && tokens[1] === PREFIX[1];
  if (
    prefixed &&
    tokens.length === 4 &&
    (tokens[2] === "branch" || tokens[2] === "commit") &&
    ok(tokens[3])
  ) {
    return null;
  }
  if (prefixed && tokens.length === 6 && tokens[2] === "pr" && tokens[4] === "--title" && ok(tokens[5]))
    return null;
  return "command is not in the shell assertion allowlist";
}

// The `command` grade tool: any bash command, run by the caller's sandbox (GradeContext.exec; run-eval
// runs it like the subject, with OUT as its directory), its exit code compared with expect_exit and its
// output matched (stdout_contains, stdout_matches, stderr_contains, stderr_matches). Without a sandbox
// it never runs on the host: the assertion fails with a reason that says so.
import { splitlines } from "../compat/py/text.ts";
import { messageOf } from "../core/errors.ts";
import { OUTPUT_LINES } from "./_run.ts";
import { generalProblem, REGEX_FLAGS } from "./general.ts";
import type { CommandRun, GradeHandler } from "./types.ts";

/** The output checks, in the order they are tried. */
const CHECKS = [
  ["stdout_contains", "stdout", "contain"],
  ["stdout_matches", "stdout", "match"],
  ["stderr_contains", "stderr", "contain"],
  ["stderr_matches", "stderr", "match"],
] as const;

function mismatch(a: Record<string, unknown>, run: CommandRun): string | null {
  for (const [field, stream, how] of CHECKS) {
    const want = a[field];
    if (typeof want !== "string") continue;
    const text = run[stream];
    const ok = how === "contain" ? text.includes(want) : new RegExp(want, REGEX_FLAGS).test(text);
    if (!ok) return `${stream} does not ${how} ${how === "contain" ? JSON.stringify(want) : `/${want}/`}`;
  }
  return null;
}

/** `command`: got = the command's exit code; an output check that fails is a reason. */
export const commandTool: GradeHandler = async (a, ctx) => {
  const problem = generalProblem(a);
  if (problem) return { got: null, reason: `${problem.field}: ${problem.message}`, output: [] };
  if (typeof a.run !== "string" || a.run === "")
    return { got: null, reason: "command requires 'run' (a bash command)", output: [] };
  if (!ctx.exec)
    return { got: null, reason: "command runs only inside run-eval's sandbox (not under grade)", output: [] };
  let run: CommandRun;
  try {
    run = await ctx.exec(["bash", "-c", a.run]);
  } catch (error) {
    return { got: null, reason: `command could not start: ${messageOf(error)}`, output: [] };
  }
  const shown = splitlines(run.stdout + run.stderr).slice(0, OUTPUT_LINES);
  if (run.timedOut) return { got: null, reason: "command timed out", output: shown };
  const bad = mismatch(a, run);
  if (bad) return { got: run.exitCode, reason: bad, output: shown };
  return { got: run.exitCode, output: run.exitCode !== 0 ? shown : [] };
};

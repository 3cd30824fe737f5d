// How a tool turns an in-process rule-pack call into an outcome, as grade.py's _run() did for a child:
// the exit code is `got`; a non-zero exit that printed something shows its first 20 lines
// (stdout then stderr, joined without a separator, as grade.py concatenated them); a call that
// throws is "unable to run grading tool" with got = null.

import { splitlines } from "../compat/py/text.ts";
import { messageOf } from "../core/errors.ts";
import type { RuleRun, ToolOutcome } from "./types.ts";

/** The most tool output lines shown per assertion. */
export const OUTPUT_LINES = 20;

/** Runs one rule-pack call and reports it as grade.py's _run() would. */
export async function runRule(call: () => Promise<RuleRun>): Promise<ToolOutcome> {
  let run: RuleRun;
  try {
    run = await call();
  } catch (error) {
    return { got: null, output: [`unable to run grading tool: ${messageOf(error)}`] };
  }
  const output =
    run.exitCode !== 0 && (run.stdout || run.stderr)
      ? splitlines(run.stdout + run.stderr).slice(0, OUTPUT_LINES)
      : [];
  return { got: run.exitCode, output };
}

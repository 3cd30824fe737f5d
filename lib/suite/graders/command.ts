// The command grader: a shell command run over the agent's /work in a fresh phase, like `check`;
// exit 0 passes. A command that could not run at all (an infrastructure failure of its phase, or
// a timeout) is the grader's error, not a failure of the agent's work.
import type { Grade } from "../scorecard/schema.ts";
import { type Exec, stderrTail } from "./exec.ts";

/** Runs `sh -c run` and grades its exit. */
export async function commandGrade(run: string, exec: Exec): Promise<Grade> {
  const r = await exec(["sh", "-c", run]);
  if (r.infraError) return { grader: "command", pass: false, error: r.infraError };
  if (r.timedOut) return { grader: "command", pass: false, error: "timed out" };
  if (r.exitCode === 0) return { grader: "command", pass: true };
  return { grader: "command", pass: false, detail: `exit ${r.exitCode ?? -1}: ${stderrTail(r.stderr)}` };
}

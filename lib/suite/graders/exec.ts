// How a grader reaches the trial's /work: one command in a fresh read-only phase (under Docker a new
// container over the post-agent /work, nothing it writes is kept), given by the trial. Graders never
// see the runner itself, so they run the same under Docker, --local and in tests. Also the original's
// stderr tail, here so graders and the trial (trial-context.ts re-exports it) word a failed phase alike.
import type { PhaseResult } from "../../isolation/contract.ts";

/** Runs `argv` with /work as its directory and returns the phase's result (never throws for an exit). */
export type Exec = (argv: string[]) => Promise<PhaseResult>;

/** The original's stderr tail: the last 300 characters of the trimmed stderr, `...`-prefixed if cut. */
export function stderrTail(stderr: string): string {
  const s = stderr.trim();
  return s.length > 300 ? `...${s.slice(-300)}` : s;
}

// A grader phase on this host: a real Exec over a directory (what --local does), for graders tests
// that need a real /work; argv[0]s (or sh scripts) listed in `broken` come back as an infrastructure
// failure of their phase.
import { run } from "../../../lib/core/proc.ts";
import type { PhaseResult } from "../../../lib/isolation/contract.ts";
import type { Exec } from "../../../lib/suite/graders/index.ts";
import { infraResult } from "../_support.ts";

/** A real Exec over `dir` on this host. */
export function hostExec(dir: string, broken: string[] = []): Exec {
  return async (argv): Promise<PhaseResult> => {
    if (broken.includes(argv[0]!) || broken.includes(argv[2] ?? ""))
      return infraResult("container start: boom");
    const r = await run(argv, { cwd: dir });
    return {
      exitCode: r.exitCode,
      stdout: r.stdout,
      stderr: r.stderr,
      timedOut: r.timedOut,
      durationMs: r.durationMs,
      commandIndex: 0,
    };
  };
}

// The shapes shared by the grade tools and the runner: what a tool is given and what it reports.
// A tool never prints; the runner collects outcomes and lib/grade/render.ts writes grade.py's text.

/** Where an assertion is graded. */
export interface GradeContext {
  /** The artifact directory OUT stands for (absolute, symlinks resolved). */
  outDir: string;
  /** The working directory of the rule-pack calls (grade.py's repo root). */
  repoRoot: string;
  /** The directory a relative, non-OUT path is read from (grade.py's own cwd). */
  cwd: string;
  /** The cap on every file an assertion reads (default lib/grade/out.ts MAX_FILE_BYTES). */
  maxFileBytes?: number;
  /** The case directory (absolute): where `file-equals` finds its golden file. */
  caseDir?: string;
  /**
   * Runs a `command` assertion's argv in the subject's sandbox with OUT as its directory (run-eval
   * sets it); absent, `command` fails with a reason instead of running on the host.
   */
  exec?: (argv: string[]) => Promise<CommandRun>;
}

/** What a `command` assertion's child did. */
export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * What a general check tested (lib/grade/general.ts), for its one failure line `<where>: want <want>,
 * got <got>`: `want` is what holding means (got 0), `wantNot` what expect_exit 1 asks for instead.
 */
export interface Check {
  where: string;
  want: string;
  wantNot: string;
  got: string;
}

/** What one tool did. A `reason` fails the assertion whatever expect_exit says. */
export interface ToolOutcome {
  /** The tool's exit code, compared with expect_exit; null when it could not run. */
  got: number | null;
  reason?: string;
  /**
   * Lines shown before the verdict line as `    │ <line>` (at most 20). With a `check`, only when the
   * assertion fails (a check that failed as expect_exit asked prints nothing beside its ✓).
   */
  output: string[];
  /** A general check's terms: a mismatch is one `✗ <label> — <where>: want ..., got ...` line. */
  check?: Check;
}

/** One grade tool: an assertion object in, an outcome out. */
export type GradeHandler = (assertion: Record<string, unknown>, ctx: GradeContext) => Promise<ToolOutcome>;

/** The result of a rule-pack call (lib/grade/idd/cli.ts and lib/grade/runlog/index.ts share it). */
export interface RuleRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

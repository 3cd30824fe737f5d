// `agent-eval compare BASE.json HEAD.json [--report FILE.html] [--fail-on worse]`: two suite scorecards
// (as `agent-eval suite --scorecard` or `suite merge --scorecard` write them, or the original's)
// compared, Markdown on stdout, the HTML page with --report. Exit codes are agent-eval's: 0 compared,
// 2 a bad command line or a --report whose directory does not exist, 3 a file that is no scorecard
// (naming file and field) or, with --fail-on worse, a variant that got worse (said on stderr, the
// outputs written first): CI fails a pull request on a regression as with `run-eval compare`, and
// with the code `agent-eval suite --fail-on` uses for a tripped gate.
import type { ArgsDef } from "citty";
import { UsageError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";
import { checkReportPath, writeReport } from "../report/index.ts";
import { compareScorecards, renderComparisonMarkdown } from "./compare.ts";
import { renderComparisonHtml } from "./compare-report.ts";
import { loadScorecard } from "./scorecard/index.ts";

/** The flags of `agent-eval compare`. */
export const COMPARE_ARGS = {
  base: { type: "positional", required: false, description: "the base scorecard JSON (e.g. main's)" },
  head: {
    type: "positional",
    required: false,
    description: "the head scorecard JSON (e.g. the pull request's)",
  },
  report: { type: "string", description: "also write the comparison as HTML to FILE" },
  "fail-on": {
    type: "string",
    description: "none (default) or worse: exit 3 when a variant got worse (the exact paired test)",
  },
} as const satisfies ArgsDef;

/** The exit code of a comparison --fail-on tripped (the suite's tripped gate, EXIT_GATE). */
export const EXIT_WORSE = 3;

/** Runs `agent-eval compare`: Markdown on stdout, HTML to --report. */
export function compareCommand(flags: {
  base?: string;
  head?: string;
  report?: string;
  "fail-on"?: string;
}): number {
  if (!flags.base || !flags.head)
    throw new UsageError("missing a scorecard: agent-eval compare BASE.json HEAD.json");
  const failOn = flags["fail-on"] ?? "none";
  if (failOn !== "none" && failOn !== "worse")
    throw new UsageError(`--fail-on: expected none or worse, got ${JSON.stringify(failOn)}`);
  if (flags.report !== undefined) checkReportPath(flags.report);
  const comparison = compareScorecards(loadScorecard(flags.base), loadScorecard(flags.head));
  if (flags.report !== undefined) writeReport(flags.report, renderComparisonHtml(comparison));
  process.stdout.write(renderComparisonMarkdown(comparison));
  const worse = comparison.variants.filter((v) => v.change === "worse").map((v) => v.variant);
  if (failOn !== "worse" || worse.length === 0) return 0;
  createLogger("agent-eval").error(`compare: worse: ${worse.join(", ")} (--fail-on worse)`);
  return EXIT_WORSE;
}

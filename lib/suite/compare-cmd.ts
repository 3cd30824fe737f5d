// `agent-eval compare BASE.json HEAD.json [--report FILE.html]`: two suite scorecards (as `agent-eval
// suite --scorecard` or `suite merge --scorecard` write them, or the original's) compared, Markdown on
// stdout, the HTML page with --report. Exit codes are agent-eval's: 0 compared, 2 a bad command line or
// a --report whose directory does not exist, 3 a file that is no scorecard (naming file and field).
import type { ArgsDef } from "citty";
import { UsageError } from "../core/errors.ts";
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
} as const satisfies ArgsDef;

/** Runs `agent-eval compare`: Markdown on stdout, HTML to --report. */
export function compareCommand(flags: { base?: string; head?: string; report?: string }): number {
  if (!flags.base || !flags.head)
    throw new UsageError("missing a scorecard: agent-eval compare BASE.json HEAD.json");
  if (flags.report !== undefined) checkReportPath(flags.report);
  const comparison = compareScorecards(loadScorecard(flags.base), loadScorecard(flags.head));
  if (flags.report !== undefined) writeReport(flags.report, renderComparisonHtml(comparison));
  process.stdout.write(renderComparisonMarkdown(comparison));
  return 0;
}

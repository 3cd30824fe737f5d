// A finished run's result published the one way every run-eval path does it (a run, a merge of its
// shards): the JSON or the summary table on stdout, --junit, --report and $GITHUB_STEP_SUMMARY. One
// place, so a merged run's files are the same bytes an unsharded run writes.
import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { writeFileAtomic } from "../core/fsx.ts";
import { writeReport } from "../report/index.ts";
import { renderJunit } from "./junit.ts";
import { renderRunEvalReportHtml } from "./report.ts";
import type { RunResult } from "./result.ts";
import { renderMarkdown, renderSummary } from "./summary.ts";

/** Where a run's result goes; `summary` is false when no table is printed (one case, streamed). */
export interface PublishTo {
  json?: boolean;
  junit?: string;
  report?: string;
  summary: boolean;
  /** Printed before the table (a run leaves a blank line after its case blocks). */
  lead?: string;
}

/** Writes `result` to stdout and to each file asked for; the step summary when CI sets one. */
export function publishResult(result: RunResult, to: PublishTo): void {
  if (to.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (to.summary) process.stdout.write(`${to.lead ?? ""}${renderSummary(result)}`);
  if (to.junit) writeFileAtomic(resolve(to.junit), renderJunit(result));
  if (to.report) writeReport(resolve(to.report), renderRunEvalReportHtml(result));
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) appendFileSync(stepSummary, renderMarkdown(result));
}

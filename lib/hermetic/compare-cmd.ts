// `run-eval compare BASE.json HEAD.json [--rerun FILE]... [--report FILE]`: loads the runs, compares
// them (compare.ts), prints the Markdown and writes the HTML (compare-report.ts). Exit 0 nothing got
// worse, 1 a case got worse or a new case does not pass (so CI can gate a pull request on it), 2 a
// file that is unreadable or not a run-eval --json result.
import { resolve } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { flagValues, repeatable } from "../core/flags.ts";
import { checkReportPath, writeReport } from "../report/index.ts";
import { compareRuns, renderCompareMarkdown } from "./compare.ts";
import { renderCompareHtml } from "./compare-report.ts";
import { loadRunResult } from "./merge.ts";
import type { RunResult } from "./result.ts";

/** `run-eval compare`'s flags. */
export const COMPARE_ARGS = {
  runs: { type: "positional", required: false, description: "BASE.json HEAD.json (run-eval --json results)" },
  rerun: repeatable({ type: "string", description: "another run of HEAD (--json); repeatable: flaky cases" }),
  report: {
    type: "string",
    description: "also write the comparison as a self-contained HTML report to FILE",
  },
} as const satisfies ArgsDef;

/** `run-eval compare BASE HEAD`: the Markdown on stdout, the HTML with --report; exit 0, 1 or 2. */
export function compareCmd(args: ParsedArgs<typeof COMPARE_ARGS>): number {
  const runs = (args._ as string[]).filter((a) => a !== "");
  if (runs.length !== 2)
    throw new UsageError(`run-eval compare takes BASE.json HEAD.json, got ${runs.length} file(s)`);
  if (args.report) checkReportPath(resolve(args.report));
  const [base, head] = runs.map(loadRunResult) as [RunResult, RunResult];
  const cmp = compareRuns(base, head, flagValues(args.rerun).map(loadRunResult));
  process.stdout.write(renderCompareMarkdown(cmp));
  if (args.report)
    writeReport(resolve(args.report), renderCompareHtml(cmp, { base: runs[0] ?? "", head: runs[1] ?? "" }));
  return cmp.exitCode;
}

// Reports people look at: one self-contained HTML file per run (no network, no scripts, no fonts),
// for run-eval, task suites, step suites and promotion runs. This kit imports no lane: each lane's
// renderer (lib/<lane>/report.ts) builds on its one escaping builder (html.ts) and small SVG chart
// module (svg.ts); writing goes through writeFileAtomic so a reader never sees half a report.
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { messageOf, UpstreamError, UsageError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/fsx.ts";

/** Writes a rendered report atomically; UpstreamError (4) naming the file when the disk refuses. */
export function writeReport(path: string, document: string): void {
  try {
    writeFileAtomic(path, document);
  } catch (error) {
    throw new UpstreamError(`Cannot write report "${path}": ${messageOf(error)}`, { cause: error });
  }
}

/**
 * Refuses a report path whose directory does not exist (UsageError, exit 2), checked before a run
 * starts so a long run never ends in a report that cannot be written.
 */
export function checkReportPath(path: string, flag = "--report"): void {
  const dir = dirname(path);
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    // missing: refused below
  }
  if (!ok) throw new UsageError(`${flag} "${path}": directory "${dir}" does not exist`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${flag} "${path}": is a directory, expected a file name like report.html`);
}

// A step scorecard published the one way `eval-steps run` and `eval-steps merge` both do it: the
// text or JSON on stdout, --scorecard FILE (the JSON), --report FILE (HTML), and the exit code (1
// when every call errored: nothing was measured). One place, so a merge writes a run's bytes.
import { writeFileAtomic } from "../core/fsx.ts";
import { createLogger } from "../core/log.ts";
import { renderStepsReportHtml } from "./report.ts";
import { renderStepScorecard, type StepScorecard } from "./scorecard.ts";

/** Where a scorecard goes. */
export interface PublishTo {
  output: "text" | "json";
  scorecard?: string;
  report?: string;
}

/** Writes `sc` where asked and returns the exit code: 0, or 1 when every call errored. */
export function publishScorecard(sc: StepScorecard, to: PublishTo): number {
  const json = `${JSON.stringify(sc, null, 2)}\n`;
  if (to.scorecard) writeFileAtomic(to.scorecard, json);
  if (to.report) writeFileAtomic(to.report, renderStepsReportHtml(sc));
  process.stdout.write(to.output === "json" ? json : renderStepScorecard(sc));
  if (sc.cases > 0 && sc.errors === sc.cases) {
    createLogger("eval-steps").error(
      `✗ every call errored (first: ${sc.results[0]?.error}): check --url, --model and --key-env`,
    );
    return 1;
  }
  return 0;
}

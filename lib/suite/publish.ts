// The one way out of a suite run, whole (`agent-eval suite`) or merged from its shards (`suite
// merge`): the internet note, the gate and --history's line (gate-cmd.ts), then the outputs (stdout,
// --scorecard, --report) and the exit code (3 when --fail-on trips). Both commands end here, so a
// merge prints what the whole run prints by construction, not by keeping two copies alike.
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { writeFileAtomic } from "../core/fsx.ts";
import { finishRelease, type parseGateFlags, releaseExit, releaseText } from "./gate-cmd.ts";
import { renderTrendMarkdown, type TrendRow } from "./history.ts";
import { FINISHED } from "./runs.ts";
import { renderMarkdown, type Scorecard, scorecardJson, type Trial } from "./scorecard/index.ts";
import type { Suite } from "./suite.ts";
import { transcriptPage } from "./transcript/write.ts";

/** Where a trial's `log` is relative to: one trials file's path, or (merged shards) each trial's directory. */
export type LogBase = string | ((t: Trial) => string | undefined);

/**
 * Writes the --report file: Markdown, or the reports lane's HTML when FILE ends in .html. A trial's
 * log is relative to its trials file: one file's path, or (merged shards) each trial's directory.
 */
export async function writeReport(
  path: string,
  sc: Scorecard,
  trials: readonly Trial[],
  trialsFile?: LogBase,
  trend?: readonly TrendRow[],
): Promise<void> {
  if (extname(path).toLowerCase() === ".html") {
    const { renderSuiteReportHtml } = await import("./report.ts");
    // Trial logs are relative to the trials file; the report links to them from wherever it is written,
    // each trial to its transcript's page where it has one (it links on to the raw log).
    const one = typeof trialsFile === "string" ? dirname(resolve(trialsFile)) : undefined;
    const baseOf = typeof trialsFile === "function" ? trialsFile : () => one;
    const logHref = (t: Trial, base = baseOf(t)) => {
      const target = t.transcript !== undefined ? transcriptPage(t.transcript) : t.log;
      return target === undefined || base === undefined
        ? undefined
        : relative(dirname(resolve(path)), join(base, target))
            .split(sep)
            .join("/");
    };
    writeFileAtomic(path, renderSuiteReportHtml(sc, trials, { logHref, ...(trend ? { trend } : {}) }));
  } else
    writeFileAtomic(
      path,
      renderMarkdown(sc) +
        renderTrendMarkdown(
          trend ?? [],
          sc.variants.map((v) => v.name),
        ),
    );
}

/** What the run's flags ask for at its end. */
export interface PublishOptions {
  output: "text" | "markdown" | "json";
  scorecard?: string;
  report?: string;
  release: ReturnType<typeof parseGateFlags>;
  /** The run's own folder (runs.ts, no --trials): report.html, then scorecard.json, go there too. */
  runDir?: string;
}

/** Fills a run folder (runs.ts): report.html, then scorecard.json, which marks the run finished. */
async function finishRunFolder(
  dir: string,
  sc: Scorecard,
  trials: readonly Trial[],
  logBase: LogBase | undefined,
  trend?: readonly TrendRow[],
): Promise<void> {
  await writeReport(join(dir, "report.html"), sc, trials, logBase, trend);
  writeFileAtomic(join(dir, FINISHED), scorecardJson(sc));
}

/** Ends a run: returns its exit code (0, or 3 when --fail-on trips, said on stderr). */
export async function publishRun(
  run: {
    suite: Suite;
    scorecard: Scorecard;
    trials: readonly Trial[];
    logBase?: LogBase;
    internet: readonly string[];
  },
  o: PublishOptions,
  log: { error: (message: string) => void },
): Promise<number> {
  if (run.internet.length > 0) run.scorecard.internet = [...run.internet];
  // The gate, --history's line and trend, --matrix's table; --fail-on's exit 3 (halo's).
  const { scorecard: sc, trend } = await finishRelease(run.scorecard, run.suite, o.release);
  if (o.scorecard) writeFileAtomic(o.scorecard, scorecardJson(sc));
  if (o.report) await writeReport(o.report, sc, run.trials, run.logBase, trend);
  if (o.runDir) await finishRunFolder(o.runDir, sc, run.trials, run.logBase, trend);
  process.stdout.write(o.output === "json" ? scorecardJson(sc) : releaseText(sc, o.release, trend));
  const exit = releaseExit(sc, o.release.failOn);
  if (exit !== 0) log.error(`eval gate: ${sc.gate?.verdict} (--fail-on ${o.release.failOn})`);
  return exit;
}

/**
 * Ends one shard's run (`--shard K/N`): its trials file is the result. No gate and no decision over
 * part of the data: stdout stays empty, one line on stderr says what the shard holds; --scorecard and
 * --report get the shard's own scorecard (marked with its K/N), its headline saying to merge first.
 */
export async function publishShard(
  run: { title: string; trialsFile: string; trials: readonly Trial[]; scorecard?: Scorecard },
  o: Pick<PublishOptions, "scorecard" | "report" | "runDir">,
  log: { info: (message: string) => void },
): Promise<void> {
  const passed = run.trials.filter((t) => t.pass).length;
  log.info(
    `${run.title}: ${run.trials.length} trials (${passed} passed) in ${run.trialsFile}; no gate or decision on part of the run: merge the shards with agent-eval suite merge`,
  );
  if (o.scorecard === undefined && o.report === undefined && o.runDir === undefined) return;
  if (run.scorecard === undefined) {
    log.info(
      `${run.title}: no scorecard of its own (a variant without a task shared with the control), so no --scorecard or --report`,
    );
    return;
  }
  const sc: Scorecard = {
    ...run.scorecard,
    headline: {
      decision: "none",
      source: "none",
      text: `Decision: none — shard ${run.scorecard.shard ?? ""} holds part of the run's trials: merge the shards (agent-eval suite merge) for the decision.`,
    },
  };
  if (o.scorecard) writeFileAtomic(o.scorecard, scorecardJson(sc));
  if (o.report) await writeReport(o.report, sc, run.trials, run.trialsFile);
  if (o.runDir) await finishRunFolder(o.runDir, sc, run.trials, run.trialsFile);
}

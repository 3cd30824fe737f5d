// The release flags of `agent-eval suite` (the newer original's `halo eval run` flags): --fail-on
// none|hold|block (exit 3 when the gate is at or past it), --history FILE (a JSONL line per run, a
// trend of the last runs in the text and HTML outputs) and --matrix (run the suite's matrix; the
// terminal table on stdout). What to gate, to append and to print, kept out of cmd.ts's run.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError, ToolError } from "../core/errors.ts";
import { applyGate, thresholdsOf } from "./gate.ts";
import {
  appendHistory,
  loadHistory,
  offlineLine,
  renderTrendMarkdown,
  type TrendRow,
  trendOf,
} from "./history.ts";
import { expandMatrix, renderMatrixTable } from "./matrix.ts";
import { renderMarkdown, type Scorecard } from "./scorecard/index.ts";
import type { Suite } from "./suite.ts";

/** Exit code when --fail-on trips (halo's vocabulary: 3 is a tripped gate). */
export const EXIT_GATE = 3;

const FAIL_ON = ["none", "hold", "block"] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** The release flags, as citty defines them. */
export const GATE_ARGS = {
  "fail-on": {
    type: "string",
    description: "none (default), hold or block: exit 3 when the gate's verdict is at or past it",
  },
  history: {
    type: "string",
    description: "append this run to FILE (JSONL, one line per run) and show the trend",
  },
  matrix: {
    type: "boolean",
    description: "run the suite's matrix (harness x model x provider) instead of its variants",
  },
} as const;

/** The release flags as citty hands them over. */
export interface GateFlags {
  "fail-on"?: string;
  history?: string;
  matrix?: boolean;
}

/** The release flags checked; a bad one is a ToolError naming the flag (exit 1 at the suite's edge). */
export function parseGateFlags(f: GateFlags): { failOn: FailOn; history?: string; matrix: boolean } {
  const failOn = f["fail-on"] ?? "none";
  if (!(FAIL_ON as readonly string[]).includes(failOn))
    throw new ToolError(`--fail-on: expected none, hold or block, got ${JSON.stringify(failOn)}`, 1);
  if (f.history === "") throw new ToolError("--history: expected a file name", 1);
  return {
    failOn: failOn as FailOn,
    ...(f.history ? { history: f.history } : {}),
    matrix: f.matrix === true,
  };
}

/**
 * The suite to run: with --matrix its matrix's cells as the variants and the baseline as the control;
 * without, a matrix-only suite is refused. A --history file is read first, so a bad line (or a
 * missing directory) stops the run before any trial (ConfigError naming the file and the line).
 */
export function prepareRelease(suite: Suite, o: ReturnType<typeof parseGateFlags>): Suite {
  if (o.history !== undefined) {
    loadHistory(o.history);
    // The line is appended after the run: a directory that is not there would lose it then.
    if (!existsSync(dirname(resolve(o.history))))
      throw new ConfigError(
        `--history "${o.history}": directory ${dirname(resolve(o.history))} does not exist`,
      );
  }
  if (!o.matrix) {
    if (suite.variants.length === 0)
      throw new ConfigError(`suite ${suite.name}: no variants, only a matrix: run it with --matrix`);
    return suite;
  }
  if (suite.matrix === undefined) throw new ConfigError(`suite ${suite.name}: --matrix: no matrix defined`);
  let cells: ReturnType<typeof expandMatrix>;
  try {
    cells = expandMatrix(suite.matrix);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(`suite ${suite.name}: ${error.message}`, { cause: error });
    throw error;
  }
  return { ...suite, variants: cells.variants as Suite["variants"], control: cells.control };
}

/** Whether the run is gated: the suite says so (gate, k or matrix, the newer original's keys) or a flag asks. */
export function isGated(suite: Suite, o: ReturnType<typeof parseGateFlags>): boolean {
  return (
    suite.gate !== undefined ||
    suite.k !== undefined ||
    suite.matrix !== undefined ||
    o.failOn !== "none" ||
    o.matrix
  );
}

/**
 * The finished run's scorecard, gated when the run is, and the trend: with --history the run is
 * appended (atomically) and the trend is the last 10 runs of this suite, this one last.
 */
export async function finishRelease(
  sc: Scorecard,
  suite: Suite,
  o: ReturnType<typeof parseGateFlags>,
  now: Date = new Date(),
): Promise<{ scorecard: Scorecard; trend?: TrendRow[] }> {
  const scorecard = isGated(suite, o) ? applyGate(sc, thresholdsOf(suite.gate)) : sc;
  if (o.history === undefined) return { scorecard };
  const lines = await appendHistory(o.history, offlineLine(scorecard, now));
  return { scorecard, trend: trendOf(lines, scorecard.suite) };
}

/** The text output: the terminal table with --matrix, else the Markdown scorecard; the trend after. */
export function releaseText(sc: Scorecard, o: ReturnType<typeof parseGateFlags>, trend?: TrendRow[]): string {
  const body = o.matrix ? renderMatrixTable(sc) : renderMarkdown(sc);
  return (
    body +
    renderTrendMarkdown(
      trend ?? [],
      sc.variants.map((v) => v.name),
    )
  );
}

/** 3 when --fail-on trips (the gate at or past it: hold trips on hold and block), else 0. */
export function releaseExit(sc: Scorecard, failOn: FailOn): number {
  const verdict = sc.gate?.verdict;
  if (verdict === undefined || failOn === "none") return 0;
  return verdict === "block" || verdict === failOn ? EXIT_GATE : 0;
}

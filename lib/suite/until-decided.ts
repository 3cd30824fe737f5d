// `agent-eval suite --until-decided`: trials in rounds instead of a fixed number of repeats. A round is
// every task once in the control and in each candidate still undecided (the trials' `repeat` is the
// round). After each round each candidate's anytime-valid confidence sequence on the mean per-task
// difference (scorecard/sequential.ts) is read; a candidate stops once it excludes 0 (better, worse)
// or, when the run is gated, once it shows non-inferiority at the gate's max_pass_drop; the control
// runs while any candidate does. The run stops when every candidate is decided or before a round the
// budget cannot pay for: --max-trials (trials of the whole run, resumed ones included; only whole
// rounds run) or --max-cost (the cost so far plus the mean round's). Because the sequence is valid at
// every round at once, looking after each round keeps the chance of a false better/worse (or a false
// non-inferiority) at or below alpha; a fixed-sample p-value read this way would not (the test
// tests/suite/scorecard/sequential-sim.test.ts shows both). The verdicts and the gate of such a run
// come from the sequences (the scorecard's `sequential` and each comparison's `test`).
import { existsSync, readFileSync } from "node:fs";
import { ConfigError, ToolError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { runTrials, type SuiteRun, type SuiteRunOptions, scoreSuite } from "./run.ts";
import { ALPHA, type Scorecard, type Trial } from "./scorecard/index.ts";
import { type SequentialOptions, sequentialTest } from "./scorecard/sequential.ts";
import type { Suite } from "./suite.ts";

/** The most rounds a run takes whatever its budget says (a bound on a budget given in dollars alone). */
export const MAX_ROUNDS = 1000;

/** The flags of the sequential mode, as citty defines them. */
export const UNTIL_ARGS = {
  "until-decided": {
    type: "boolean",
    description:
      "run in rounds (every task once per arm) until each comparison is decided or the budget ends",
  },
  "max-trials": { type: "string", description: "with --until-decided: at most N trials in the whole run" },
  "max-cost": { type: "string", description: "with --until-decided: at most USD spent (reported cost)" },
} as const;

/** The sequential flags as citty hands them over. */
export interface UntilFlags {
  "until-decided"?: boolean;
  "max-trials"?: string;
  "max-cost"?: string;
  shard?: string;
}

/** A sequential run's budget. */
export interface Budget {
  maxTrials?: number;
  maxCost?: number;
}

/** The sequential flags checked: the budget with --until-decided, else undefined; a bad one is a ToolError (exit 1). */
export function parseUntilFlags(f: UntilFlags): Budget | undefined {
  const given = (["max-trials", "max-cost"] as const).filter((k) => f[k] !== undefined);
  if (f["until-decided"] !== true) {
    if (given.length > 0) throw new ToolError(`--${given[0]} needs --until-decided`, 1);
    return undefined;
  }
  if (f.shard !== undefined)
    throw new ToolError(
      "--until-decided with --shard: a sequential run decides on all its trials; run it whole",
      1,
    );
  if (given.length === 0)
    throw new ToolError("--until-decided needs a budget: --max-trials N or --max-cost USD", 1);
  return {
    ...(f["max-trials"] !== undefined
      ? { maxTrials: numberFlag("--max-trials", f["max-trials"], { min: 1 }) }
      : {}),
    ...(f["max-cost"] !== undefined
      ? { maxCost: numberFlag("--max-cost", f["max-cost"], { integer: false, min: 0 }) }
      : {}),
  };
}

/** The rounds a trials file already holds (1 + its highest repeat; 0 when it has none). */
function roundsIn(path: string | undefined): number {
  if (path === undefined || !existsSync(path)) return 0;
  let rounds = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      const r = (JSON.parse(line) as { repeat?: unknown }).repeat;
      if (typeof r === "number" && Number.isSafeInteger(r)) rounds = Math.max(rounds, r + 1);
    } catch {
      // the header, a blank or a torn last line: the resume reads the file properly
    }
  }
  return Math.min(rounds, MAX_ROUNDS);
}

/** What a sequential run gives: run.ts's SuiteRun plus why it stopped. */
export interface SequentialRun extends SuiteRun {
  stopped: "decided" | "max-trials" | "max-cost";
  rounds: number;
}

/**
 * Runs `suite` in rounds until decided or out of budget; `seq` is the sequence's alpha and (gated) margin.
 * `onRound` is told each round's number (from 0) and its trial count before it starts.
 */
export async function runUntilDecided(
  suite: Suite,
  opts: SuiteRunOptions,
  budget: Budget,
  seq: SequentialOptions,
  onRound?: (round: number, trials: number) => void,
  warn: (message: string) => void = () => {},
): Promise<SequentialRun> {
  const control = suite.control;
  const active = new Set(suite.variants.map((v) => v.name).filter((v) => v !== control));
  const perRound = (n: number) => suite.tasks.length * (1 + n);
  if (budget.maxTrials !== undefined && budget.maxTrials < perRound(active.size))
    throw new ConfigError(
      `suite ${suite.name}: --max-trials ${budget.maxTrials} is less than one round (${suite.tasks.length} tasks x ${active.size + 1} variants = ${perRound(active.size)} trials)`,
    );
  const stored = opts.resume ? roundsIn(opts.trialsFile) : 0;
  const trials: Trial[] = [];
  let resumed = 0;
  let spent = 0;
  let round = 0;
  let stopped: SequentialRun["stopped"] = "decided";
  while (active.size > 0) {
    const size = perRound(active.size);
    if (round >= MAX_ROUNDS || (budget.maxTrials !== undefined && trials.length + size > budget.maxTrials)) {
      stopped = "max-trials";
      break;
    }
    if (budget.maxCost !== undefined && round > 0) {
      if (spent === 0 && budget.maxTrials === undefined) {
        warn("--max-cost: no trial reported a cost, so it cannot bound this run: stopped; give --max-trials");
        stopped = "max-cost";
        break;
      }
      if (spent + spent / round > budget.maxCost) {
        stopped = "max-cost";
        break;
      }
    }
    onRound?.(round, size);
    const r = round;
    const { trials: got, resumed: kept } = await runTrials(
      { ...suite, repeats: Math.max(r + 1, stored) },
      {
        ...opts,
        // A round's progress counts the trials it runs; resumed ones are not re-counted.
        onResumed: () => {},
        resume: r > 0 || opts.resume === true,
        select: (j) => j.repeat === r && (j.variant.name === control || active.has(j.variant.name)),
      },
    );
    if (r === 0) resumed = kept;
    trials.push(...got);
    spent += got.reduce((sum, t) => sum + t.costUSD, 0);
    for (const v of [...active])
      if (sequentialTest(trials, control, v, seq).decision !== undefined) active.delete(v);
    round++;
  }
  const scorecard: Scorecard = scoreSuite(suite, trials, { ...opts, sequential: seq });
  scorecard.sequential = {
    alpha: seq.alpha,
    ...(seq.margin ? { margin: seq.margin } : {}),
    rounds: round,
    stopped,
  };
  return { trials, resumed, scorecard, stopped, rounds: round };
}

/** The sequence's settings for a run: alpha, and the gate's margin when the run is gated (else none). */
export function sequentialOptions(gated: boolean, maxPassDrop: number): SequentialOptions {
  return { alpha: ALPHA, ...(gated ? { margin: maxPassDrop } : {}) };
}

// The verdicts of a run that stopped when decided (`agent-eval suite --until-decided`), read back from
// its trials. A round is every task once in both arms (the trials' `repeat` is the round); its
// observation is each task's difference variant pass - control pass, and the comparison's anytime-
// valid confidence sequence (lib/stats/sequence.ts) takes the complete rounds in order until its
// first decision: better or worse once it excludes 0, non-inferior once it excludes -margin (only when
// the run is gated). A round missing a trial of a task (an infrastructure failure) is left out whole:
// infrastructure failures are outside the agent, so leaving their rounds out keeps the rest a fair
// sample. Unscored trials count as the fails they are, as in every rate. The estimand is the mean
// difference over these tasks (the suite as a fixed benchmark); the fixed design's exact test speaks
// for tasks like these instead. Pure: the run's decisions and the scorecard's are the same function.
import { confidenceSequence, PairedSequence } from "../../stats/index.ts";
import type { Trial } from "./schema.ts";
import type { TestInfo } from "./verdict.ts";

/** The sequence's level and, when the run is gated, the non-inferiority margin it watches. */
export interface SequentialOptions {
  alpha: number;
  margin?: number;
}

/** The complete rounds of `variant` against `control`, in round order: one difference per task. */
export function pairedRounds(trials: readonly Trial[], control: string, variant: string): number[][] {
  const tasks = [
    ...new Set(trials.filter((t) => t.variant === control || t.variant === variant).map((t) => t.task)),
  ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pass = new Map<string, number>();
  let last = -1;
  for (const t of trials) {
    if ((t.variant !== control && t.variant !== variant) || t.infra !== undefined) continue;
    pass.set(`${t.variant}\u0000${t.task}\u0000${t.repeat}`, t.pass ? 1 : 0);
    last = Math.max(last, t.repeat);
  }
  const rounds: number[][] = [];
  for (let r = 0; r <= last; r++) {
    const round: number[] = [];
    for (const task of tasks) {
      const v = pass.get(`${variant}\u0000${task}\u0000${r}`);
      const c = pass.get(`${control}\u0000${task}\u0000${r}`);
      if (v === undefined || c === undefined) break;
      round.push(v - c);
    }
    if (round.length === tasks.length && tasks.length > 0) rounds.push(round);
  }
  return rounds;
}

/**
 * The sequence's test of `variant` against `control` over the trials: its decision (if any), the
 * complete rounds up to it, and the sequence's bounds there.
 */
export function sequentialTest(
  trials: readonly Trial[],
  control: string,
  variant: string,
  opts: SequentialOptions,
): TestInfo {
  const rounds = pairedRounds(trials, control, variant);
  const seq = new PairedSequence({ alpha: opts.alpha, ...(opts.margin ? { margin: opts.margin } : {}) });
  for (const round of rounds) {
    seq.push(round);
    if (seq.decision()) break;
  }
  const used = rounds.slice(0, seq.rounds);
  const decided = seq.decision();
  const base: TestInfo = { method: "confidence-sequence", alpha: opts.alpha, rounds: used.length };
  if (used.length === 0) return { ...base, lo: -1, hi: 1 };
  const cs = confidenceSequence(used, { alpha: opts.alpha });
  return { ...base, lo: cs.lo, hi: cs.hi, ...(decided ? { decision: decided.decision } : {}) };
}

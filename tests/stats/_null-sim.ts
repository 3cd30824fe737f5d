// The simulations behind null-sim.test.ts, run in a process of their own (as _coverage.ts is): null
// suites, where both arms pass each task at the same rate, so every better/worse is false.
//   fixed:      SUITES (4,000) suites of T tasks x 3 repeats, one look: the exact sign-flip test's false verdict
//               rate, and the old rule's (the bootstrap interval excluding 0, zero width excepted).
//   sequential: SUITES suites of 10 tasks, up to ROUNDS rounds, looking after every round: the
//               confidence sequence's false better/worse rate, and the fixed test's when it is
//               (wrongly) re-read after every round from round 3 on.
//   margin:     the same suites with the candidate worse by exactly the margin on every task: the
//               sequence's false non-inferiority rate.
//   coverage:   suites with a true difference of +0.2 on every task: the share whose running sequence
//               held the truth at every round (time-uniform coverage).
// Population of per-task rates as in coverage.test.ts. Seeded: deterministic. Prints one JSON object.
import { bootstrapMean, PairedSequence, Rng, signFlipTest } from "../../lib/stats/index.ts";

const POPULATION = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1, 1];
const ALPHA = 0.05;
const SUITES = Number(process.env.SIM_SUITES ?? 4000);
const ROUNDS = Number(process.env.SIM_ROUNDS ?? 40);
const rng = new Rng(11);
const bit = (p: number) => (rng.next() < p ? 1 : 0);

function fixed(tasks: number): { exact: number; bootstrap: number } {
  let exact = 0;
  let bootstrap = 0;
  for (let s = 0; s < SUITES; s++) {
    const diffs = Array.from({ length: tasks }, () => {
      const p = POPULATION[rng.int(POPULATION.length)]!;
      let d = 0;
      for (let r = 0; r < 3; r++) d += bit(p) - bit(p);
      return d / 3;
    });
    if (signFlipTest(diffs, { seed: s + 1 }).p <= ALPHA) exact++;
    const ci = bootstrapMean(diffs, { seed: s + 1, iterations: 1000 });
    if (ci.lo !== ci.hi && (ci.lo > 0 || ci.hi < 0)) bootstrap++;
  }
  return { exact: exact / SUITES, bootstrap: bootstrap / SUITES };
}

/** One suite's rounds: each task's difference per round, the candidate's rate shifted by `shift`. */
function suiteRounds(tasks: number, shift: number): number[][] {
  const rates = Array.from({ length: tasks }, () => {
    const p = POPULATION[rng.int(POPULATION.length)]!;
    // keep both rates in [0, 1]: the control's at least the shift's size away from the edge it moves to
    const c = shift < 0 ? Math.max(p, -shift) : Math.min(p, 1 - shift);
    return { c, v: c + shift };
  });
  return Array.from({ length: ROUNDS }, () => rates.map(({ c, v }) => bit(v) - bit(c)));
}

function sequential(): { sequence: number; peekedFixed: number; meanRounds: number } {
  let sequence = 0;
  let peeked = 0;
  let rounds = 0;
  for (let s = 0; s < SUITES; s++) {
    const all = suiteRounds(10, 0);
    const seq = new PairedSequence({ alpha: ALPHA });
    for (const round of all) {
      seq.push(round);
      if (seq.decision()) break;
    }
    if (seq.decision()) sequence++;
    rounds += seq.rounds;
    // The fixed test read after every round: per-task means so far, from 3 rounds on.
    const sums = new Array<number>(10).fill(0);
    let hit = false;
    all.forEach((round, r) => {
      round.forEach((d, t) => {
        sums[t]! += d;
      });
      if (
        !hit &&
        r >= 2 &&
        signFlipTest(
          sums.map((x) => x / (r + 1)),
          { seed: s + 1 },
        ).p <= ALPHA
      )
        hit = true;
    });
    if (hit) peeked++;
  }
  return { sequence: sequence / SUITES, peekedFixed: peeked / SUITES, meanRounds: rounds / SUITES };
}

function margin(m: number): number {
  let settled = 0;
  for (let s = 0; s < SUITES; s++) {
    const seq = new PairedSequence({ alpha: ALPHA, margin: m });
    for (const round of suiteRounds(10, -m)) {
      seq.push(round);
      if (seq.decision()) break;
    }
    const d = seq.decision()?.decision;
    if (d === "non-inferior" || d === "better") settled++;
  }
  return settled / SUITES;
}

function coverage(delta: number): number {
  let held = 0;
  for (let s = 0; s < SUITES; s++) {
    // The sequence at the truth: observations less delta, on the range shifted with them.
    const seq = new PairedSequence({ alpha: ALPHA, lo: -1 - delta, hi: 1 - delta });
    for (const round of suiteRounds(10, delta)) {
      seq.push(round.map((d) => d - delta));
      if (seq.decision()) break;
    }
    if (!seq.decision()) held++;
  }
  return held / SUITES;
}

const out = {
  suites: SUITES,
  rounds: ROUNDS,
  fixed: { tasks6: fixed(6), tasks10: fixed(10), tasks20: fixed(20) },
  sequential: sequential(),
  margin: margin(0.05),
  coverage: coverage(0.2),
};
process.stdout.write(JSON.stringify(out));

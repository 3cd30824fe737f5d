// The simulation behind coverage.test.ts, run in a process of its own: 2,000 scorecards are
// CPU- and allocation-heavy, and inside the whole suite's long-lived process (a large heap, other
// files' servers) the same loop ran ten times slower than alone. Prints {byTask, byTrial, suites}.
import { Rng } from "../../../lib/stats/index.ts";
import { buildScorecard, type Trial } from "../../../lib/suite/scorecard/index.ts";

const POPULATION = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1, 1];
const TRUTH = POPULATION.reduce((s, p) => s + p, 0) / POPULATION.length;
const SUITES = 2000;
const TASKS = 40;
const REPEATS = 3;

const rng = new Rng(7);
let byTask = 0;
let byTrial = 0;
for (let s = 0; s < SUITES; s++) {
  const trials: Trial[] = [];
  for (let t = 0; t < TASKS; t++) {
    const p = POPULATION[rng.int(POPULATION.length)]!;
    for (let r = 0; r < REPEATS; r++)
      trials.push({
        task: `t${t}`,
        variant: "v",
        repeat: r,
        pass: rng.next() < p,
        costUSD: 0,
        turns: 0,
        wallMs: 0,
        tokens: 0,
        toolErrors: 0,
      });
  }
  const v = buildScorecard("sim", "v", ["v"], trials, { seed: s + 1 }).variants[0]!;
  if (v.pass1TaskCILo! <= TRUTH && TRUTH <= v.pass1TaskCIHi!) byTask += 1;
  if (v.pass1CILo <= TRUTH && TRUTH <= v.pass1CIHi) byTrial += 1;
}
process.stdout.write(JSON.stringify({ byTask, byTrial, suites: SUITES, truth: TRUTH }));

// The statistics test of issue 5: across 2,000 simulated suites of 40 tasks with known pass rates,
// the 95% cluster-bootstrap interval for the pass rate covers the truth 93% to 97% of the time. The
// tasks of each suite are drawn from a known population of per-task rates (the truth is its mean:
// what resampling tasks estimates); trials pass independently at their task's rate. Full 2000
// bootstrap iterations, fixed seeds: deterministic, so it cannot flake (about 1 s per scenario).
import { describe, expect, test } from "bun:test";
import { bootstrapRatio, Rng } from "../../lib/stats/index.ts";

/** Per-task pass rates of the task population, equally likely: the truth is their mean, 0.5625. */
const POPULATION = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1, 1];
const TRUTH = POPULATION.reduce((s, p) => s + p, 0) / POPULATION.length;

interface Scenario {
  name: string;
  suites: number;
  tasks: number;
  trials: (rng: Rng) => number;
  seed: number;
}

/** The share of simulated suites whose 95% interval covers TRUTH. */
function coverage({ suites, tasks, trials, seed }: Scenario): number {
  const rng = new Rng(seed);
  let covered = 0;
  for (let s = 0; s < suites; s++) {
    const clusters = Array.from({ length: tasks }, () => {
      const p = POPULATION[rng.int(POPULATION.length)]!;
      const n = trials(rng);
      let passes = 0;
      for (let t = 0; t < n; t++) if (rng.next() < p) passes += 1;
      return { num: passes, den: n };
    });
    const ci = bootstrapRatio(clusters, { seed: seed * 100_000 + s });
    if (ci.lo <= TRUTH && TRUTH <= ci.hi) covered += 1;
  }
  return covered / suites;
}

describe("cluster bootstrap coverage", () => {
  const scenarios: Scenario[] = [
    { name: "40 tasks x 3 trials", suites: 2000, tasks: 40, trials: () => 3, seed: 1 },
    {
      name: "40 tasks x 1-5 trials (uneven)",
      suites: 2000,
      tasks: 40,
      trials: (rng) => 1 + rng.int(5),
      seed: 2,
    },
  ];
  test.each(scenarios)(
    "$name: the 95 percent interval covers the truth 93 to 97 percent of the time",
    (scenario) => {
      const share = coverage(scenario);
      expect({ share, inBand: share >= 0.93 && share <= 0.97 }).toEqual({ share, inBand: true });
    },
  );
});

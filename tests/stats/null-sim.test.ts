// Issue 24's simulations (tests/stats/_null-sim.ts, its own process, seeded, about 3 s): 4,000 null
// suites at each size and in each mode, where both arms pass every task at the same rate.
//   - the exact sign-flip test, one look: false better/worse at most 5% at 6, 10 and 20 tasks (it is
//     conservative: tasks passed or failed by both arms carry no sign), where the old rule (the
//     bootstrap interval excluding 0) said so more than 5% of the time;
//   - the confidence sequence looked at after every one of 40 rounds: false better/worse at most 5%,
//     where the fixed test re-read each round is not;
//   - with the candidate worse by exactly the 5-point margin: false non-inferiority at most 5%;
//   - with a true +20 points: the running sequence holds the truth at every round in at least 95%.
// Reproduce: npx bun tests/stats/_null-sim.ts (SIM_SUITES=..., SIM_ROUNDS=... to vary).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { BIN } from "../support/tools.ts";

interface Sim {
  suites: number;
  fixed: Record<string, { exact: number; bootstrap: number }>;
  sequential: { sequence: number; peekedFixed: number; meanRounds: number };
  margin: number;
  coverage: number;
}

test("null suites: the exact test and the sequence under peeking keep false verdicts at or below 5%", async () => {
  const r = await run([BIN.bun, join(import.meta.dirname, "_null-sim.ts")]);
  expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: "" });
  const sim = JSON.parse(r.stdout) as Sim;
  const fixed = Object.fromEntries(
    Object.entries(sim.fixed).map(([k, v]) => [
      k,
      { ...v, exactOk: v.exact <= 0.05, oldOver: v.bootstrap > 0.05 },
    ]),
  );
  expect({
    suites: sim.suites,
    fixed,
    sequential: {
      ...sim.sequential,
      sequenceOk: sim.sequential.sequence <= 0.05,
      peekedOver: sim.sequential.peekedFixed > 0.05,
    },
    margin: { rate: sim.margin, ok: sim.margin <= 0.05 },
    coverage: { share: sim.coverage, ok: sim.coverage >= 0.95 },
  }).toEqual({
    suites: 4000,
    fixed: Object.fromEntries(
      Object.entries(sim.fixed).map(([k, v]) => [k, { ...v, exactOk: true, oldOver: true }]),
    ),
    sequential: { ...sim.sequential, sequenceOk: true, peekedOver: true },
    margin: { rate: sim.margin, ok: true },
    coverage: { share: sim.coverage, ok: true },
  });
});

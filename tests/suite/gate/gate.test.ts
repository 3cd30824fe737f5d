// The gate's decisions, the original's table (gate_test.go TestGateVerdicts) run over 6 tasks instead
// of its 4, since ours never ships on fewer than 6; then what 4 tasks give here. The pass rate is
// decided by the exact sign-flip tests (the bootstrap interval shown beside them); the original's
// TestGraderErrorsHold is reversed: grader errors are the candidate's fails and its block stands.
import { describe, expect, test } from "bun:test";
import { applyGate, gateOf, thresholdsOf } from "../../../lib/suite/gate.ts";
import { buildScorecard, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { trialOf } from "../_support.ts";

/** One trial per outcome for variant/task, as the original's `arm`. */
function arm(
  variant: string,
  task: string,
  cost: number,
  outcomes: boolean[],
  over: Partial<Trial> = {},
): Trial[] {
  return outcomes.map((pass, repeat) =>
    trialOf(variant, task, {
      repeat,
      pass,
      costUSD: cost,
      wallMs: 1000,
      tokens: 1000,
      toolCalls: 10,
      ...over,
    }),
  );
}
const PASS = [true, true, true];
const FAIL = [false, false, false];
const SIX = ["a", "b", "c", "d", "e", "f"];

function build(tasks: string[], base: (t: string) => Trial[], cand: (t: string) => Trial[]): Trial[] {
  return tasks.flatMap((t) => [...base(t), ...cand(t)]);
}
const basePass = (t: string) => arm("base", t, 0.1, PASS);
const candAll = (cost: number) => (t: string) => arm("cand", t, cost, PASS);
const lastFails = (t: string) => arm("cand", t, 0.1, t === "f" ? FAIL : PASS);

const cases = [
  {
    name: "identical arms ship",
    gate: {},
    trials: build(SIX, basePass, candAll(0.1)),
    verdict: "ship",
    reason:
      "non-inferior on 6 tasks: pass rate +0.0 pp (95% CI +0.0 to +0.0), exact one-sided p = 0.016 at the -5.0 pp margin",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "total collapse blocks",
    gate: {},
    trials: build(SIX, basePass, (t) => arm("cand", t, 0.1, FAIL)),
    verdict: "block",
    reason: "pass rate significantly worse: -100.0 pp (95% CI -100.0 to -100.0), exact sign-flip p = 0.031",
    regressed: 6,
    flaky: 0,
  },
  {
    name: "one regressed task blocks at max 0",
    gate: {},
    trials: build(SIX, basePass, lastFails),
    verdict: "block",
    reason: "1 tasks regressed (max 0)",
    regressed: 1,
    flaky: 0,
  },
  {
    name: "one regressed task holds at max 1",
    gate: { max_regressed_tasks: 1 },
    trials: build(SIX, basePass, lastFails),
    verdict: "hold",
    reason:
      "pass rate not shown within the -5.0 pp margin: -16.7 pp (95% CI -50.0 to +0.0), exact one-sided p = 0.516 at the -5.0 pp margin (needs <= 0.025); inconclusive",
    regressed: 1,
    flaky: 0,
  },
  {
    name: "a wide margin does not ship a task that dropped past it: 2 of 64 patterns, p 0.031 > 0.025",
    gate: { max_regressed_tasks: 1, max_pass_drop: 0.8 },
    trials: build(SIX, basePass, lastFails),
    verdict: "hold",
    reason:
      "pass rate not shown within the -80.0 pp margin: -16.7 pp (95% CI -50.0 to +0.0), exact one-sided p = 0.031 at the -80.0 pp margin (needs <= 0.025); inconclusive",
    regressed: 1,
    flaky: 0,
  },
  {
    name: "a wide margin ships a drop within it",
    gate: { max_pass_drop: 0.5 },
    trials: build(SIX, basePass, (t) => arm("cand", t, 0.1, t === "f" ? [true, true, false] : PASS)),
    verdict: "ship",
    reason:
      "non-inferior on 6 tasks: pass rate -5.6 pp (95% CI -16.7 to +0.0), exact one-sided p = 0.016 at the -50.0 pp margin",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "cost doubling blocks when gated",
    gate: { max_cost_increase: 0.2 },
    trials: build(SIX, basePass, candAll(0.2)),
    verdict: "block",
    reason: "cost_usd up +100% (CI +100% to +100%), limit +20%",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "cost doubling is ignored when ungated",
    gate: {},
    trials: build(SIX, basePass, candAll(0.2)),
    verdict: "ship",
    reason:
      "non-inferior on 6 tasks: pass rate +0.0 pp (95% CI +0.0 to +0.0), exact one-sided p = 0.016 at the -5.0 pp margin",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "a zero baseline cost is reported, not gated",
    gate: { max_cost_increase: 0.2 },
    trials: build(SIX, (t) => arm("base", t, 0, PASS), candAll(0.2)),
    verdict: "ship",
    reason: "cost_usd not gated: baseline mean is 0 (harness does not report it)",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "a flaky baseline task is left out, and too few remain to ship",
    gate: {},
    trials: build(
      SIX,
      (t) => arm("base", t, 0.1, t === "a" ? [true, false, true] : FAIL),
      (t) => arm("cand", t, 0.1, FAIL),
    ),
    verdict: "hold",
    reason: "insufficient evidence to ship: only 5 non-flaky tasks; a ship needs at least 6",
    regressed: 0,
    flaky: 1,
  },
  {
    name: "all flaky holds",
    gate: {},
    trials: build(SIX, (t) => arm("base", t, 0.1, [true, false, true]), candAll(0.1)),
    verdict: "hold",
    reason: "only 0 non-flaky tasks (6 flaky); need 1",
    regressed: 0,
    flaky: 6,
  },
  {
    name: "min_tasks holds",
    gate: { min_tasks: 7 },
    trials: build(SIX, basePass, candAll(0.1)),
    verdict: "hold",
    reason: "only 6 non-flaky tasks (0 flaky); need 7",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "the original's 4 identical tasks: too few to ship",
    gate: {},
    trials: build(SIX.slice(0, 4), basePass, candAll(0.1)),
    verdict: "hold",
    reason: "insufficient evidence to ship: only 4 non-flaky tasks; a ship needs at least 6",
    regressed: 0,
    flaky: 0,
  },
  {
    name: "the original's 4 tasks still block on a regression",
    gate: {},
    trials: build(["a", "b", "c", "f"], basePass, lastFails),
    verdict: "block",
    reason: "1 tasks regressed (max 0)",
    regressed: 1,
    flaky: 0,
  },
];

describe("gate verdicts", () => {
  test.each(cases)("$name", ({ gate, trials, verdict, reason, regressed, flaky }) => {
    const sc = applyGate(buildScorecard("g", "base", ["base", "cand"], trials), thresholdsOf(gate));
    const g = sc.comparisons![0]!.gate!;
    expect({
      verdict: g.verdict as string,
      scorecard: sc.gate?.verdict as string | undefined,
      hasReason: g.reasons?.includes(reason),
      regressed: (g.regressed ?? []).length,
      flaky: (g.flaky ?? []).map((t): [string, boolean] => [t.status, t.reason !== undefined]),
    }).toEqual({
      verdict,
      scorecard: verdict,
      hasReason: true,
      regressed,
      flaky: Array.from({ length: flaky }, (): [string, boolean] => ["flaky", true]),
    });
  });

  test("grader errors are the candidate's fails: its block stands (the original held), reasons prefixed by variant", () => {
    const trials = SIX.flatMap((t) => {
      const c = arm("cand", t, 0.1, PASS);
      c[0] = { ...c[0]!, pass: false, graderError: "judge: judge reply failed schema validation" };
      return [...arm("base", t, 0.1, PASS), ...c];
    });
    const sc = applyGate(buildScorecard("g", "base", ["base", "cand"], trials), thresholdsOf(undefined));
    expect(sc.gate).toEqual({
      verdict: "block",
      reasons: [
        "cand: pass rate significantly worse: -33.3 pp (95% CI -33.3 to -33.3), exact sign-flip p = 0.031",
      ],
    });
  });

  test("infrastructure failures are left out of the gate", () => {
    const trials = build(SIX, basePass, candAll(0.1));
    trials.push(...arm("cand", "a", 0, [false, false], { infra: "start", error: "start: no engine" }));
    expect(
      gateOf(
        trials.filter((t) => t.variant === "base"),
        trials.filter((t) => t.variant === "cand"),
        thresholdsOf(undefined),
        1,
      ).gate.verdict,
    ).toEqual("ship");
  });

  test("one variant: no comparison, no gate (the original's)", () => {
    const sc = applyGate(
      buildScorecard("g", "base", ["base"], arm("base", "a", 0.1, PASS)),
      thresholdsOf(undefined),
    );
    expect([sc.gate, sc.thresholds]).toEqual([undefined, undefined]);
  });

  test("the scorecard carries the thresholds, defaults applied, in the original's JSON names", () => {
    const sc = applyGate(
      buildScorecard("g", "base", ["base", "cand"], build(SIX, basePass, candAll(0.1))),
      thresholdsOf({ max_cost_increase: 0.25 }),
    );
    expect(sc.thresholds).toEqual({
      maxPassDrop: 0.05,
      maxCostIncrease: 0.25,
      taskRegression: 0.5,
      maxRegressedTasks: 0,
      minTasks: 1,
    });
  });
});

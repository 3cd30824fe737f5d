// `agent-eval plan --suite | --scorecard`: the paired power math (lib/stats), the table from a suite
// file (trial noise at the baseline rate) and from a past scorecard (its measured spread), and bad
// command lines refused with the promotion edge's JSON line and exit code.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { pairedDetectable, pairedSampleSize } from "../../../lib/stats/index.ts";
import { suitePlan } from "../../../lib/suite/plan.ts";
import { buildScorecard, scorecardJson, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { trialOf } from "../_support.ts";

const ANY = join(REPO_ROOT, "tests", "fixtures", "suite", "any-agent", "suites", "any.yaml");

describe("paired power", () => {
  // ((1.959964 + 0.841621) * sd / delta)^2, rounded up.
  const cases = [
    { sd: Math.SQRT1_2, delta: 0.1, n: 393 },
    { sd: 0.5, delta: 0.2, n: 50 },
    { sd: 0.2, delta: 0.1, n: 32 },
    { sd: 0, delta: 0.1, n: 1 },
  ];
  test.each(cases)("sd $sd, delta $delta: $n tasks", ({ sd, delta, n }) => {
    expect(pairedSampleSize(sd, delta)).toEqual(n);
  });
  test("detectable is the inverse: 393 tasks at sd 0.7071 detect 0.1", () => {
    expect(Math.round(pairedDetectable(Math.SQRT1_2, 393) * 1000) / 1000).toEqual(0.1);
  });
  test.each([
    [-1, 0.1],
    [0.5, 0],
    [Number.NaN, 0.1],
  ])("refuses sd %p, delta %p", (sd, delta) => {
    expect(() => pairedSampleSize(sd, delta)).toThrow();
  });
});

const t = (variant: string, task: string, repeat: number, pass: boolean): Trial =>
  trialOf(variant, task, { repeat, pass });

describe("suitePlan", () => {
  test("from a suite file: rows by repeats and drop, never fewer than 6 tasks", () => {
    const plan = suitePlan({ suite: ANY, drop: "0.2", baseline: "0.8" });
    expect({ ...plan, rows: plan.rows.map((r) => [r.repeats, r.sd, r.tasks_needed]) }).toEqual({
      suite: "any-agent",
      source: "suite",
      tasks: 1,
      repeats: 1,
      baseline_rate: 0.8,
      sd_from: "trial noise at the baseline rate: sqrt(2 p (1 - p) / repeats)",
      alpha: 0.05,
      power: 0.8,
      min_tasks: 6,
      rows: [
        [1, 0.5657, 63],
        [2, 0.4, 32],
        [3, 0.3266, 21],
        [5, 0.253, 13],
        [10, 0.1789, 7],
      ],
      detectable_drop: null,
    });
  });

  test("from a past scorecard: its measured spread, its tasks and repeats", () => {
    using dir = tempDir("proctor-plan");
    const trials: Trial[] = [];
    for (const [i, task] of ["a", "b", "c", "d", "e", "f", "g", "h"].entries())
      for (const r of [0, 1])
        trials.push(t("base", task, r, true), t("cand", task, r, i % 2 === 0 || r === 0));
    const path = join(dir.path, "sc.json");
    writeFileSync(path, scorecardJson(buildScorecard("s", "base", ["base", "cand"], trials)));
    const plan = suitePlan({ scorecard: path, drop: "0.1" });
    expect({ ...plan, rows: plan.rows.map((r) => [r.repeats, r.sd, r.tasks_needed]) }).toEqual({
      suite: "s",
      source: "scorecard",
      tasks: 8,
      repeats: 2,
      baseline_rate: 1,
      sd_from: "measured: per-task differences of cand (the widest comparison)",
      alpha: 0.05,
      power: 0.8,
      min_tasks: 6,
      rows: [[2, 0.2673, 57]],
      detectable_drop: 0.2647,
    });
  });

  const bad = [
    {
      name: "neither source",
      opts: {},
      message: "plan: give --suite SUITE.yaml or --scorecard FILE, not both",
    },
    {
      name: "both sources",
      opts: { suite: ANY, scorecard: "x.json" },
      message: "plan: give --suite SUITE.yaml or --scorecard FILE, not both",
    },
    { name: "a drop of 0", opts: { suite: ANY, drop: "0" }, message: "--drop must be in (0, 1], got 0" },
    {
      name: "a baseline above 1",
      opts: { suite: ANY, baseline: "1.5" },
      message: "--baseline must be a rate in 0..1, got 1.5",
    },
  ];
  test.each(bad)("refuses $name", ({ opts, message }) => {
    expect(() => suitePlan(opts)).toThrow(message);
  });
});

describe("agent-eval plan --suite through the entry", () => {
  const cli = async (args: string[]) => {
    const r = await run([process.execPath, join(REPO_ROOT, "scripts", "agent-eval.ts"), "plan", ...args], {
      cwd: REPO_ROOT,
    });
    return { exitCode: r.exitCode, json: JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "null") };
  };
  test("a plan (exit 0), a missing file (exit 3), a bad or misspelt flag (exit 2)", async () => {
    const ok = await cli(["--suite", ANY, "--drop", "0.1"]);
    const missing = await cli(["--suite", "/nonexistent/s.yaml"]);
    const usage = await cli(["--suite", ANY, "--scorecard", "x.json"]);
    const misspelt = await cli(["--suite", ANY, "--drpo", "0.1"]);
    expect([
      [ok.exitCode, ok.json.suite, ok.json.rows.length],
      [missing.exitCode, missing.json],
      [usage.exitCode, usage.json],
      [misspelt.exitCode, misspelt.json],
    ]).toEqual([
      [0, "any-agent", 5],
      [3, { error: 'Cannot read suite "/nonexistent/s.yaml": no such file', exit: 3 }],
      [2, { error: "plan: give --suite SUITE.yaml or --scorecard FILE, not both", exit: 2 }],
      [
        2,
        {
          error: 'Cannot accept unknown flag "--drpo": did you mean --drop? (see agent-eval plan --help)',
          exit: 2,
        },
      ],
    ]);
  });
});

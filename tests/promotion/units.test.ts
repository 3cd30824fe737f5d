// Pure parts of the promotion lane: the scrubber, the verdict rule and its statistics, the plan
// table, the refusals and the formats a run writes.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, UsageError } from "../../lib/core/errors.ts";
import { scrubber, withPrefixes } from "../../lib/promotion/blind.ts";
import { refusal } from "../../lib/promotion/options.ts";
import { promotionPlan, renderPlan } from "../../lib/promotion/plan.ts";
import {
  keyJson,
  loadProvenance,
  loadScores,
  loadSealedKey,
  promotionRunJsonSchemas,
  pyDump,
  resultJson,
  verdictJson,
} from "../../lib/promotion/records.ts";
import { decide, differenceInterval, runsNeeded, verdictStats } from "../../lib/promotion/verdict.ts";
import { wilson } from "../../lib/stats/index.ts";
import { tempDir } from "../support/tmp.ts";

describe("scrubber", () => {
  test("the original's example: refs as whole words, SHAs anywhere", () => {
    expect(
      scrubber(["deadbeef"], ["main", "feat/x"])("domain main main.py remains deadbeefcafe feat/x feat/xy"),
    ).toBe("domain [redacted] [redacted].py remains [redacted]cafe [redacted] feat/xy");
  });
  test.each([
    ["Baseline and CANDIDATE arms", "[redacted] and [redacted] arms"],
    ["baselines candidate_x", "baselines candidate_x"],
    ["/tmp/idd-agent-abc/run and /tmp/idd-agent-abcd", "[redacted]/run and [redacted]d"],
  ])("%p", (input, output) => {
    expect(scrubber(["/tmp/idd-agent-abc"], [])(input)).toBe(output);
  });
  test("longest literal first", () => {
    expect(
      scrubber(withPrefixes(["0123456789abcdef0123"]), [])("x 0123456789abcdef0123 0123456 0123456789abc"),
    ).toBe("x [redacted] [redacted] [redacted]c");
  });
  test("withPrefixes: the id and its 7-12 character prefixes", () => {
    expect([...withPrefixes(["0123456789abcdef"])].sort()).toEqual([
      "0123456",
      "01234567",
      "012345678",
      "0123456789",
      "0123456789a",
      "0123456789ab",
      "0123456789abcdef",
    ]);
  });
});

describe("decide: the original's rule", () => {
  const arm = (passed: number, n: number) => ({ passed, n, pass_rate: n ? passed / n : 0 });
  test.each([
    ["invalid", true, 2, 2, arm(0, 2), arm(2, 2), 0.5],
    ["insufficient", false, 1, 2, arm(0, 1), arm(1, 1), 0.5],
    ["reject", false, 2, 2, arm(2, 2), arm(1, 2), 0.5],
    ["promote", false, 2, 2, arm(0, 2), arm(2, 2), 0.5],
    ["promote", false, 2, 2, arm(1, 2), arm(1, 2), 0.5],
    ["hold", false, 2, 2, arm(0, 2), arm(0, 2), 0.5],
    ["hold", false, 3, 2, arm(1, 3), arm(1, 3), 0.5],
  ] as const)("%s", (result, leaked, perArm, minRuns, b, c, min) => {
    expect(decide(leaked, perArm, minRuns, b, c, min)).toBe(result);
  });
});

describe("verdict statistics", () => {
  test("Wilson per arm, Newcombe difference, runs for 80% power", () => {
    const b = { passed: 1, n: 4, pass_rate: 0.25 };
    const c = { passed: 3, n: 4, pass_rate: 0.75 };
    const wb = wilson(1, 4);
    const wc = wilson(3, 4);
    expect(verdictStats(b, c, 0.5)).toEqual({
      confidence: 0.95,
      baseline: wb,
      candidate: wc,
      difference: differenceInterval(wb, wc),
      power: { power: 0.8, alpha: 0.05, target: "observed", p1: 0.25, p2: 0.75, runs_per_arm: 15 },
    });
  });
  test("Newcombe's worked example (method 10): 56/70 vs 48/80", () => {
    // Newcombe (1998), Statistics in Medicine 17:873, table II example (a): -0.0524 to 0.3339 for p1 - p2.
    const d = differenceInterval(wilson(48, 80), wilson(56, 70));
    expect([d.estimate, d.lo, d.hi].map((x) => Math.round(x * 1e4) / 1e4)).toEqual([0.2, 0.0524, 0.3339]);
  });
  test("no observed difference: power against min_pass_rate; equal rates there too: null", () => {
    const same = { passed: 1, n: 2, pass_rate: 0.5 };
    expect(verdictStats(same, same, 0.8).power).toEqual({
      power: 0.8,
      alpha: 0.05,
      target: "min_pass_rate",
      p1: 0.5,
      p2: 0.8,
      runs_per_arm: runsNeeded(0.5, 0.8),
    });
    expect(verdictStats(same, same, 0.5).power.runs_per_arm).toBeNull();
    expect(verdictStats({ passed: 0, n: 0, pass_rate: 0 }, same, 0.5)).toMatchObject({
      baseline: null,
      difference: null,
    });
  });
});

describe("plan", () => {
  test("one candidate rate, and what a planned run count can detect", () => {
    expect(promotionPlan({ baseline: 0.5, candidate: 0.8, runs: 10 })).toEqual({
      baseline_rate: 0.5,
      alpha: 0.05,
      power: 0.8,
      rows: [{ candidate_rate: 0.8, difference: 0.3, runs_per_arm: 39 }],
      runs: 10,
      detectable_difference: null,
    });
  });
  test("the grid leaves out the baseline itself", () => {
    const plan = promotionPlan({ baseline: 0.5 });
    expect(plan.rows.map((r) => r.candidate_rate)).toEqual([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(plan.rows.find((r) => r.candidate_rate === 1)).toEqual({
      candidate_rate: 1,
      difference: 0.5,
      runs_per_arm: 11,
    });
    expect(renderPlan(plan).split("\n")[1]).toBe("candidate  difference  runs/arm");
  });
  test.each([
    [{ baseline: 1.5 }, "--baseline must be a rate in 0..1, got 1.5"],
    [
      { baseline: 0.5, candidate: 0.5 },
      "--candidate must differ from --baseline: equal rates cannot be told apart",
    ],
    [{ baseline: 0.5, runs: 0 }, "--runs must be an integer >= 1, got 0"],
  ])("%p is a usage error", (opts, message) => {
    expect(() => promotionPlan(opts)).toThrow(new UsageError(message));
  });
});

describe("refusals", () => {
  test.each([
    [{ CI: "true", IDD_EVAL_AGENT: "1" }, "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)"],
    [{ CI: " Yes ", IDD_EVAL_AGENT: "1" }, "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)"],
    [
      { GITHUB_ACTIONS: "true", IDD_EVAL_AGENT: "1" },
      "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)",
    ],
    [{ CI: "0" }, "refused: the promotion lane is opt-in — set IDD_EVAL_AGENT=1"],
    [
      { IDD_EVAL_AGENT: "1", EVAL_RECORD: "1" },
      "refused: EVAL_RECORD=1 would record against real GitHub — unset it",
    ],
    [{ CI: "false", GITHUB_ACTIONS: "false", IDD_EVAL_AGENT: "1" }, null],
  ])("%p", (env, why) => {
    expect(refusal(env)).toBe(why);
  });
});

describe("run formats: malformed files are one ConfigError line", () => {
  test.each([
    [
      "provenance",
      loadProvenance,
      "{",
      'Cannot parse provenance "F": Expecting property name enclosed in double quotes at line 1 column 2',
    ],
    [
      "provenance",
      loadProvenance,
      '{"schema": 1, "kind": "x"}',
      'Cannot load provenance "F": expected "idd-promotion-provenance" at kind, got "x"',
    ],
    [
      "sealed key",
      loadSealedKey,
      '{"zz": {}}',
      'Cannot load sealed key "F": expected a blind id (8 hex digits) as key at top level, got "zz"',
    ],
    [
      "scores",
      loadScores,
      '{"ab12cd34": {"opens-pr": "yes"}}',
      'Cannot load scores "F": expected boolean at ab12cd34.opens-pr, got "yes"',
    ],
    ["scores", loadScores, "[]", 'Cannot load scores "F": expected an object at top level, got []'],
  ] as const)("%s %p", (_kind, load, text, message) => {
    using dir = tempDir("promo-fmt");
    const f = join(dir.path, "f.json");
    writeFileSync(f, text);
    let error: unknown;
    try {
      load(f);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(message.replace("F", f));
  });
});

// The original writes pass rates, thresholds and durations as Python floats: `passed / n`, `0.0`,
// `float(rubric value)`, `round(seconds, 3)`. These are its bytes (json.dumps, sort_keys).
describe("numbers the original writes as floats are written as floats", () => {
  const verdict = {
    result: "promote" as const,
    baseline: { passed: 0, n: 2, pass_rate: 0 },
    candidate: { passed: 2, n: 2, pass_rate: 1 },
    pass_threshold: 1,
    min_pass_rate: 0.5,
    scores_sha256: "ab",
    decided_at: "2026-01-01T00:00:00Z",
  };
  test.each([
    {
      name: "verdict on stdout",
      got: () => resultJson(verdictJson(verdict)),
      want: '{"baseline": {"n": 2, "pass_rate": 0.0, "passed": 0}, "candidate": {"n": 2, "pass_rate": 1.0, "passed": 2}, "decided_at": "2026-01-01T00:00:00Z", "min_pass_rate": 0.5, "pass_threshold": 1.0, "result": "promote", "scores_sha256": "ab"}',
    },
    {
      name: "a rate that is not whole and a threshold from the rubric",
      got: () =>
        resultJson(
          verdictJson({ ...verdict, baseline: { passed: 1, n: 3, pass_rate: 1 / 3 }, pass_threshold: 0 }),
        ),
      want: '{"baseline": {"n": 3, "pass_rate": 0.3333333333333333, "passed": 1}, "candidate": {"n": 2, "pass_rate": 1.0, "passed": 2}, "decided_at": "2026-01-01T00:00:00Z", "min_pass_rate": 0.5, "pass_threshold": 0.0, "result": "promote", "scores_sha256": "ab"}',
    },
    {
      name: "verdict in provenance (indent 2)",
      got: () => pyDump({ verdict: verdictJson({ ...verdict, result: "hold" }) }),
      want: '{\n  "verdict": {\n    "baseline": {\n      "n": 2,\n      "pass_rate": 0.0,\n      "passed": 0\n    },\n    "candidate": {\n      "n": 2,\n      "pass_rate": 1.0,\n      "passed": 2\n    },\n    "decided_at": "2026-01-01T00:00:00Z",\n    "min_pass_rate": 0.5,\n    "pass_threshold": 1.0,\n    "result": "hold",\n    "scores_sha256": "ab"\n  }\n}\n',
    },
    {
      name: "our stats beside it: rates as floats too",
      got: () =>
        resultJson(
          (
            verdictJson({
              ...verdict,
              stats: verdictStats(verdict.baseline, verdict.candidate, 0.5),
            }) as { stats: { power: unknown } }
          ).stats.power,
        ),
      want: '{"alpha": 0.05, "p1": 0.0, "p2": 1.0, "power": 0.8, "runs_per_arm": 2, "target": "observed"}',
    },
    {
      name: "the files a run writes: _dump (sorted, indent 2, non-ASCII kept, trailing newline)",
      got: () => pyDump({ text: "Öffne einen PR — bitte", id: "opens-pr", n: [1, 0.5] }),
      want: '{\n  "id": "opens-pr",\n  "n": [\n    1,\n    0.5\n  ],\n  "text": "Öffne einen PR — bitte"\n}\n',
    },
    {
      name: "sealed key: duration_s round(seconds, 3)",
      got: () =>
        pyDump(
          keyJson({
            a1b2c3d4: {
              arm: "baseline",
              index: 1,
              raw: "raw/a1b2c3d4",
              exit: 0,
              duration_s: 2,
              checks_passed: true,
              leak: false,
              leak_reasons: [],
              skipped: [],
            },
            e5f6a7b8: {
              arm: "candidate",
              index: 1,
              raw: "raw/e5f6a7b8",
              exit: "timeout",
              duration_s: 1.25,
              checks_passed: true,
              leak: false,
              leak_reasons: [],
              skipped: [],
            },
          }),
        )
          .split("\n")
          .filter((l) => l.includes("duration_s"))
          .join("\n"),
      want: '    "duration_s": 2.0,\n    "duration_s": 1.25,',
    },
  ])("$name", ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

describe("schemas/promotion-*.schema.json for the run formats are the generated schemas", () => {
  const SCHEMAS = join(import.meta.dirname, "..", "..", "schemas");
  test.each(Object.entries(promotionRunJsonSchemas()))("%s", (name, schema) => {
    const path = join(SCHEMAS, `promotion-${name}.schema.json`);
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    if (process.env.PROCTOR_WRITE_SCHEMAS === "1") {
      mkdirSync(SCHEMAS, { recursive: true });
      writeFileSync(path, text);
    }
    expect(existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : `missing ${path}`).toEqual(schema);
  });
});

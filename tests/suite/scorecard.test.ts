// The task-suite scorecard: the original's expectations (originals.md §7.6), its JSON and Markdown
// byte for byte, and ours on top: seeded determinism, infrastructure failures kept out of rates,
// pass@k / pass^k, and intervals that resample tasks.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { bootstrapMean, bootstrapRatio } from "../../lib/stats/index.ts";
import {
  buildScorecard,
  loadScorecard,
  renderMarkdown,
  type Scorecard,
  scorecardJson,
  type Trial,
} from "../../lib/suite/scorecard/index.ts";
import { tempDir } from "../support/tmp.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "scorecard");

/** A trial with the original's fields; `over` sets the rest. */
function trial(
  variant: string,
  task: string,
  repeat: number,
  pass: boolean,
  over: Partial<Trial> = {},
): Trial {
  return { task, variant, repeat, pass, costUSD: 0, turns: 0, wallMs: 0, tokens: 0, toolErrors: 0, ...over };
}

/** The fixture suite of TestSuiteEndToEnd: one task, repeats 3, control fails, fixer fixes. */
function endToEndTrials(): Trial[] {
  const trials: Trial[] = [];
  for (const variant of ["control", "fixer"])
    for (let r = 0; r < 3; r++)
      trials.push(
        trial(variant, "fix-bug", r, variant === "fixer", {
          costUSD: variant === "fixer" ? 0.25 : 0.05,
          turns: variant === "fixer" ? 4 : 2,
          wallMs: 1000 * (r + 1),
          tokens: 100,
          toolErrors: variant === "fixer" ? 0 : 1,
          ...(variant === "fixer" ? {} : { error: "agent exit 1: ...no fix" }),
        }),
      );
  return trials;
}

describe("TestSuiteEndToEnd (originals.md §7.6)", () => {
  const sc = buildScorecard("fixture", "control", ["control", "fixer"], endToEndTrials());

  // The original says `better` here, on a degenerate 100..100 interval from one task: ours says the
  // evidence is insufficient, and why (scorecard/verdict.ts).
  test("control pass1 0, fixer 1, delta 1, verdict insufficient (the original: better)", () => {
    expect(sc.variants.map((v) => [v.name, v.trials, v.pass1, v.pass1CILo, v.pass1CIHi])).toEqual([
      ["control", 3, 0, 0, 0],
      ["fixer", 3, 1, 1, 1],
    ]);
    expect(sc.comparisons).toEqual([
      {
        variant: "fixer",
        control: "control",
        tasks: 1,
        delta: 1,
        ciLo: 1,
        ciHi: 1,
        verdict: "insufficient",
        reason:
          "only 1 paired task: the exact test cannot reach significance at 5% on fewer than 6 (the smallest p 1 paired task can give is 1.000)",
        test: { method: "sign-flip", alpha: 0.05, p: 1, n: 1, exact: true },
      },
    ]);
  });

  test("the whole control row, ours included", () => {
    expect(sc.variants[0]).toEqual({
      name: "control",
      trials: 3,
      pass1: 0,
      pass1CILo: 0,
      pass1CIHi: 0,
      costPerTaskUSD: (0.05 + 0.05 + 0.05) / 3,
      wallP50Ms: 2000,
      wallP95Ms: 3000,
      tokens: 300,
      toolErrors: 3,
      errors: 3,
      k: 3,
      passAtK: 0,
      passHatK: 0,
      tasks: 1,
      meanTurns: 2,
      infraFailures: 0,
      pass1TaskCILo: 0,
      pass1TaskCIHi: 0,
      costCILo: (0.05 + 0.05 + 0.05) / 3,
      costCIHi: (0.05 + 0.05 + 0.05) / 3,
      wallMeanMs: 2000,
      wallMeanCILo: 2000,
      wallMeanCIHi: 2000,
      // The agent ran and failed (exit 1, not 126/127): scored fails, the reason counted.
      scored: 3,
      failureReasons: [{ reason: "agent exit 1: ...no fix", count: 3 }],
    });
    expect([sc.version, sc.seed, sc.k, sc.trials]).toEqual([1, 1, 3, endToEndTrials()]);
  });

  test("the Markdown names the fixer, pass@1 and the verdict", () => {
    const md = renderMarkdown(sc);
    expect(["| fixer |", "pass@1", "insufficient"].map((s) => md.includes(s))).toEqual([true, true, true]);
  });

  // Three trials per task (k = 3): pass@3, pass^3 and the task CI say something pass@1 does not.
  test("one full rendering with our columns", () => {
    expect(renderMarkdown(sc)).toMatchInlineSnapshot(`
      "# Eval scorecard: fixture

      Decision: insufficient (fixer vs control) — only 1 paired task: the exact test cannot reach significance at 5% on fewer than 6 (the smallest p 1 paired task can give is 1.000).

      Control: \`control\`

      | Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool errors | Errors | Mean turns | pass@3 | pass^3 | pass@1 (task CI) | Cost/task (task CI) | Wall mean (task CI) |
      |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
      | control | 3 | 0.0% (0.0-0.0) | $0.0500 | 2.0s | 3.0s | 3 | 3 | 2.0 | 0.0% | 0.0% | 0.0-0.0% | $0.0500-$0.0500 | 2.0s (2.0-2.0) |
      | fixer | 3 | 100.0% (100.0-100.0) | $0.2500 | 2.0s | 3.0s | 0 | 0 | 4.0 | 100.0% | 100.0% | 100.0-100.0% | $0.2500-$0.2500 | 2.0s (2.0-2.0) |

      ## Paired comparison vs control

      | Variant | Tasks | Delta pass rate (95% CI) | Verdict |
      |---|---|---|---|
      | fixer | 1 | +100.0 pp (+100.0 to +100.0) | insufficient |

      Insufficient evidence (no verdict):

      - \`fixer\`: only 1 paired task: the exact test cannot reach significance at 5% on fewer than 6 (the smallest p 1 paired task can give is 1.000)

      ## Per task (passed/scored trials)

      | Task | control | fixer |
      |---|---|---|
      | fix-bug | 0/3 | 3/3 |

      ## Why trials did not pass (most common first)

      | Variant | Reason | Trials |
      |---|---|---|
      | control | agent exit 1: ...no fix | 3 |
      "
    `);
  });
});

describe("TestBuildScorecardErrors and other bad input", () => {
  const ok = [trial("a", "t", 0, true), trial("b", "t", 0, false)];
  const cases: {
    name: string;
    control: string;
    variants: string[];
    trials: Trial[];
    k?: number;
    message: string;
  }[] = [
    {
      name: "no trials",
      control: "a",
      variants: ["a", "b"],
      trials: [],
      message: 'scorecard: no trials for variant "a"',
    },
    {
      name: "no trials for the second variant",
      control: "a",
      variants: ["a", "b"],
      trials: [ok[0]!],
      message: 'scorecard: no trials for variant "b"',
    },
    {
      name: "unknown variant",
      control: "a",
      variants: ["a", "b"],
      trials: [...ok, trial("c", "t", 0, true)],
      message: 'scorecard: trial for unknown variant "c"',
    },
    {
      name: "control not a variant",
      control: "z",
      variants: ["a", "b"],
      trials: ok,
      message: 'scorecard: control "z" is not a variant',
    },
    {
      name: "duplicate variant",
      control: "a",
      variants: ["a", "b", "a"],
      trials: ok,
      message: 'scorecard: duplicate variant "a"',
    },
    {
      name: "k 0",
      control: "a",
      variants: ["a", "b"],
      trials: ok,
      k: 0,
      message: "scorecard: k must be at least 1, got 0",
    },
    {
      name: "only infrastructure failures",
      control: "a",
      variants: ["a", "b"],
      trials: [ok[0]!, trial("b", "t", 0, false, { infra: "image", error: "image missing" })],
      message: 'scorecard: no scored trials for variant "b" (1 infrastructure failures)',
    },
    {
      name: "no shared task",
      control: "a",
      variants: ["a", "b"],
      trials: [trial("a", "t", 0, true), trial("b", "u", 0, true)],
      message: 'scorecard: variant "b" shares no scored task with control "a"',
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      let caught: unknown;
      try {
        buildScorecard("s", c.control, c.variants, c.trials, { k: c.k });
      } catch (error) {
        caught = error;
      }
      expect([caught instanceof ConfigError, (caught as Error).message]).toEqual([true, c.message]);
    });
});

test("TestPercentile: wall 1..10 ms gives p50 5 and p95 10", () => {
  const trials = Array.from({ length: 10 }, (_, i) => trial("a", "t", i, true, { wallMs: 10 - i }));
  const [v] = buildScorecard("s", "a", ["a"], trials).variants;
  expect([v!.wallP50Ms, v!.wallP95Ms]).toEqual([5, 10]);
});

/** Eight tasks, four trials each, pass chance varying by task (a deterministic pattern). */
function mixedTrials(): Trial[] {
  const trials: Trial[] = [];
  for (const variant of ["a", "b"])
    for (let t = 0; t < 8; t++)
      for (let r = 0; r < 4; r++)
        trials.push(
          trial(variant, `task-${t}`, r, (t + r + (variant === "b" ? 1 : 0)) % 3 !== 0, {
            costUSD: 0.01 * (t + 1),
            wallMs: 100 * (t + 1) + r,
            turns: t,
          }),
        );
  return trials;
}

describe("determinism", () => {
  test("the same seed gives the same scorecard; another seed moves the intervals", () => {
    const one = buildScorecard("s", "a", ["a", "b"], mixedTrials(), { seed: 42 });
    expect(buildScorecard("s", "a", ["a", "b"], mixedTrials(), { seed: 42 })).toEqual(one);
    const other = buildScorecard("s", "a", ["a", "b"], mixedTrials(), { seed: 43 });
    const intervals = (sc: Scorecard) => sc.variants.map((v) => [v.pass1CILo, v.pass1CIHi, v.costCILo]);
    expect(intervals(other)).not.toEqual(intervals(one));
    expect(other.variants.map((v) => v.pass1)).toEqual(one.variants.map((v) => v.pass1));
  });

  test("the default seed is 1 and the pass@1 interval is the shared bootstrap's", () => {
    const trials = mixedTrials().filter((t) => t.variant === "a");
    const [v] = buildScorecard("s", "a", ["a"], trials).variants;
    const ci = bootstrapMean(
      trials.map((t) => (t.pass ? 1 : 0)),
      { seed: 1, iterations: 2000 },
    );
    expect([v!.pass1, v!.pass1CILo, v!.pass1CIHi]).toEqual([ci.estimate, ci.lo, ci.hi]);
  });
});

describe("infrastructure failures", () => {
  const trials = [
    trial("a", "t", 0, true, { wallMs: 100, costUSD: 0.1, turns: 2 }),
    trial("a", "t", 1, false, { wallMs: 300, costUSD: 0.3, turns: 4, error: "agent exit 1: ...x" }),
    trial("a", "t", 2, false, { infra: "image", error: "image eval-claude:2 missing", tokens: 0, wallMs: 0 }),
    trial("a", "u", 0, false, { infra: "start", error: "start: docker run failed" }),
    trial("b", "t", 0, true, { wallMs: 200 }),
  ];
  const sc = buildScorecard("s", "a", ["a", "b"], trials, { iterations: 200 });

  test("counted and shown, left out of pass rate, cost, wall, turns, errors and the pairing", () => {
    const a = sc.variants[0]!;
    expect({
      trials: a.trials,
      infraFailures: a.infraFailures,
      pass1: a.pass1,
      cost: a.costPerTaskUSD,
      wall: [a.wallP50Ms, a.wallP95Ms, a.wallMeanMs],
      turns: a.meanTurns,
      errors: a.errors,
      tasks: a.tasks,
    }).toEqual({
      trials: 4,
      infraFailures: 2,
      pass1: 0.5,
      cost: 0.2,
      wall: [100, 300, 200],
      turns: 3,
      errors: 1,
      tasks: 1,
    });
    expect(sc.comparisons).toEqual([
      {
        variant: "b",
        control: "a",
        tasks: 1,
        delta: 0.5,
        ciLo: 0.5,
        ciHi: 0.5,
        verdict: "insufficient",
        reason:
          "only 1 paired task: the exact test cannot reach significance at 5% on fewer than 6 (the smallest p 1 paired task can give is 1.000)",
        test: { method: "sign-flip", alpha: 0.05, p: 1, n: 1, exact: true },
      },
    ]);
  });

  test("the Markdown has an infra column and lists them apart", () => {
    const md = renderMarkdown(sc);
    expect(md.slice(md.indexOf("## Infrastructure"), md.indexOf("## Per task"))).toEqual(
      [
        "## Infrastructure failures (not scored)",
        "",
        "| Variant | Task | Repeat | Kind | Error |",
        "|---|---|---|---|---|",
        "| a | t | 2 | image | image eval-claude:2 missing |",
        "| a | u | 0 | start | start: docker run failed |",
        "",
        "",
      ].join("\n"),
    );
    expect(md.split("\n")[6]!.endsWith(" | Infra failures |")).toEqual(true);
  });
});

test("pass@k and pass^k: per task with k = min(k, n), averaged over tasks", () => {
  const trials = [
    ...[true, true, true].map((p, r) => trial("a", "always", r, p)),
    ...[true, false, false].map((p, r) => trial("a", "once", r, p)),
    trial("a", "single", 0, true),
  ];
  const table = [
    // always: 1, 1; once (n 3, c 1): pass@2 = 1 - (1 - 2/3) = 2/3, pass^2 = 0; single: k clamps to 1.
    { k: 2, passAtK: (1 + 2 / 3 + 1) / 3, passHatK: (1 + 0 + 1) / 3 },
    { k: 1, passAtK: (1 + 1 / 3 + 1) / 3, passHatK: (1 + 1 / 3 + 1) / 3 },
    { k: 3, passAtK: 1, passHatK: (1 + 0 + 1) / 3 },
  ];
  for (const row of table) {
    const [v] = buildScorecard("s", "a", ["a"], trials, { k: row.k, iterations: 10 }).variants;
    expect({ k: v!.k, passAtK: v!.passAtK, passHatK: v!.passHatK }).toEqual(row);
  }
  expect(buildScorecard("s", "a", ["a"], trials, { iterations: 10 }).k).toEqual(3);
});

test("task-clustered intervals resample tasks, not trials, and are wider for correlated trials", () => {
  // Each task always passes or always fails: ten trials of a task carry one task's information.
  const trials: Trial[] = [];
  for (let t = 0; t < 6; t++)
    for (let r = 0; r < 10; r++)
      trials.push(
        trial("a", `t${t}`, r, t % 2 === 0, { costUSD: t === 0 ? 1 : 0.1, wallMs: 1000 * (t + 1) }),
      );
  const [v] = buildScorecard("s", "a", ["a"], trials, { seed: 5 }).variants;
  const perTask = (f: (t: Trial) => number) =>
    Array.from({ length: 6 }, (_, t) => ({
      num: trials.filter((x) => x.task === `t${t}`).reduce((s, x) => s + f(x), 0),
      den: 10,
    }));
  const opts = { seed: 5, iterations: 2000 };
  const pass = bootstrapRatio(
    perTask((x) => (x.pass ? 1 : 0)),
    opts,
  );
  const cost = bootstrapRatio(
    perTask((x) => x.costUSD),
    opts,
  );
  const wall = bootstrapRatio(
    perTask((x) => x.wallMs),
    opts,
  );
  expect([v!.pass1TaskCILo, v!.pass1TaskCIHi, v!.costCILo, v!.costCIHi]).toEqual([
    pass.lo,
    pass.hi,
    cost.lo,
    cost.hi,
  ]);
  expect([v!.wallMeanMs, v!.wallMeanCILo, v!.wallMeanCIHi]).toEqual([wall.estimate, wall.lo, wall.hi]);
  expect(v!.costPerTaskUSD).toBeCloseTo(cost.estimate, 12);
  // 60 trials look like 60 draws; 6 tasks are the real sample size.
  expect(v!.pass1TaskCIHi! - v!.pass1TaskCILo!).toBeGreaterThan(v!.pass1CIHi - v!.pass1CILo);
});

describe("the original tool's scorecards", () => {
  const table = [
    {
      file: "original.json",
      markdown: [
        "# Eval scorecard: cli-upgrade",
        "",
        "Control: `claude-2.0`",
        "",
        "| Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool errors | Errors |",
        "|---|---|---|---|---|---|---|---|",
        "| claude-2.0 | 4 | 25.0% (0.0-75.0) | $0.3113 | 1.2s | 3.2s | 2 | 1 |",
        "| claude-2.1 | 4 | 75.0% (25.0-100.0) | $0.2875 | 1.0s | 2.1s | 0 | 0 |",
        "",
        "## Paired comparison vs control",
        "",
        "| Variant | Tasks | Delta pass rate (95% CI) | Verdict |",
        "|---|---|---|---|",
        "| claude-2.1 | 2 | +50.0 pp (+0.0 to +100.0) | no_significant_difference |",
        "",
      ],
    },
    {
      file: "original-single.json",
      markdown: [
        "# Eval scorecard: smoke",
        "",
        "Control: `codex`",
        "",
        "| Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool errors | Errors |",
        "|---|---|---|---|---|---|---|---|",
        "| codex | 1 | 100.0% (100.0-100.0) | $0.0000 | 0.5s | 0.5s | 1 | 0 |",
        "",
      ],
    },
    {
      file: "original-rich.json",
      markdown: [
        // The newer original's gated layout (lib/suite/scorecard/gated.ts, checked byte for byte
        // against its golden matrix.md in tests/suite/gate/golden.test.ts).
        "# Eval scorecard: cli-upgrade",
        "",
        "Control: `old`",
        "",
        "**Gate: HOLD**",
        "",
        "| Variant | Trials | pass@1 (95% CI) | pass@2 | pass^2 | Cost/task | Wall p50 | Wall p95 | Tool calls | Tool errors | Errors |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        "| old | 2 | 50.0% (0.0-100.0) | 100.0% | 0.0% | $0.1000 | 1.0s | 2.0s | 4 | 0 | 0 |",
        "",
      ],
    },
  ];
  for (const row of table)
    test(`${row.file} parses unchanged, writes back byte for byte, renders as the original`, () => {
      const path = join(FIXTURES, row.file);
      const text = readFileSync(path, "utf8");
      const sc = loadScorecard(path);
      expect(sc).toEqual(JSON.parse(text));
      expect(scorecardJson(sc)).toEqual(text);
      expect(renderMarkdown(sc)).toEqual(row.markdown.join("\n"));
    });

  test("our own scorecard, infra failures and all, goes through the file and back unchanged", () => {
    using tmp = tempDir("scorecard");
    const trials = [
      ...mixedTrials(),
      trial("b", "task-0", 9, false, { infra: "copy", error: "copy: a <b> & c" }),
    ];
    const sc = buildScorecard("mixed", "a", ["a", "b"], trials, { seed: 3, k: 2, iterations: 300 });
    const path = join(tmp.path, "sc.json");
    writeFileSync(path, scorecardJson(sc));
    expect(readFileSync(path, "utf8").includes("copy: a \\u003cb\\u003e \\u0026 c")).toEqual(true);
    expect(loadScorecard(path)).toEqual(sc);
  });

  test("our scorecard JSON leads with the headline, then the original's fields in its order", () => {
    const sc = buildScorecard("fixture", "control", ["control", "fixer"], endToEndTrials());
    const json = JSON.parse(scorecardJson(sc));
    // Ours first (the headline every output leads with; Go's decoder reads keys in any order), then
    // the original's, in its order.
    expect(Object.keys(json)).toEqual([
      "headline",
      "suite",
      "control",
      "variants",
      "comparisons",
      "trials",
      "version",
      "seed",
      "k",
    ]);
    expect(Object.keys(json.variants[0]).slice(0, 11)).toEqual([
      "name",
      "trials",
      "pass1",
      "pass1CILo",
      "pass1CIHi",
      "costPerTaskUSD",
      "wallP50Ms",
      "wallP95Ms",
      "tokens",
      "toolErrors",
      "errors",
    ]);
    expect(Object.keys(json.comparisons[0])).toEqual([
      "variant",
      "control",
      "tasks",
      "delta",
      "ciLo",
      "ciHi",
      "verdict",
      "reason",
      "test",
    ]);
  });
});

// The comparison verdict by the exact paired sign-flip test (issue 24): six tasks that all regress by
// 100 pp are `worse` (p = 2/64), six identical tasks `no_significant_difference`, fewer than six
// `insufficient` because no outcome could reach significance, a control whose trials mostly did not
// run `insufficient` too; the bootstrap interval stays beside it for display. Through buildScorecard,
// the Markdown and the HTML report as well. The first, second and last scenarios fail on the old
// interval rule (a zero-width interval was `insufficient`, six -100 pp tasks never `worse`).
import { describe, expect, test } from "bun:test";
import { renderSuiteReportHtml } from "../../../lib/suite/report.ts";
import { evidenceOf } from "../../../lib/suite/scorecard/evidence.ts";
import {
  buildScorecard,
  MIN_VERDICT_TASKS,
  renderMarkdown,
  type Trial,
  verdictFor,
} from "../../../lib/suite/scorecard/index.ts";
import { pairedTest } from "../../../lib/suite/scorecard/verdict.ts";
import { trialOf } from "../_support.ts";

const FEW = (n: number, p: string) =>
  `only ${n} paired task${n === 1 ? "" : "s"}: the exact test cannot reach significance at 5% on fewer than 6 (the smallest p ${n} paired task${n === 1 ? "" : "s"} can give is ${p})`;

describe("verdictFor over the exact test", () => {
  const cases: { name: string; diffs: number[]; want: { verdict: string; reason?: string }; p: number }[] = [
    {
      name: "six tasks all -100 pp: worse",
      diffs: [-1, -1, -1, -1, -1, -1],
      want: { verdict: "worse" },
      p: 2 / 64,
    },
    {
      name: "six identical tasks: no significant difference",
      diffs: [0, 0, 0, 0, 0, 0],
      want: { verdict: "no_significant_difference" },
      p: 1,
    },
    {
      name: "six tasks all +100 pp: better",
      diffs: [1, 1, 1, 1, 1, 1],
      want: { verdict: "better" },
      p: 2 / 64,
    },
    {
      name: "one task, +100 pp (the original: better)",
      diffs: [1],
      want: { verdict: "insufficient", reason: FEW(1, "1.000") },
      p: 1,
    },
    {
      name: "five tasks all +100 pp: 2/32 > 5%, insufficient",
      diffs: [1, 1, 1, 1, 1],
      want: { verdict: "insufficient", reason: FEW(5, "0.062") },
      p: 2 / 32,
    },
    {
      name: "six tasks, five +100 and one -50: 4/64, no significant difference",
      diffs: [1, 1, 1, 1, 1, -0.5],
      want: { verdict: "no_significant_difference" },
      p: 4 / 64,
    },
    {
      name: "six tasks, five -100 and one 0: zeros carry no sign, 2/32",
      diffs: [-1, -1, -1, -1, -1, 0],
      want: { verdict: "no_significant_difference" },
      p: 2 / 32,
    },
    {
      name: "eight tasks, mixed but all down: worse",
      diffs: [-1, -0.5, -1, -0.5, -1, -1, -0.5, -1],
      want: { verdict: "worse" },
      p: 2 / 256,
    },
  ];
  test.each(cases)("$name", ({ diffs, want, p }) => {
    const t = pairedTest(diffs, 1);
    const delta = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    const got: { verdict: string; reason?: string } = verdictFor({ tasks: diffs.length, delta, test: t });
    expect({ verdict: got, p: t.p }).toEqual({ verdict: want, p });
  });

  test("the fewest tasks follow from alpha: 2^(1-n) <= 0.05 first at 6", () => {
    expect(MIN_VERDICT_TASKS).toEqual(6);
  });

  test("over 20 differing tasks the test is seeded Monte Carlo, reproducible", () => {
    const diffs = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? -1 : 1));
    const [a, b] = [pairedTest(diffs, 7), pairedTest(diffs, 7)];
    expect({ same: a, exact: a.exact, draws: a.draws, small: (a.p ?? 1) < 0.2 }).toEqual({
      same: b,
      exact: false,
      draws: 100_000,
      small: true,
    });
  });

  test("a control that mostly did not run: no evidence, whatever the test says", () => {
    const control = [0, 1, 2].map((r) =>
      trialOf("base", "a", { repeat: r, error: "agent exit 127: not found" }),
    );
    const out = verdictFor({
      tasks: 6,
      delta: 1,
      test: pairedTest([1, 1, 1, 1, 1, 1], 1),
      control: { name: "base", evidence: evidenceOf(control) },
    });
    expect(out).toEqual({
      verdict: "insufficient",
      reason:
        "no evidence: only 0 of 3 trials of base were scored (3 agent errors); a verdict needs at least half the control's trials scored",
    });
  });
});

const trial = (variant: string, task: string, repeat: number, pass: boolean): Trial =>
  trialOf(variant, task, { repeat, pass });

describe("through the scorecard", () => {
  const tasks = ["a", "b", "c", "d", "e", "f"];
  test("six tasks that all regress by 100 pp: worse, the p in the headline, the interval kept for display", () => {
    const flat = tasks.flatMap((t) =>
      [0, 1].flatMap((r) => [trial("a", t, r, true), trial("b", t, r, false)]),
    );
    const sc = buildScorecard("s", "a", ["a", "b"], flat);
    const c = sc.comparisons![0]!;
    const md = renderMarkdown(sc);
    const html = renderSuiteReportHtml(sc);
    const line = "Decision: worse (b vs a) — -100.0 pp over 6 tasks, exact sign-flip p = 0.031.";
    expect({
      comparison: [c.verdict, c.reason, c.ciLo, c.ciHi, c.test],
      headline: sc.headline,
      md: md.split("\n").slice(0, 3),
      table: md.includes("| b | 6 | -100.0 pp (-100.0 to -100.0) | worse |"),
      html: html.includes(`<p data-headline="true">${line}</p>`),
    }).toEqual({
      comparison: [
        "worse",
        undefined,
        -1,
        -1,
        { method: "sign-flip", alpha: 0.05, p: 2 / 64, n: 6, exact: true },
      ],
      headline: { decision: "worse", source: "comparison", text: line },
      md: ["# Eval scorecard: s", "", line],
      table: true,
      html: true,
    });
  });

  test("six identical tasks: no significant difference (the old rule said insufficient: zero width)", () => {
    const same = tasks.flatMap((t) =>
      [0, 1].flatMap((r) => [trial("a", t, r, true), trial("b", t, r, true)]),
    );
    const c = buildScorecard("s", "a", ["a", "b"], same).comparisons![0]!;
    expect([c.verdict, c.reason, c.test?.p]).toEqual(["no_significant_difference", undefined, 1]);
  });
});

// Issue 23: the suite lane's Markdown (agent-eval compare, which the GitHub Action posts as a
// pull-request comment and job summary; the scorecard, gated or not; the --history trend) with a
// suite, variant and task named to inject: newlines, headings, table rows, links, images, HTML and
// @mentions. Each output has the shape the same run with plain names has (its lines, headings and
// table rows), and nothing active outside a code span: no unescaped link, tag, emphasis or mention.
import { describe, expect, test } from "bun:test";
import { compareScorecards, renderComparisonMarkdown } from "../../lib/suite/compare.ts";
import { renderTrendMarkdown } from "../../lib/suite/history.ts";
import { renderGatedMarkdown } from "../../lib/suite/scorecard/gated.ts";
import {
  buildScorecard,
  renderMarkdown,
  type Scorecard,
  type Trial,
} from "../../lib/suite/scorecard/index.ts";
import { trialOf } from "./_support.ts";

const HOSTILE = {
  suite: "s\n# Approved: merge now",
  variant: "v|x\n## Release @admin",
  task: "t\r\n| forged | row |\n[click](https://evil.example) ![p](https://evil.example/p.png) <img src=x> @org/team www.evil.example",
  error: "boom\n## Heading from stderr <script>x</script> &#64;admin",
};
const PLAIN = { suite: "s", variant: "v", task: "t", error: "boom" };
type Names = typeof PLAIN;

/** A run of control and the named variant over the named task and 5 more, with an infra failure and a tampered trial. */
function scorecardOf(n: Names, passes: number): Scorecard {
  const tasks = [n.task, "a", "b", "c", "d", "e"];
  const trials: Trial[] = [];
  for (const [i, task] of tasks.entries())
    for (const variant of ["control", n.variant]) {
      trials.push(trialOf(variant, task, { pass: i < passes || variant === "control" }));
      trials.push(trialOf(variant, task, { repeat: 1, pass: variant === "control" }));
    }
  trials.push(trialOf(n.variant, n.task, { repeat: 2, infra: "start", error: n.error }));
  trials.push(trialOf(n.variant, n.task, { repeat: 3, tampered: [`C /tests/${n.task}: ${n.error}`] }));
  return buildScorecard(n.suite, "control", ["control", n.variant], trials, { seed: 1 });
}

/** The scorecard with a hand-made blocking gate naming the task (regressed and flaky). */
function gated(n: Names): Scorecard {
  const sc = scorecardOf(n, 0);
  const diff = { task: n.task, baseline: 1, candidate: 0, status: "regressed" as const };
  const gate = {
    verdict: "block" as const,
    reasons: [`${n.task} regressed: ${n.error}`],
    regressed: [diff],
    flaky: [{ ...diff, status: "flaky" as const, reason: n.error }],
  };
  return {
    ...sc,
    judge: { model: n.variant, rubrics: [n.task] },
    comparisons: (sc.comparisons ?? []).map((c) => ({ ...c, gate })),
    gate: { verdict: "block", reasons: gate.reasons },
  } as Scorecard;
}

const outputs: Record<string, (n: Names) => string> = {
  compare: (n) => renderComparisonMarkdown(compareScorecards(scorecardOf(n, 6), scorecardOf(n, 0))),
  scorecard: (n) => renderMarkdown(scorecardOf(n, 3)),
  gated: (n) => renderGatedMarkdown(gated(n)),
  trend: (n) =>
    renderTrendMarkdown(
      [{ time: "2025-01-01T00:00:00Z", gate: "ship", pass1: { [n.variant]: 0.5 } }],
      [n.variant],
    ),
};

/** What a reader's renderer sees: lines, headings, each table row's cell count, and anything active. */
function shape(md: string) {
  const lines = md.split("\n");
  const prose = lines.map((l) => l.replace(/(`+)(?:(?!\1).)*?\1/g, "")); // code spans show their text as is
  const active = [
    /(?<!\\)\[/, // a link or an image
    /(?<!\\)</, // HTML or an autolink
    /(?<![\\A-Za-z0-9_])@[A-Za-z0-9]/, // a mention
    /:\/\//, // a bare link
    /(?<![A-Za-z0-9])www\./,
    /(?<!\\)&#?[A-Za-z0-9]+;/, // an entity
  ];
  return {
    lines: lines.length,
    headings: lines.filter((l) => l.startsWith("#")).length,
    cells: lines.filter((l) => l.startsWith("|")).map((l) => l.split(/(?<!\\)\|/).length),
    active: prose.filter((l) => active.some((re) => re.test(l))),
  };
}

describe("suite Markdown with names chosen to inject", () => {
  for (const [name, render] of Object.entries(outputs))
    test(`${name}: the plain run's shape, nothing active`, () => {
      const plain = shape(render(PLAIN));
      expect(shape(render(HOSTILE))).toEqual({ ...plain, active: [] });
    });
});

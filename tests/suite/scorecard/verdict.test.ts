// The comparison verdict, stricter than the original's: `insufficient`, with the reason, below 6
// paired tasks or on a zero-width interval; the original's words otherwise. Through buildScorecard,
// the Markdown and the HTML report too.
import { describe, expect, test } from "bun:test";
import { renderSuiteReportHtml } from "../../../lib/suite/report.ts";
import {
  buildScorecard,
  MIN_VERDICT_TASKS,
  renderMarkdown,
  type Trial,
  verdictFor,
} from "../../../lib/suite/scorecard/index.ts";
import { trialOf } from "../_support.ts";

const FEW = (n: number) => `only ${n} paired tasks; a verdict needs at least 6`;
const FLAT = (pp: string) =>
  `the 95% interval has zero width (every resample gave ${pp} pp): the tasks' differences do not vary, so the bootstrap cannot measure the uncertainty`;

describe("verdictFor", () => {
  const cases = [
    {
      name: "one task, 100..100 (the original: better)",
      tasks: 1,
      lo: 1,
      hi: 1,
      want: { verdict: "insufficient", reason: FEW(1) },
    },
    {
      name: "five tasks, clear of 0",
      tasks: 5,
      lo: 0.1,
      hi: 0.5,
      want: { verdict: "insufficient", reason: FEW(5) },
    },
    {
      name: "six tasks, zero width at 0",
      tasks: 6,
      lo: 0,
      hi: 0,
      want: { verdict: "insufficient", reason: FLAT("+0.0") },
    },
    {
      name: "six tasks, zero width at -100",
      tasks: 6,
      lo: -1,
      hi: -1,
      want: { verdict: "insufficient", reason: FLAT("-100.0") },
    },
    { name: "six tasks above 0", tasks: 6, lo: 0.1, hi: 0.4, want: { verdict: "better" } },
    { name: "six tasks below 0", tasks: 6, lo: -0.4, hi: -0.1, want: { verdict: "worse" } },
    {
      name: "six tasks across 0",
      tasks: 6,
      lo: -0.1,
      hi: 0.2,
      want: { verdict: "no_significant_difference" },
    },
    {
      name: "touching 0 is not clear of it",
      tasks: 40,
      lo: 0,
      hi: 0.3,
      want: { verdict: "no_significant_difference" },
    },
  ];
  test.each(cases)("$name", ({ tasks, lo, hi, want }) => {
    expect(verdictFor({ tasks, lo, hi }) as { verdict: string; reason?: string }).toEqual(want);
  });
  test("the documented minimum", () => {
    expect(MIN_VERDICT_TASKS).toEqual(6);
  });
});

const trial = (variant: string, task: string, repeat: number, pass: boolean): Trial =>
  trialOf(variant, task, { repeat, pass });

describe("through the scorecard", () => {
  const tasks = ["a", "b", "c", "d", "e", "f", "g", "h"];
  // b passes every task, a none of them on six and all on two: better, on an interval that varies.
  const trials = tasks.flatMap((t, i) =>
    [0, 1].flatMap((r) => [trial("a", t, r, i >= 6), trial("b", t, r, true)]),
  );
  test("eight tasks, mixed differences: better, no reason", () => {
    const c = buildScorecard("s", "a", ["a", "b"], trials).comparisons![0]!;
    expect([c.tasks, c.verdict, c.reason, c.ciLo > 0]).toEqual([8, "better", undefined, true]);
  });
  test("eight tasks all flipped the same way: insufficient (zero width), said in Markdown and HTML", () => {
    const flat = tasks.flatMap((t) =>
      [0, 1].flatMap((r) => [trial("a", t, r, false), trial("b", t, r, true)]),
    );
    const sc = buildScorecard("s", "a", ["a", "b"], flat);
    const md = renderMarkdown(sc);
    const html = renderSuiteReportHtml(sc);
    expect({
      verdict: sc.comparisons![0]!.verdict,
      md: md.slice(md.indexOf("| b | 8 |")),
      html: html.includes(
        `data-metric="reason" data-variant="b">${FLAT("+100.0").replaceAll("'", "&#39;")}</span>`,
      ),
    }).toEqual({
      verdict: "insufficient",
      md: `| b | 8 | +100.0 pp (+100.0 to +100.0) | insufficient |\n\nInsufficient evidence (no verdict):\n\n- \`b\`: ${FLAT("+100.0")}\n`,
      html: true,
    });
  });
});

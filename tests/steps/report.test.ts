// The step-suite report in a real browser: both sections render, the five rows (and the judge's
// reading) show the scorecard's numbers, the failing steps are grouped by their reason, nothing is
// fetched and nothing logged; plus the edge rows (no step applies) and the all-pass page.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { goFixed } from "../../lib/compat/go.ts";
import { renderStepsReportHtml } from "../../lib/steps/report.ts";
import type { StepScorecard } from "../../lib/steps/scorecard.ts";
import { ARTIFACTS, renderedSections, shownMetrics, useReportBrowser } from "../support/browser.ts";
import { generateSteps } from "../support/report-gen.ts";

const pct = (x: number) => `${goFixed(100 * x, 1)}%`;
const ROWS = ["pass", "sameTools", "sameCalls", "validCalls", "prematureStop"] as const;

function expectedMetrics(sc: StepScorecard, failing: Map<string, number>) {
  const out: { metric: string; row?: string; value: number; text: string }[] = [
    { metric: "cases", value: sc.cases, text: String(sc.cases) },
    { metric: "sessions", value: sc.sessions, text: String(sc.sessions) },
    { metric: "errors", value: sc.errors, text: String(sc.errors) },
    { metric: "seed", value: sc.seed, text: String(sc.seed) },
  ];
  for (const row of ROWS) {
    const r = sc[row];
    if (r.rate !== null && r.lo !== null && r.hi !== null)
      out.push(
        { metric: "rate", row, value: r.rate, text: pct(r.rate) },
        { metric: "lo", row, value: r.lo, text: pct(r.lo) },
        { metric: "hi", row, value: r.hi, text: pct(r.hi) },
      );
    out.push({ metric: "n", row, value: r.n, text: String(r.n) });
  }
  if (sc.judge) {
    const j = sc.judge;
    out.push(
      { metric: "mean", row: "judge", value: j.mean!, text: j.mean!.toFixed(2) },
      { metric: "lo", row: "judge", value: j.lo!, text: j.lo!.toFixed(2) },
      { metric: "hi", row: "judge", value: j.hi!, text: j.hi!.toFixed(2) },
      { metric: "n", row: "judge", value: j.n, text: String(j.n) },
      { metric: "errors", row: "judge", value: j.errors, text: String(j.errors) },
    );
  }
  for (const [row, count] of failing) out.push({ metric: "failing", row, value: count, text: String(count) });
  return out;
}

const browser = useReportBrowser();

describe("steps report in Chromium", () => {
  test("48 steps over 17 sessions: rows, failing steps by reason, no request, no error", async () => {
    const { scorecard, kinds } = generateSteps();
    const judged: StepScorecard = {
      ...scorecard,
      judge: { model: "haiku", rubric: "sha256:ab", n: 40, errors: 2, mean: 0.71, lo: 0.62, hi: 0.79 },
    };
    const opened = await browser.open(renderStepsReportHtml(judged));
    const { page } = opened;
    const order = ["error", "invalid-call", "premature-stop", "diverged"];
    const groups = new Map<string, string[]>();
    for (const [id, kind] of kinds) if (kind !== "pass") groups.set(kind, [...(groups.get(kind) ?? []), id]);
    const expectedGroups = order
      .filter((r) => groups.has(r))
      .map((reason) => ({ reason, steps: groups.get(reason)! }));
    expect({
      sections: await renderedSections(page),
      metrics: await shownMetrics(page),
      groups: await page.$$eval("[data-reason]", (els) =>
        els.map((el) => ({
          reason: el.getAttribute("data-reason"),
          steps: [...el.querySelectorAll("[data-step]")].map((s) => s.getAttribute("data-step")),
        })),
      ),
      foreign: opened.foreign,
      errors: opened.errors,
    }).toEqual({
      sections: ["rows", "failing"].map((id) => ({ id, visible: true })),
      metrics: expectedMetrics(judged, new Map(expectedGroups.map((g) => [g.reason, g.steps.length]))),
      groups: expectedGroups,
      foreign: [],
      errors: [],
    });
    await page.screenshot({ path: join(ARTIFACTS, "steps-light.png"), fullPage: true });
    const dark = await browser.open(renderStepsReportHtml(judged), { colorScheme: "dark" });
    await dark.page.screenshot({ path: join(ARTIFACTS, "steps-dark.png"), fullPage: true });
    await dark.page.close();
    await page.close();
  });

  test("a row no step applies to shows a dash; an all-pass suite says so", async () => {
    const { scorecard } = generateSteps(4, 2, 1);
    const sc: StepScorecard = {
      ...scorecard,
      results: scorecard.results.map((r) => ({ ...r, pass: true })),
      prematureStop: { n: 0, rate: null, lo: null, hi: null },
    };
    const opened = await browser.open(renderStepsReportHtml(sc));
    expect({
      premature: await opened.page.textContent("[data-step-row=prematureStop]"),
      empty: await opened.page.textContent("#failing [data-empty]"),
      foreign: opened.foreign,
      errors: opened.errors,
    }).toEqual({
      premature: "Premature stop–n=0",
      empty: "None: every step passed.",
      foreign: [],
      errors: [],
    });
    await opened.page.close();
  });
});

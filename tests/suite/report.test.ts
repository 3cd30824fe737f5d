// The suite report in a real browser: every section renders, every number shown is the scorecard's
// (its exact value in data-value, its text the scorecard's rounding), every trial is a dot linking
// to its log, and the page fetches nothing and logs no error, in light, dark and print.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { goFixed } from "../../lib/compat/go.ts";
import { renderSuiteReportHtml } from "../../lib/suite/report.ts";
import { CHUNK, DENSE_TRIALS } from "../../lib/suite/report-matrix.ts";
import { buildScorecard, type Scorecard, type Trial } from "../../lib/suite/scorecard/index.ts";
import {
  ARTIFACTS,
  bodyBackground,
  renderedSections,
  shownMetrics,
  useReportBrowser,
} from "../support/browser.ts";
import { generateSuite } from "../support/report-gen.ts";

const pct = (x: number) => `${goFixed(100 * x, 1)}%`;
const usd = (x: number) => `$${goFixed(x, 4)}`;
const secs = (ms: number) => `${goFixed(ms / 1000, 1)}s`;
const int = (n: number) => n.toLocaleString("en-US");

/** What the report must show for each variant, and how it prints it. */
const VARIANT_FIELDS = {
  pass1: pct,
  pass1CILo: pct,
  pass1CIHi: pct,
  costPerTaskUSD: usd,
  costCILo: usd,
  costCIHi: usd,
  wallP50Ms: secs,
  wallP95Ms: secs,
  trials: int,
  tasks: int,
  passAtK: pct,
  passHatK: pct,
  meanTurns: (x: number) => x.toFixed(1),
  tokens: int,
  toolErrors: int,
  errors: int,
  infraFailures: int,
  wallMeanMs: secs,
} as const;

function expectedMetrics(sc: Scorecard, trials: readonly Trial[]) {
  const out: { metric: string; variant?: string; task?: string; value: number; text: string }[] = [];
  const infra = trials.filter((t) => t.infra !== undefined).length;
  out.push({ metric: "variants", value: sc.variants.length, text: String(sc.variants.length) });
  out.push({ metric: "trialsTotal", value: trials.length, text: int(trials.length) });
  if (infra > 0) out.push({ metric: "infraTotal", value: infra, text: String(infra) });
  if (sc.seed !== undefined) out.push({ metric: "seed", value: sc.seed, text: String(sc.seed) });
  for (const v of sc.variants) {
    for (const [metric, fmt] of Object.entries(VARIANT_FIELDS)) {
      const value = v[metric];
      if (typeof value === "number") out.push({ metric, variant: v.name, value, text: fmt(value) });
    }
    // The failure reasons section: each reason's count, as the scorecard has it.
    for (const r of v.failureReasons ?? [])
      out.push({ metric: "failures", variant: v.name, value: r.count, text: int(r.count) });
  }
  for (const c of sc.comparisons ?? []) {
    out.push({
      metric: "delta",
      variant: c.variant,
      value: c.delta,
      text: `${goFixed(100 * c.delta, 1, true)} pp`,
    });
    out.push({ metric: "ciLo", variant: c.variant, value: c.ciLo, text: goFixed(100 * c.ciLo, 1, true) });
    out.push({ metric: "ciHi", variant: c.variant, value: c.ciHi, text: goFixed(100 * c.ciHi, 1, true) });
  }
  const cells = new Map<string, Trial[]>();
  for (const t of trials)
    cells.set(`${t.task}\u0000${t.variant}`, [...(cells.get(`${t.task}\u0000${t.variant}`) ?? []), t]);
  for (const [key, list] of cells) {
    const [task, variant] = key.split("\u0000") as [string, string];
    const scored = list.filter((t) => t.infra === undefined);
    const passes = scored.filter((t) => t.pass).length;
    out.push({ metric: "taskPasses", variant, task, value: passes, text: `${passes}/${scored.length}` });
  }
  const order = (m: { metric: string; variant?: string; task?: string }) =>
    `${m.metric}|${m.variant}|${m.task ?? ""}`;
  return out.sort((a, b) => (order(a) < order(b) ? -1 : 1));
}

const browser = useReportBrowser();

describe("suite report in Chromium", () => {
  const cases = [
    {
      name: "three variants, infra failures",
      tasks: 12,
      variants: ["control", "skills-v2", "opus"],
      repeats: 3,
      seed: 7,
    },
    { name: "control only", tasks: 4, variants: ["control"], repeats: 2, seed: 9 },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const { scorecard, trials } = generateSuite(c);
      const opened = await browser.open(renderSuiteReportHtml(scorecard, trials));
      const { page } = opened;
      expect(await renderedSections(page)).toEqual(
        ["decision", "forest", "matrix", "details", "infra", "failures"].map((id) => ({ id, visible: true })),
      );
      const shown = (await shownMetrics(page)).map(({ row: _row, ...m }) => m);
      const order = (m: { metric: string; variant?: string; task?: string }) =>
        `${m.metric}|${m.variant}|${m.task ?? ""}`;
      expect(shown.sort((a, b) => (order(a) < order(b) ? -1 : 1))).toEqual(
        expectedMetrics(scorecard, trials),
      );
      const dots = await page.$$eval("[data-trial]", (els) =>
        els.map((el) => ({ trial: el.getAttribute("data-trial"), href: el.getAttribute("href") })),
      );
      expect(dots.sort((a, b) => ((a.trial ?? "") < (b.trial ?? "") ? -1 : 1))).toEqual(
        trials
          .map((t) => ({ trial: `${t.task}/${t.variant}/${t.repeat}`, href: t.log as string }))
          .sort((a, b) => (a.trial < b.trial ? -1 : 1)),
      );
      expect(await page.title()).toBe("Eval scorecard: nightly <core>");
      expect(await page.$$eval("script", (els) => els.length)).toBe(0);
      expect({ foreign: opened.foreign, errors: opened.errors }).toEqual({ foreign: [], errors: [] });
      if (c.variants.length > 1)
        await page.screenshot({ path: join(ARTIFACTS, "suite-light.png"), fullPage: true });
      await page.close();
    });

  // issue 26: a verdict's reason was one unbreakable line (class ci, nowrap): the variants table
  // scrolled sideways (1,523 px at the 1,280 the report is laid out for). It wraps now.
  test("a long reason wraps: the variants table does not scroll sideways", async () => {
    const { scorecard, trials } = generateSuite(cases[0]!);
    const long = `insufficient: ${"on 12 tasks the exact paired test cannot reach significance at 5%; ".repeat(4)}`;
    const sc = {
      ...scorecard,
      comparisons: (scorecard.comparisons ?? []).map((c) => ({ ...c, reason: long })),
    };
    const opened = await browser.open(renderSuiteReportHtml(sc, trials), { width: 1280 });
    const { page } = opened;
    const overflow = {
      table: Math.max(
        ...(await page.$$eval(".wide", (els) => els.map((e) => e.scrollWidth - e.clientWidth))),
      ),
      page: await page.$eval("html", (e) => e.scrollWidth - e.clientWidth),
      reasons: (await page.$$('[data-metric="reason"]')).length,
    };
    expect(overflow).toEqual({ table: 0, page: 0, reasons: 2 });
    await opened.page.close();
  });

  test("dark and print render every section with no request and no error, in both matrix forms", async () => {
    const { scorecard, trials } = generateSuite(cases[0]!);
    for (const form of ["dots", "counts"] as const) {
      const doc = renderSuiteReportHtml(scorecard, trials, { matrix: form });
      for (const mode of [{ colorScheme: "dark" as const }, { media: "print" as const }]) {
        const opened = await browser.open(doc, mode);
        const bg = await bodyBackground(opened.page);
        expect({
          form,
          sections: (await renderedSections(opened.page)).every((s) => s.visible),
          bg,
          foreign: opened.foreign,
          errors: opened.errors,
        }).toEqual({
          form,
          sections: true,
          bg: mode.colorScheme === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)",
          foreign: [],
          errors: [],
        });
        if (mode.colorScheme)
          await opened.page.screenshot({
            path: join(ARTIFACTS, form === "dots" ? "suite-dark.png" : "suite-counts-dark.png"),
          });
        await opened.page.close();
      }
    }
  });
});

test("tampered trials and skipped tasks in Chromium: their sections shown, the count per variant, nothing run", async () => {
  const base = generateSuite({
    tasks: 6,
    variants: ["control", "harbor"],
    repeats: 2,
    seed: 5,
    infraRate: 0,
  });
  const path = "A /usr/local/bin/<script>document.title='x'</script>: shadows a program";
  // The harbor variant's first two trials were tampered: each a fail whatever the verifier said.
  const trials = base.trials.map((t, i) =>
    t.variant === "harbor" && i < 4 ? { ...t, pass: false, tampered: [path], error: "tampered: ..." } : t,
  );
  const skipped = [{ task: "<compose>", reason: "environment/docker-compose.yaml: not here" }];
  const scorecard = buildScorecard("nightly <core>", "control", ["control", "harbor"], trials, {
    iterations: 400,
    skipped,
  });
  const opened = await browser.open(renderSuiteReportHtml(scorecard, trials));
  const { page } = opened;
  const text = (sel: string) => page.$$eval(sel, (els) => els.map((el) => el.textContent));
  expect({
    sections: await renderedSections(page),
    tampered: (await shownMetrics(page))
      .filter((m) => m.metric === "tampered")
      .map(({ row: _row, ...m }) => m),
    paths: await text("[data-section=tampered] code"),
    skipped: await text("[data-skipped]"),
    title: await page.title(),
    scripts: await page.$$eval("script", (els) => els.length),
    foreign: opened.foreign,
    errors: opened.errors,
  }).toEqual({
    sections: ["decision", "forest", "matrix", "details", "infra", "failures", "tampered", "skipped"].map(
      (id) => ({
        id,
        visible: true,
      }),
    ),
    tampered: [
      { metric: "tampered", variant: "control", value: 0, text: "0" },
      { metric: "tampered", variant: "harbor", value: 2, text: "2" },
    ],
    paths: [path, path],
    skipped: ["<compose>environment/docker-compose.yaml: not here"],
    title: "Eval scorecard: nightly <core>",
    scripts: 0,
    foreign: [],
    errors: [],
  });
  await page.close();
});

describe("suite report past DENSE_TRIALS: counts per cell, links only for what did not pass", () => {
  /** What a counts cell's link must say: the error (infra: its kind and error), the trial's log. */
  const notPassed = (trials: readonly Trial[]) =>
    trials
      .filter((t) => t.infra !== undefined || !t.pass)
      .map((t) => ({
        href: t.log as string,
        text: `#${t.repeat}`,
        title:
          t.infra !== undefined ? `infrastructure failure (${t.infra}): ${t.error}` : (t.error ?? "fail"),
      }))
      .sort((a, b) => (a.href < b.href ? -1 : 1));

  test("every number, every failure's link and tooltip, details closed, nothing fetched", async () => {
    const { scorecard, trials } = generateSuite({
      tasks: 12,
      variants: ["control", "skills-v2", "opus"],
      repeats: 3,
      seed: 7,
      infraRate: 0.1,
    });
    const opened = await browser.open(renderSuiteReportHtml(scorecard, trials, { matrix: "counts" }));
    const { page } = opened;
    const shown = (await shownMetrics(page)).map(({ row: _row, ...m }) => m);
    const order = (m: { metric: string; variant?: string; task?: string }) =>
      `${m.metric}|${m.variant}|${m.task ?? ""}`;
    const links = await page.$$eval("[data-section=matrix] details a", (els) =>
      els.map((el) => ({
        href: el.getAttribute("href"),
        text: el.textContent,
        title: el.closest("[title]")?.getAttribute("title"),
      })),
    );
    expect({
      sections: await renderedSections(page),
      metrics: shown.sort((a, b) => (order(a) < order(b) ? -1 : 1)),
      links: links.sort((a, b) => ((a.href ?? "") < (b.href ?? "") ? -1 : 1)),
      dots: await page.$$eval("[data-section=matrix] svg", (els) => els.length),
      open: await page.$$eval("details[open]", (els) => els.length),
      scripts: await page.$$eval("script", (els) => els.length),
      foreign: opened.foreign,
      errors: opened.errors,
    }).toEqual({
      sections: ["decision", "forest", "matrix", "details", "infra", "failures"].map((id) => ({
        id,
        visible: true,
      })),
      metrics: expectedMetrics(scorecard, trials),
      links: notPassed(trials),
      dots: 0,
      open: 0,
      scripts: 0,
      foreign: [],
      errors: [],
    });
    await page.click("[data-section=matrix] details summary");
    await page.screenshot({ path: join(ARTIFACTS, "suite-counts.png"), fullPage: true });
    await page.close();
  });

  test.each([
    {
      name: "DENSE_TRIALS trials: a dot per trial, one table",
      n: DENSE_TRIALS,
      expected: { dots: true, counts: false, tables: 1 },
    },
    {
      name: "one more: counts, CHUNK tasks to a table",
      n: DENSE_TRIALS + 1,
      expected: { dots: false, counts: true, tables: Math.ceil(101 / CHUNK) },
    },
  ])("$name", ({ n, expected }) => {
    const { scorecard, trials } = generateSuite({ tasks: 101, variants: ["a", "b", "c", "d"], repeats: 5 });
    const doc = renderSuiteReportHtml(scorecard, trials.slice(0, n));
    expect({
      dots: doc.includes("data-trial="),
      counts: doc.includes('data-matrix="counts"'),
      tables: doc.split('<table class="matrix').length - 1,
    }).toEqual(expected);
  });
});

describe("suite report input", () => {
  test("a trial of a variant the scorecard does not have is refused", () => {
    const { scorecard, trials } = generateSuite({ tasks: 2, variants: ["a", "b"], repeats: 1 });
    const stray = { ...trials[0]!, variant: "ghost" };
    expect(() => renderSuiteReportHtml(scorecard, [...trials, stray])).toThrow(
      'Cannot render report: trial for unknown variant "ghost"',
    );
  });

  test("a --local scorecard says it had no isolation, above everything", () => {
    const { scorecard, trials } = generateSuite({ tasks: 1, variants: ["a"], repeats: 1 });
    const local = renderSuiteReportHtml({ ...scorecard, runner: "local" }, trials);
    const docker = renderSuiteReportHtml({ ...scorecard, runner: "docker" }, trials);
    expect({ local: local.includes('data-local="true"'), docker: docker.includes("data-local") }).toEqual({
      local: true,
      docker: false,
    });
  });

  test("a log link that is not a path or a file/http URL is dropped", () => {
    const { scorecard, trials } = generateSuite({ tasks: 1, variants: ["a"], repeats: 1 });
    const doc = renderSuiteReportHtml(scorecard, trials, { logHref: () => "javascript:alert(1)" });
    expect(doc.includes("javascript:")).toBe(false);
  });
});

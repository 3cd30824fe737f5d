// The run-eval report in a real browser: totals, one row per case with its isolation proof, the
// failures opened up, every number equal to the RunResult's, a case's output shown as text (never
// markup), and no request or console error. Also `run-eval --report` refusing a bad path up front.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { goFixed } from "../../lib/compat/go.ts";
import { run } from "../../lib/core/proc.ts";
import { renderRunEvalReportHtml } from "../../lib/hermetic/report.ts";
import { RunResult } from "../../lib/hermetic/result.ts";
import { main } from "../../scripts/run-eval.ts";
import { ARTIFACTS, renderedSections, shownMetrics, useReportBrowser } from "../support/browser.ts";
import { generateRunResult } from "../support/report-gen.ts";
import { tempDir } from "../support/tmp.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const secs = (ms: number) => `${goFixed(ms / 1000, 1)}s`;

function expectedMetrics(r: RunResult) {
  return [
    { metric: "cases", value: r.cases.length, text: String(r.cases.length) },
    { metric: "jobs", value: r.jobs, text: String(r.jobs) },
    { metric: "passed", value: r.counts.passed, text: String(r.counts.passed) },
    { metric: "failed", value: r.counts.failed, text: String(r.counts.failed) },
    { metric: "errors", value: r.counts.errors, text: String(r.counts.errors) },
    { metric: "exitCode", value: r.exitCode, text: String(r.exitCode) },
    { metric: "durationMs", value: r.durationMs, text: secs(r.durationMs) },
    ...r.cases.flatMap((c) => [
      ...(c.assertions
        ? [
            {
              metric: "assertionsPassed",
              task: c.name,
              value: c.assertions.passed,
              text: String(c.assertions.passed),
            },
            {
              metric: "assertionsTotal",
              task: c.name,
              value: c.assertions.total,
              text: String(c.assertions.total),
            },
          ]
        : []),
      { metric: "durationMs", task: c.name, value: c.durationMs, text: secs(c.durationMs) },
    ]),
  ];
}

const browser = useReportBrowser();

test("run-eval report: sections, numbers, isolation, output as text, no request, no error", async () => {
  const r = generateRunResult(6);
  const opened = await browser.open(renderRunEvalReportHtml(r));
  const { page } = opened;
  expect(await renderedSections(page)).toEqual(
    ["totals", "cases", "failures"].map((id) => ({ id, visible: true })),
  );
  expect(await shownMetrics(page)).toEqual(expectedMetrics(r));
  const rows = await page.$$eval("[data-case]", (els) =>
    els.map((el) => ({
      name: el.getAttribute("data-case"),
      result: el.querySelector("[data-metric=result]")?.textContent,
      isolation: el.querySelector("[data-metric=isolation]")?.textContent ?? null,
    })),
  );
  expect(rows).toEqual(
    r.cases.map((c) => ({
      name: c.name,
      result: c.result === "error" ? `error ${c.exitCode}` : c.result,
      isolation: c.sandbox ? "✓ bwrap, uid 65534, egress blocked" : null,
    })),
  );
  expect(
    await page.$$eval("[data-failure]", (els) => els.map((el) => el.getAttribute("data-failure"))),
  ).toEqual(r.cases.filter((c) => c.result !== "pass").map((c) => c.name));
  expect(await page.$$eval("script", (els) => els.length)).toBe(0);
  expect(await page.textContent("[data-failure] > pre")).toContain("<script>alert(1)</script>");
  expect(await page.textContent("[data-failure] li")).toBe(
    "issue <title> lints · idd-lint: want exit 0, got 1✗ title: expected an imperative verb\n  at issue.md:1",
  );
  expect({ foreign: opened.foreign, errors: opened.errors }).toEqual({ foreign: [], errors: [] });
  await page.screenshot({ path: join(ARTIFACTS, "run-eval-light.png"), fullPage: true });
  await page.close();
});

test("run-eval report: an all-pass run says so in the failures section", async () => {
  const r = generateRunResult(1);
  const opened = await browser.open(renderRunEvalReportHtml(r), { colorScheme: "dark" });
  expect({
    empty: await opened.page.textContent("#failures [data-empty]"),
    foreign: opened.foreign,
    errors: opened.errors,
  }).toEqual({ empty: "None: every case passed.", foreign: [], errors: [] });
  await opened.page.close();
});

test("run-eval --json --report on real cases: the page shows the run's own result", async () => {
  using dir = tempDir("report-run-eval");
  const file = join(dir.path, "run.html");
  const r = await run(
    [
      process.execPath,
      join(ROOT, "scripts", "run-eval.ts"),
      "-j",
      "2",
      "--json",
      "--report",
      file,
      join(ROOT, "evals", "cases", "issue-creator"),
    ],
    { cwd: ROOT },
  );
  expect({ code: r.exitCode, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  const result = RunResult.parse(JSON.parse(r.stdout));
  const opened = await browser.open(readFileSync(file, "utf8"));
  expect({
    sections: await renderedSections(opened.page),
    metrics: await shownMetrics(opened.page),
    foreign: opened.foreign,
    errors: opened.errors,
  }).toEqual({
    sections: ["totals", "cases", "failures"].map((id) => ({ id, visible: true })),
    metrics: expectedMetrics(result),
    foreign: [],
    errors: [],
  });
  await opened.page.close();
});

for (const c of [
  { name: "missing directory", path: (d: string) => join(d, "nope", "r.html"), why: `directory "` },
  {
    name: "a directory",
    path: (d: string) => d,
    why: "is a directory, expected a file name like report.html",
  },
])
  test(`run-eval --report refuses ${c.name} before running anything (exit 2)`, async () => {
    using dir = tempDir("report-run-eval");
    const chunks: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => chunks.push(String(s)) > 0) as typeof process.stderr.write;
    let code: number;
    try {
      code = await main(["--report", c.path(dir.path), dir.path]);
    } finally {
      process.stderr.write = write;
      // main() is the tool's edge and sets process.exitCode; the test runner must not inherit it.
      process.exitCode = 0;
    }
    const text = chunks.join("");
    expect({ code, lines: text.trim().split("\n").length, named: text.includes(c.why) }).toEqual({
      code: 2,
      lines: 1,
      named: true,
    });
  });

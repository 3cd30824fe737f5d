// The promotion report in a real browser (verdict, both arms with intervals, leak and isolation
// evidence, runs, provenance; every number equal to provenance's; arms hidden until the verdict),
// `agent-eval report` on generated run directories and its refusals, and the whole lane end to end:
// a real run with the stub agent, a verdict, then the report of that run directory.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goFixed } from "../../lib/compat/go.ts";
import { run } from "../../lib/core/proc.ts";
import type { Provenance, SealedKey } from "../../lib/promotion/records.ts";
import { loadPromotionRun, renderPromotionReportHtml } from "../../lib/promotion/report.ts";
import { verdictStats } from "../../lib/promotion/verdict.ts";
import { ARTIFACTS, renderedSections, shownMetrics, useReportBrowser } from "../support/browser.ts";
import { type PromotionRunSpec, writePromotionRun } from "../support/report-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { agentEval, makeLane } from "./_lane.ts";

const ENTRY = join(import.meta.dirname, "..", "..", "scripts", "agent-eval.ts");
const pct = (x: number) => `${goFixed(100 * x, 1)}%`;
const SECTIONS = ["verdict", "arms", "leaks", "isolation", "runs", "provenance"];

/** Every number the page must show, from provenance and the key. */
function expectedMetrics(p: Provenance, key: SealedKey) {
  const out: { metric: string; variant?: string; row?: string; value: number; text: string }[] = [];
  const v = p.verdict;
  if (v) {
    out.push({ metric: "pass_threshold", value: v.pass_threshold, text: pct(v.pass_threshold) });
    out.push({ metric: "min_pass_rate", value: v.min_pass_rate, text: pct(v.min_pass_rate) });
    const stats = verdictStats(v.baseline, v.candidate, v.min_pass_rate);
    for (const arm of ["baseline", "candidate"] as const) {
      const r = v[arm];
      const i = stats[arm]!;
      out.push(
        { metric: "passed", variant: arm, value: r.passed, text: String(r.passed) },
        { metric: "n", variant: arm, value: r.n, text: String(r.n) },
        { metric: "pass_rate", variant: arm, value: r.pass_rate, text: pct(r.pass_rate) },
        { metric: "ci_lo", variant: arm, value: i.lo, text: pct(i.lo) },
        { metric: "ci_hi", variant: arm, value: i.hi, text: pct(i.hi) },
      );
    }
  }
  out.push({ metric: "per_arm", value: p.runs.per_arm, text: String(p.runs.per_arm) });
  out.push({ metric: "min_runs", value: p.runs.min_runs, text: String(p.runs.min_runs) });
  if (v) {
    const d = verdictStats(v.baseline, v.candidate, v.min_pass_rate);
    out.push(
      {
        metric: "difference",
        value: d.difference!.estimate,
        text: `${goFixed(100 * d.difference!.estimate, 1, true)} pp`,
      },
      { metric: "difference_lo", value: d.difference!.lo, text: goFixed(100 * d.difference!.lo, 1, true) },
      { metric: "difference_hi", value: d.difference!.hi, text: goFixed(100 * d.difference!.hi, 1, true) },
    );
    if (d.power.runs_per_arm !== null)
      out.push({
        metric: "runs_per_arm_needed",
        value: d.power.runs_per_arm,
        text: String(d.power.runs_per_arm),
      });
  }
  out.push({ metric: "post_leaks", value: p.leakcheck.post_leaks, text: String(p.leakcheck.post_leaks) });
  for (const [bid, r] of Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)))
    out.push({ metric: "duration_s", row: bid, value: r.duration_s, text: `${r.duration_s.toFixed(1)}s` });
  out.push({ metric: "artifacts", value: p.artifacts.length, text: String(p.artifacts.length) });
  return out;
}

const browser = useReportBrowser();

describe("promotion report in Chromium", () => {
  const cases: (PromotionRunSpec & { name: string; shot?: string })[] = [
    { name: "promote, with our intervals and isolation", verdict: "promote", shot: "promotion-light.png" },
    { name: "pending: arms stay hidden", verdict: null },
    { name: "invalid: the leaks are listed", verdict: "invalid", leaked: [1, 4] },
    { name: "written by the original: no isolation, intervals derived", verdict: "reject", original: true },
  ];
  for (const c of cases)
    test(c.name, async () => {
      using dir = tempDir("report-promotion");
      const { provenance, key } = writePromotionRun(dir.path, c);
      const opened = await browser.open(renderPromotionReportHtml(loadPromotionRun(dir.path)));
      const { page } = opened;
      expect(await renderedSections(page)).toEqual(SECTIONS.map((id) => ({ id, visible: true })));
      expect(await shownMetrics(page)).toEqual(expectedMetrics(provenance, key));
      const seen = {
        verdict: await page.textContent("[data-metric=verdict]"),
        arms: await page.$$eval("[data-arm]", (els) => els.map((el) => el.getAttribute("data-arm"))),
        runsMentionArm: /baseline|candidate/.test((await page.textContent("#runs")) ?? ""),
        leaks: await page.$$eval("[data-leak]", (els) => els.map((el) => el.getAttribute("data-leak"))),
        sandbox: await page.textContent("[data-metric=sandbox]"),
        probe: await page.$$eval("[data-probe]", (els) => els.map((el) => el.textContent)),
        foreign: opened.foreign,
        errors: opened.errors,
      };
      const bids = Object.keys(key).sort();
      expect(seen).toEqual({
        verdict: c.verdict ?? "pending",
        arms: c.verdict ? ["baseline", "candidate"] : [],
        runsMentionArm: c.verdict !== null,
        leaks: (c.leaked ?? []).map((i) => bids[i]),
        sandbox: c.original
          ? "not recorded (a run by the original tool, which did not sandbox the agent)"
          : "bwrap, uid 65534",
        probe: c.original
          ? []
          : ["/work/repo✓ absent", "/work/repo/evals/promotion/private✓ absent", "/root✓ absent"],
        foreign: [],
        errors: [],
      });
      if (c.shot) {
        await page.screenshot({ path: join(ARTIFACTS, c.shot), fullPage: true });
        const dark = await browser.open(renderPromotionReportHtml(loadPromotionRun(dir.path)), {
          colorScheme: "dark",
        });
        await dark.page.screenshot({ path: join(ARTIFACTS, "promotion-dark.png"), fullPage: true });
        await dark.page.close();
      }
      await page.close();
    });
});

async function report(args: string[]) {
  const r = await run([process.execPath, ENTRY, "report", ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

describe("agent-eval report", () => {
  test("writes RUN_DIR/report.html by default and prints one JSON object", async () => {
    using dir = tempDir("report-cli");
    writePromotionRun(dir.path, { verdict: "hold" });
    const r = await report([dir.path]);
    const out = join(dir.path, "report.html");
    expect(r).toEqual({
      code: 0,
      stdout: `{"report": ${JSON.stringify(out)}, "run_dir": ${JSON.stringify(dir.path)}, "verdict": "hold"}\n`,
      stderr: `✓ report written: ${out}\n`,
    });
    expect(readFileSync(out, "utf8")).toBe(renderPromotionReportHtml(loadPromotionRun(dir.path)));
  });

  const refusals: {
    name: string;
    args: (d: string) => string[];
    setup?: (d: string) => void;
    code: number;
    error: (d: string) => string;
  }[] = [
    {
      name: "no RUN_DIR",
      args: () => [],
      code: 2,
      error: () => "missing RUN_DIR: agent-eval report RUN_DIR [--out FILE.html]",
    },
    {
      name: "not a run directory",
      args: (d) => [d],
      code: 3,
      error: (d) => `Cannot read promotion run "${d}": no provenance.json in it`,
    },
    {
      name: "a provenance of another kind",
      args: (d) => [d],
      setup: (d) => writeFileSync(join(d, "provenance.json"), '{"schema": 1, "kind": "other"}'),
      code: 3,
      error: (d) => `Cannot load provenance "${join(d, "provenance.json")}":`,
    },
    {
      name: "--out in a missing directory",
      args: (d) => [d, "--out", join(d, "no", "r.html")],
      setup: (d) => void writePromotionRun(d, { verdict: null }),
      code: 2,
      error: (d) => `--out "${join(d, "no", "r.html")}": directory "${join(d, "no")}" does not exist`,
    },
  ];
  for (const c of refusals)
    test(`${c.name}: exit ${c.code}, one JSON object, one line`, async () => {
      using dir = tempDir("report-cli");
      c.setup?.(dir.path);
      const r = await report(c.args(dir.path));
      const lines = r.stderr.trim().split("\n");
      const out = JSON.parse(r.stdout) as { error: string; exit: number };
      expect({
        code: r.code,
        exit: out.exit,
        stdoutNames: out.error.startsWith(c.error(dir.path)),
        lines: lines.length,
        stderrNames: lines[0]?.includes(c.error(dir.path)),
      }).toEqual({ code: c.code, exit: c.code, stdoutNames: true, lines: 1, stderrNames: true });
    });
});

test("end to end: a real promotion run, its verdict, then its report", async () => {
  using dir = tempDir("report-lane");
  const lane = makeLane(dir.path);
  const ran = await agentEval(
    [
      "run",
      "--task-id",
      "demo",
      "--baseline",
      "main",
      "--candidate",
      "feat/x",
      "--agent-config",
      lane.config,
      "--runs",
      "2",
    ],
    lane.repo,
  );
  expect(ran.code).toBe(0);
  const runDir = ran.out.run_dir as string;
  const template = JSON.parse(readFileSync(join(runDir, "blind", "scores.template.json"), "utf8")) as Record<
    string,
    Record<string, null>
  >;
  const key = JSON.parse(readFileSync(join(runDir, "sealed", "key.json"), "utf8")) as SealedKey;
  const scores = Object.fromEntries(
    Object.entries(template).map(([bid, crit]) => [
      bid,
      Object.fromEntries(Object.keys(crit).map((id) => [id, key[bid]!.arm === "candidate"])),
    ]),
  );
  writeFileSync(join(dir.path, "scores.json"), JSON.stringify(scores));
  const decided = await agentEval(
    ["verdict", "--run-dir", runDir, "--scores", join(dir.path, "scores.json")],
    lane.repo,
  );
  const out = join(dir.path, "promotion.html");
  const r = await report([runDir, "--out", out]);
  expect({ verdict: decided.code, report: r.code, stdout: JSON.parse(r.stdout) }).toEqual({
    verdict: 0,
    report: 0,
    stdout: { report: out, run_dir: runDir, verdict: decided.out.result },
  });
  const opened = await browser.open(readFileSync(out, "utf8"));
  const run = loadPromotionRun(runDir);
  expect({
    sections: await renderedSections(opened.page),
    verdict: await opened.page.textContent("[data-metric=verdict]"),
    metrics: await shownMetrics(opened.page),
    foreign: opened.foreign,
    errors: opened.errors,
  }).toEqual({
    sections: SECTIONS.map((id) => ({ id, visible: true })),
    verdict: String(decided.out.result),
    metrics: expectedMetrics(run.provenance, run.key!),
    foreign: [],
    errors: [],
  });
  await opened.page.close();
});

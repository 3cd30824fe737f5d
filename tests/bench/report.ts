#!/usr/bin/env bun
// The HTML report's cost for a 1,000-trial suite (50 tasks x 4 variants x 5 repeats): its size
// (target under 2 MB), the time to render it in-process, and what Chromium spends opening it up to
// the first paint (target under a second): the renderer's main-thread CPU time, which machine load
// barely moves, and the wall time, which it does. Medians, with an empty page opened in the same
// browser as the same-run floor. Runnable alone: `bun tests/bench/report.ts`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { isMain } from "../../lib/core/runtime.ts";
import { renderSuiteReportHtml } from "../../lib/suite/report.ts";
import { launchBrowser } from "../support/browser.ts";
import { generateSuite } from "../support/report-gen.ts";
import { tempDir } from "../support/tmp.ts";
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

/**
 * Opens `file` in a fresh page and waits for the load event and two frames (the first paint):
 * wall time, and the renderer main thread's CPU time (Chromium's ThreadTime metric), which a busy
 * machine does not inflate the way it inflates wall time.
 */
async function timeOpen(context: BrowserContext, file: string): Promise<{ wallMs: number; cpuMs: number }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const thread = async () =>
    (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "ThreadTime")?.value ?? 0;
  const before = await thread();
  const t0 = performance.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
  const wallMs = performance.now() - t0;
  const cpuMs = ((await thread()) - before) * 1000;
  await page.close();
  return { wallMs, cpuMs };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Size, render time and open time of the 1,000-trial suite report. */
export async function bench(): Promise<BenchRow[]> {
  const { scorecard, trials } = generateSuite({
    tasks: 50,
    variants: ["control", "skills-v2", "opus", "haiku"],
    repeats: 5,
    seed: 7,
  });
  const renders: number[] = [];
  let doc = "";
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    doc = renderSuiteReportHtml(scorecard, trials);
    renders.push(performance.now() - t0);
  }
  const bytes = Buffer.byteLength(doc, "utf8");
  using dir = tempDir("bench-report");
  const file = join(dir.path, "suite.html");
  const empty = join(dir.path, "empty.html");
  writeFileSync(file, doc);
  writeFileSync(empty, "<!doctype html><title>x</title>");
  await using browser = await launchBrowser();
  const check = await browser.open(file);
  if (check.foreign.length > 0 || check.errors.length > 0)
    throw new Error(
      `report bench: the page fetched ${check.foreign.join(", ")} or logged ${check.errors.join("; ")}`,
    );
  await check.page.close();
  const wall: number[] = [];
  const cpu: number[] = [];
  const floorWall: number[] = [];
  const floorCpu: number[] = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    for (const [path, w, c] of [
      [empty, floorWall, floorCpu],
      [file, wall, cpu],
    ] as const) {
      const t = await timeOpen(browser.context, path);
      if (i > 0) {
        // the first round warms the browser up
        w.push(t.wallMs);
        c.push(t.cpuMs);
      }
    }
  }
  return [
    {
      bench: "report",
      name: "suite report size (1,000 trials)",
      value: round(bytes / 1e6, 3),
      unit: "MB",
      target: "< 2 MB",
    },
    {
      bench: "report",
      name: "suite report bytes per trial",
      value: Math.round(bytes / trials.length),
      unit: "B",
    },
    { bench: "report", name: "render 1,000-trial suite report", value: round(median(renders)), unit: "ms" },
    {
      bench: "report",
      name: "open in Chromium: main-thread CPU to first paint",
      value: round(median(cpu)),
      unit: "ms",
      ratio: round(median(cpu) / median(floorCpu), 2),
      baseline: `empty page ${round(median(floorCpu))} ms`,
      target: "< 1000 ms",
    },
    {
      bench: "report",
      name: "open in Chromium: wall time to first paint (machine load included)",
      value: round(median(wall)),
      unit: "ms",
      ratio: round(median(wall) / median(floorWall), 2),
      baseline: `empty page ${round(median(floorWall))} ms`,
    },
  ];
}

if (isMain(import.meta)) console.log(await bench());

#!/usr/bin/env bun
// The suite HTML report's cost at 1,000, 10,000 and 100,000 trials (tasks x 4 variants x 5 repeats):
// its size (targets: 1k under 2 MB, 10k under 1 MB), the time to render it in-process, and what
// Chromium spends opening it up to the first paint (targets: 1k under a second, 10k under 500 ms;
// 100k must still open): the renderer's main-thread CPU time, which machine load barely moves, and
// the wall time, which it does. The 10k suite is also rendered in the dot form it had before the
// matrix aggregated (matrix: "dots"), so the before/after ratio is paired in one run. Medians of
// interleaved rounds (each round opens an empty page, the floor, then every document, the order
// rotated per round), in one browser. Runnable alone: `bun tests/bench/report.ts`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { isMain } from "../../lib/core/runtime.ts";
import { median } from "../../lib/stats/index.ts";
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
  await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: 300_000 });
  await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
  const wallMs = performance.now() - t0;
  const cpuMs = ((await thread()) - before) * 1000;
  await page.close();
  return { wallMs, cpuMs };
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

interface Doc {
  label: string;
  trials: number;
  doc: string;
  renderMs: number;
  rounds: number;
  sizeTarget?: string;
  cpuTarget?: string;
  file?: string;
  wall: number[];
  cpu: number[];
}

function renderDoc(label: string, tasks: number, opts: { matrix?: "dots"; rounds: number }): Doc {
  const { scorecard, trials } = generateSuite({
    tasks,
    variants: ["control", "skills-v2", "opus", "haiku"],
    repeats: 5,
    seed: 7,
  });
  const renders: number[] = [];
  let doc = "";
  for (let i = 0; i < Math.min(ROUNDS, opts.rounds); i++) {
    const t0 = performance.now();
    doc = renderSuiteReportHtml(scorecard, trials, { matrix: opts.matrix });
    renders.push(performance.now() - t0);
  }
  return {
    label,
    trials: trials.length,
    doc,
    renderMs: median(renders),
    rounds: opts.rounds,
    wall: [],
    cpu: [],
  };
}

/** Size, render time and open time of the suite report at 1k, 10k (and its dot form) and 100k trials. */
export async function bench(): Promise<BenchRow[]> {
  const docs: Doc[] = [
    { ...renderDoc("1,000 trials", 50, { rounds: ROUNDS }), sizeTarget: "< 2 MB", cpuTarget: "< 1000 ms" },
    { ...renderDoc("10,000 trials", 500, { rounds: ROUNDS }), sizeTarget: "< 1 MB", cpuTarget: "< 500 ms" },
    renderDoc("10,000 trials, dot form (before)", 500, { matrix: "dots", rounds: ROUNDS }),
    { ...renderDoc("100,000 trials", 5000, { rounds: 3 }), cpuTarget: "opens" },
  ];
  using dir = tempDir("bench-report");
  const empty = join(dir.path, "empty.html");
  writeFileSync(empty, "<!doctype html><title>x</title>");
  docs.forEach((d, i) => {
    d.file = join(dir.path, `suite-${i}.html`);
    writeFileSync(d.file, d.doc);
  });
  await using browser = await launchBrowser();
  for (const d of docs) {
    const check = await browser.open(d.file!);
    if (check.foreign.length > 0 || check.errors.length > 0)
      throw new Error(
        `report bench: the ${d.label} page fetched ${check.foreign.join(", ")} or logged ${check.errors.join("; ")}`,
      );
    await check.page.close();
  }
  const floorWall: number[] = [];
  const floorCpu: number[] = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    const due = docs.filter((d) => i <= d.rounds);
    const order = [...due.slice(i % due.length), ...due.slice(0, i % due.length)];
    for (const d of [undefined, ...order]) {
      const t = await timeOpen(browser.context, d?.file ?? empty);
      if (i === 0) continue; // the first round warms the browser up
      (d?.wall ?? floorWall).push(t.wallMs);
      (d?.cpu ?? floorCpu).push(t.cpuMs);
    }
  }
  const floor = { cpu: median(floorCpu), wall: median(floorWall) };
  const dots = docs[2]!;
  const rows: BenchRow[] = [];
  for (const d of docs) {
    const bytes = Buffer.byteLength(d.doc, "utf8");
    const before = d.label === "10,000 trials";
    rows.push(
      {
        bench: "report",
        name: `suite report size (${d.label})`,
        value: round(bytes / 1e6, 3),
        unit: "MB",
        ...(before
          ? { ratio: round(bytes / Buffer.byteLength(dots.doc, "utf8"), 2), baseline: "the dot form's size" }
          : {}),
        ...(d.sizeTarget ? { target: d.sizeTarget } : {}),
      },
      {
        bench: "report",
        name: `suite report bytes per trial (${d.label})`,
        value: Math.round(bytes / d.trials),
        unit: "B",
      },
      { bench: "report", name: `render suite report (${d.label})`, value: round(d.renderMs), unit: "ms" },
      {
        bench: "report",
        name: `open in Chromium: main-thread CPU to first paint (${d.label})`,
        value: round(median(d.cpu)),
        unit: "ms",
        ratio: round(median(d.cpu) / floor.cpu, 2),
        baseline: `empty page ${round(floor.cpu)} ms${before ? `; dot form ${round(median(dots.cpu))} ms` : ""}`,
        ...(d.cpuTarget ? { target: d.cpuTarget } : {}),
      },
      {
        bench: "report",
        name: `open in Chromium: wall time to first paint, machine load included (${d.label})`,
        value: round(median(d.wall)),
        unit: "ms",
        ratio: round(median(d.wall) / floor.wall, 2),
        baseline: `empty page ${round(floor.wall)} ms`,
      },
    );
  }
  return rows;
}

if (isMain(import.meta)) console.log(await bench());

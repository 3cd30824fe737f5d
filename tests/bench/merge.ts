// `agent-eval suite merge` at 10,000 trials (100 tasks x 2 variants x 50 repeats, generated shard
// files with their headers): the in-process merge (read, check, order, score) against reading and
// parsing the same bytes (the floor, measured in the same process, rounds interleaved) and against
// that plus scoring the trials (what an unsharded run pays as well); the whole
// command as a child with the scorecard JSON and the HTML report written (target < 2 s); and its peak
// RSS at 2 vs 64 shards of the same trials (target flat: 64 within 10% of 2), from wait4 through
// tests/bench/_child.ts. BENCH_ONLY=merge npm run bench, or npx bun tests/bench/merge.ts.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median, Rng } from "../../lib/stats/index.ts";
import { mergeShards } from "../../lib/suite/merge.ts";
import { scoreSuite, suiteJobs } from "../../lib/suite/run.ts";
import { headerLine, parseTrialsText, shardHeader, shardJobs } from "../../lib/suite/shard.ts";
import { loadSuite, type Suite } from "../../lib/suite/suite.ts";
import { ADD_REPO, evalsTree } from "../suite/_support.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { runChild } from "./_child.ts";
import type { BenchRow } from "./run.ts";

const TASKS = 100;
const REPEATS = 50;
const ROUNDS = Number(process.env.BENCH_MERGE_ROUNDS ?? 5);

/** The suite: TASKS tasks, control and fixer, REPEATS repeats. */
export function writeSuite(root: string): string {
  const tree = evalsTree(root);
  const ids = Array.from({ length: TASKS }, (_, i) => `task-${String(i).padStart(3, "0")}`);
  for (const id of ids)
    tree.task(id, `id: ${id}\nrepo: repo\nprompt: fix ${id}\ncheck: sh test.sh\n`, ADD_REPO);
  return tree.suite(
    "bench",
    `name: bench\ntasks: [${ids.join(", ")}]\ncontrol: control\nrepeats: ${REPEATS}\nvariants:\n  - {name: control, harness: claude, model: a}\n  - {name: fixer, harness: claude, model: b}\n`,
  );
}

/** The shards' trials files in `dir`: every trial once, seeded outcomes, a log path each. */
export function writeShards(suite: Suite, dir: string, count: number): string[] {
  mkdirSync(dir, { recursive: true });
  const rng = new Rng(7);
  const rand = () => rng.next();
  const jobs = suiteJobs(suite);
  return Array.from({ length: count }, (_, index) => {
    const shard = { index, count };
    let text = headerLine(shardHeader(suite, shard, 1, true));
    for (const j of shardJobs(jobs, shard)) {
      const pass = rand() < (j.variant.name === "fixer" ? 0.7 : 0.5);
      text += `${JSON.stringify({
        task: j.task.id,
        variant: j.variant.name,
        repeat: j.repeat,
        pass,
        costUSD: Math.round(rand() * 1e4) / 1e5,
        turns: 1 + Math.floor(rand() * 20),
        wallMs: Math.round(1000 + rand() * 60_000),
        tokens: Math.floor(rand() * 50_000),
        toolErrors: Math.floor(rand() * 3),
        ...(pass ? {} : { error: "check: exit 1" }),
        log: `bench.trials.logs/${j.task.id}/${j.variant.name}/${j.repeat}.log`,
      })}\n`;
    }
    const path = join(dir, `shard-${index}.jsonl`);
    writeFileSync(path, text);
    return path;
  });
}

/** The merge command as a child: its wall time and its own peak RSS. */
function mergeChild(suitePath: string, files: string[], out: string) {
  const argv = [
    process.execPath,
    join(REPO_ROOT, "scripts", "agent-eval.ts"),
    "suite",
    "merge",
    suitePath,
    ...files,
  ];
  const r = runChild([
    ...argv,
    "--output",
    "json",
    "--scorecard",
    join(out, "sc.json"),
    "--report",
    join(out, "r.html"),
  ]);
  if (r.status !== 0) throw new Error(`merge bench child failed: ${r.stderr}`);
  return r;
}

export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("bench-merge");
  const suitePath = writeSuite(join(dir.path, "evals"));
  const suite = loadSuite(suitePath);
  const trials = suiteJobs(suite).length;
  const four = writeShards(suite, join(dir.path, "s4"), 4);
  const two = writeShards(suite, join(dir.path, "s2"), 2);
  const many = writeShards(suite, join(dir.path, "s64"), 64);
  const floor: number[] = [];
  const merge: number[] = [];
  const scoring: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    let t0 = performance.now();
    for (const f of four) parseTrialsText(readFileSync(f, "utf8"), f);
    const read = performance.now() - t0;
    t0 = performance.now();
    const merged = mergeShards(suite, four);
    const took = performance.now() - t0;
    t0 = performance.now();
    scoreSuite(suite, merged.trials, { seed: 1, local: true });
    const scored = performance.now() - t0;
    if (round > 0) {
      floor.push(read);
      merge.push(took);
      scoring.push(scored);
    }
  }
  const child = { 2: [] as number[], 64: [] as number[], wall: [] as number[] };
  for (let round = 0; round < 3; round++) {
    // Rotated so neither size always runs on the warmer (or more loaded) machine.
    for (const [n, files] of (round % 2
      ? [
          [64, many],
          [2, two],
        ]
      : [
          [2, two],
          [64, many],
        ]) as [2 | 64, string[]][]) {
      const r = mergeChild(suitePath, files, dir.path);
      child[n].push(r.maxRssMB);
      if (n === 2) child.wall.push(r.wallMs);
    }
  }
  const row = (name: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow => ({
    bench: "merge",
    name,
    value: Math.round(value * 10) / 10,
    unit,
    ...extra,
  });
  const m = median(merge);
  const f = median(floor);
  const sc = median(scoring);
  const rss2 = median(child[2]);
  const rss64 = median(child[64]);
  return [
    row(`merge ${trials} trials of 4 shards, in process`, m, "ms", {
      ratio: Math.round((m / f) * 100) / 100,
      baseline: `reading and parsing the same files: ${Math.round(f)} ms`,
    }),
    row("merge over its floor: reading, parsing and scoring (what a whole run scores too)", m, "ms", {
      ratio: Math.round((m / (f + sc)) * 100) / 100,
      baseline: `read + parse ${Math.round(f)} ms, scoring ${Math.round(sc)} ms`,
    }),
    row(
      `agent-eval suite merge ${trials} trials (+ scorecard JSON and HTML report), a child`,
      median(child.wall),
      "ms",
      {
        target: "< 2000 ms",
      },
    ),
    row("peak RSS of the merge at 2 shards", rss2, "MB"),
    row("peak RSS of the merge at 64 shards", rss64, "MB", {
      ratio: Math.round((rss64 / rss2) * 100) / 100,
      baseline: "the same trials in 2 shards",
      target: "<= 1.1x (flat in the number of shards)",
    }),
  ];
}

if (import.meta.main) console.log(await bench());

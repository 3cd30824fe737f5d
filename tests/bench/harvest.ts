// The harvest bench (issue 17 item 4): MB/s and peak memory of `eval-steps harvest` over seeded,
// generated, sealed pair stores of 10 MB and 400 MB (every protocol, sessions up to 25 steps,
// auxiliary requests, retries and truncated arms), against reading the same lines and doing nothing
// (the floor). Each run is a fresh child whose own peak RSS wait4 reports (tests/bench/_child.ts).
// The runs are interleaved (floor, small and big, dry and writing, round after round) and the figures
// are medians over BENCH_HARVEST_ROUNDS (default 3). Targets: peak RSS at 400 MB within 1.2x of that
// at 10 MB, dry run and writing; writing >= 60 MB/s. MB/s is given per wall-clock second and per CPU
// second (the machine is shared; the CPU figure is the steadier one). Runs alone:
// `npx bun tests/bench/harvest.ts`. The stores are made in a temp dir and removed.
import { randomBytes } from "node:crypto";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { median } from "../../lib/stats/index.ts";
import { harvestRun } from "../../lib/steps/harvest.ts";
import { resultChunks } from "../../lib/steps/harvest-result.ts";
import { parsePairKey } from "../../lib/steps/pairs/index.ts";
import { readLines } from "../../lib/steps/pairs/lines.ts";
import { generateSessions, pairLine, sessionPairs } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { runChild } from "./_child.ts";
import type { BenchRow } from "./run.ts";

const MB = 1024 * 1024;

/** Writes a sealed store of at least `bytes`, batch by batch (bounded memory); returns its size. */
function makeStore(path: string, bytes: number, keyText: string, seed: number): number {
  const key = parsePairKey(keyText, "bench.key");
  const fd = openSync(path, "w", 0o600);
  let size = 0;
  try {
    for (let batch = 0; size < bytes; batch++) {
      for (const s of generateSessions({ seed: seed * 1000 + batch, sessions: 20, filler: 1500 }))
        for (const p of sessionPairs(s).pairs) size += writeSync(fd, pairLine(p, key));
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

interface ChildResult {
  ms: number;
  cpuMs: number;
  maxRssMB: number;
  cases: number;
}

/** In a child: harvest (dry run or writing) or just read the lines; print what it took. */
async function child(mode: string, store: string, key: string, out: string): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let cases = 0;
  if (mode === "read") for (const _ of readLines(store)) cases++;
  else {
    // The CLI's path: the outcome stays in the spill and its JSON output is streamed (here discarded).
    using r = await harvestRun({
      pairs: store,
      pairKeyFiles: [key],
      experiment: "exp",
      ...(mode === "write" ? { out } : { dryRun: true }),
    });
    for (const _ of resultChunks(r, "json"));
    cases = r.count;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  process.stdout.write(JSON.stringify({ ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024, cases }));
}

/**
 * The child's own peak memory comes from wait4 (tests/bench/_child.ts), never its own rusage. Each
 * writing run gets a fresh --out that stays until the bench ends: on ext4 without a journal (these
 * machines' disks) the inode allocator skips inodes freed in the last minute or more, one by one, so
 * writing 9,837 files just after deleting the previous round's 9,837 cost ~500 us of kernel CPU a
 * file instead of ~60 (perf: recently_deleted in find_inode_bit). A user writes a new suite once.
 */
function inChild(mode: string, store: string, key: string, out: string): ChildResult {
  const r = runChild([process.execPath, import.meta.filename, `--${mode}`, store, key, out]);
  if (r.status !== 0) throw new Error(`harvest bench child failed: ${r.stderr}`);
  return { ...(JSON.parse(r.stdout) as ChildResult), maxRssMB: r.maxRssMB };
}

/** The harvest rows: the read floor, dry-run and writing MB/s at 400 MB, peak RSS at 10 and 400 MB. */
export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("bench-harvest");
  const key = join(dir.path, "pair.key");
  const keyText = randomBytes(32).toString("base64");
  writeFileSync(key, keyText, { mode: 0o600 });
  const small = join(dir.path, "small.jsonl");
  const big = join(dir.path, "big.jsonl");
  const smallBytes = makeStore(small, 10 * MB, keyText, 1);
  const bigBytes = makeStore(big, 400 * MB, keyText, 2);
  let outs = 0;
  const out = () => join(dir.path, `suite-${outs++}`);
  const plan: Array<[string, string, string]> = [
    ["read big", "read", big],
    ["dry small", "dry", small],
    ["dry big", "dry", big],
    ["write small", "write", small],
    ["write big", "write", big],
  ];
  const runs = new Map<string, ChildResult[]>(plan.map(([name]) => [name, []]));
  const rounds = Number(process.env.BENCH_HARVEST_ROUNDS ?? 3);
  for (let round = 0; round < rounds; round++)
    for (const [name, mode, store] of plan) runs.get(name)?.push(inChild(mode, store, key, out()));
  const med = (name: string, f: (r: ChildResult) => number) => median((runs.get(name) ?? []).map(f));
  const mbps = (ms: number) => Math.round((bigBytes / MB / (ms / 1000)) * 10) / 10;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const rss = (name: string) => med(name, (r) => r.maxRssMB);
  const floorMbps = mbps(med("read big", (r) => r.ms));
  const dryMbps = mbps(med("dry big", (r) => r.ms));
  const writeMbps = mbps(med("write big", (r) => r.ms));
  const cases = runs.get("write big")?.[0]?.cases ?? 0;
  const sMB = Math.round(smallBytes / MB);
  const bMB = Math.round(bigBytes / MB);
  const row = (name: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow => ({
    bench: "harvest",
    name,
    value,
    unit,
    ...extra,
  });
  const flat = (what: string) =>
    row(`peak RSS ${what} at ${bMB} MB`, Math.round(rss(`${what} big`)), "MB", {
      ratio: r2(rss(`${what} big`) / rss(`${what} small`)),
      baseline: `peak RSS ${what} at ${sMB} MB (${Math.round(rss(`${what} small`))} MB)`,
      target: "<= 1.2x (flat in the store's size)",
    });
  return [
    row("store size", bMB, "MB", {
      target: `${bMB} MB and ${sMB} MB, sealed, generated; ${rounds} interleaved rounds, medians`,
    }),
    row("dry run (select only)", dryMbps, "MB/s", {
      ratio: r2(dryMbps / floorMbps),
      baseline: `reading the lines: ${floorMbps} MB/s`,
    }),
    row("dry run, per CPU second", mbps(med("dry big", (r) => r.cpuMs)), "MB/s"),
    row(`harvest writing ${cases} cases`, writeMbps, "MB/s", {
      ratio: r2(writeMbps / floorMbps),
      baseline: `reading the lines: ${floorMbps} MB/s`,
      target: ">= 60 MB/s",
    }),
    row(`harvest writing ${cases} cases, per CPU second`, mbps(med("write big", (r) => r.cpuMs)), "MB/s", {
      baseline:
        "the CPU of all its threads (the collector's helpers too): steadier than wall-clock on a shared machine, and no target (the target is throughput)",
    }),
    row(`peak RSS reading the lines at ${bMB} MB (floor)`, Math.round(rss("read big")), "MB"),
    flat("dry"),
    flat("write"),
  ];
}

if (import.meta.main) {
  const [mode, store, key, out] = process.argv.slice(2);
  if (mode?.startsWith("--")) await child(mode.slice(2), store ?? "", key ?? "", out ?? "");
  else console.log(await bench());
}

// The harvest bench: MB/s and peak memory of `eval-steps harvest` over a seeded, generated, sealed
// pair store of 200 MB (every protocol, sessions up to 25 steps, auxiliary requests, retries and
// truncated arms), against reading the same lines and doing nothing (the floor). Each run is a fresh
// child whose own peak RSS wait4 reports (tests/bench/_child.ts); memory is flat when the peak over 200 MB is about the peak over
// 50 MB. Targets: >= 40 MB/s; peak RSS at 200 MB within 1.5x of that at 50 MB. MB/s is given per
// wall-clock second and per CPU second (the machine is shared; the CPU figure is the steadier one).
// Runs alone: `npx bun tests/bench/harvest.ts`. The stores are made in a temp dir and removed.
import { randomBytes } from "node:crypto";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { harvest } from "../../lib/steps/harvest.ts";
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
    const r = await harvest({
      pairs: store,
      pairKeyFiles: [key],
      experiment: "exp",
      ...(mode === "write" ? { out } : { dryRun: true }),
    });
    cases = r.cases.length;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  process.stdout.write(JSON.stringify({ ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024, cases }));
}

/** The child's own peak memory comes from wait4 (tests/bench/_child.ts), never its own rusage. */
function inChild(mode: string, store: string, key: string, out: string): ChildResult {
  const r = runChild([process.execPath, import.meta.filename, `--${mode}`, store, key, out]);
  if (r.status !== 0) throw new Error(`harvest bench child failed: ${r.stderr}`);
  return { ...(JSON.parse(r.stdout) as ChildResult), maxRssMB: r.maxRssMB };
}

/** The harvest rows: dry-run and writing MB/s, the read floor, peak memory at 50 and 200 MB. */
export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("bench-harvest");
  const key = join(dir.path, "pair.key");
  const keyText = randomBytes(32).toString("base64");
  writeFileSync(key, keyText, { mode: 0o600 });
  const small = join(dir.path, "small.jsonl");
  const big = join(dir.path, "big.jsonl");
  const smallBytes = makeStore(small, 50 * MB, keyText, 1);
  const bigBytes = makeStore(big, 200 * MB, keyText, 2);
  const floor = inChild("read", big, key, "");
  const dry = inChild("dry", big, key, "");
  const write = inChild("write", big, key, join(dir.path, "suite"));
  const drySmall = inChild("dry", small, key, "");
  const mbps = (bytes: number, ms: number) => Math.round((bytes / MB / (ms / 1000)) * 10) / 10;
  const floorMbps = mbps(bigBytes, floor.ms);
  const row = (name: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow => ({
    bench: "harvest",
    name,
    value,
    unit,
    ...extra,
  });
  return [
    row("store size", Math.round(bigBytes / MB), "MB", { target: "200 MB sealed, generated" }),
    row("dry run (select only)", mbps(bigBytes, dry.ms), "MB/s", {
      ratio: Math.round((mbps(bigBytes, dry.ms) / floorMbps) * 100) / 100,
      baseline: `reading the lines: ${floorMbps} MB/s`,
      target: ">= 40 MB/s",
    }),
    row("dry run, per CPU second", mbps(bigBytes, dry.cpuMs), "MB/s", {
      baseline: "wall-clock figures above suffer from other load on a shared machine; this one less so",
    }),
    row(`harvest writing ${write.cases} cases`, mbps(bigBytes, write.ms), "MB/s", { target: ">= 40 MB/s" }),
    row(`harvest writing ${write.cases} cases, per CPU second`, mbps(bigBytes, write.cpuMs), "MB/s"),
    row(`peak RSS at ${Math.round(smallBytes / MB)} MB`, Math.round(drySmall.maxRssMB), "MB"),
    row(`peak RSS at ${Math.round(bigBytes / MB)} MB`, Math.round(dry.maxRssMB), "MB", {
      ratio: Math.round((dry.maxRssMB / drySmall.maxRssMB) * 100) / 100,
      baseline: `peak RSS at ${Math.round(smallBytes / MB)} MB`,
      target: "<= 1.5x (flat in the store's size)",
    }),
    row("peak RSS writing", Math.round(write.maxRssMB), "MB"),
  ];
}

if (import.meta.main) {
  const [mode, store, key, out] = process.argv.slice(2);
  if (mode?.startsWith("--")) await child(mode.slice(2), store ?? "", key ?? "", out ?? "");
  else console.log(await bench());
}

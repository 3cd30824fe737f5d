#!/usr/bin/env bun
// `bun run bench`: speed as ratios against a baseline measured in the same process, never as
// absolute thresholds in tests. Commands run interleaved, round after round, so machine load hits
// them alike; the figures are medians.
//   shim:  one replayed gh call on a 10,000-entry cassette vs the same binary's --version and /bin/true
//   grade: grading a 30-assertion case, through the binary and in-process
// Results go to stdout (a table) and .bench/results.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gradeCase } from "../../lib/grade/runner.ts";
import { binDir } from "../support/binary.ts";
import { makeCase30 } from "../support/case-gen.ts";
import { cassetteText, generateCassette } from "../support/cassette-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 3;

interface Cmd {
  name: string;
  argv: string[];
  env?: Record<string, string>;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function timeInterleaved(cmds: Cmd[]): Map<string, number> {
  const samples = new Map<string, number[]>(cmds.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS + WARMUP; round++) {
    for (const c of cmds) {
      const t0 = performance.now();
      const r = spawnSync(c.argv[0]!, c.argv.slice(1), {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...c.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const dt = performance.now() - t0;
      if (r.status !== 0) throw new Error(`${c.name}: exited ${r.status}: ${r.stderr}`);
      if (round >= WARMUP) samples.get(c.name)!.push(dt);
    }
  }
  return new Map([...samples].map(([k, v]) => [k, median(v)]));
}

async function timeInProcess(fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < ROUNDS + WARMUP; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= WARMUP) xs.push(performance.now() - t0);
  }
  return median(xs);
}

const bin = await binDir();
using dir = tempDir("proctor-bench");
const rows: { bench: string; name: string; medianMs: number; ratio: number; baseline: string }[] = [];
const add = (bench: string, m: Map<string, number>, baseline: string) => {
  const base = m.get(baseline)!;
  for (const [name, ms] of m) rows.push({ bench, name, medianMs: ms, ratio: ms / base, baseline });
};

// Shim: the index cache is written for a cassette that has stood unchanged for a moment (see
// lib/shim/replay-cache.ts), so the cassettes are written first and the warm-up rounds build it.
const shimCmds: Cmd[] = [
  { name: "/bin/true", argv: ["/bin/true"] },
  { name: "gh --version", argv: [join(bin, "gh"), "--version"] },
];
for (const n of [10, 10_000]) {
  const path = join(dir.path, `cassette-${n}.json`);
  writeFileSync(path, cassetteText(n));
  const argv = generateCassette(n).calls[Math.floor(n / 2)]!.argv;
  shimCmds.push({
    name: `gh replay (${n} entries)`,
    argv: [join(bin, "gh"), ...argv],
    env: { EVAL_CASSETTES: path },
  });
}
await new Promise((r) => setTimeout(r, 2100));
add("shim", timeInterleaved(shimCmds), "gh --version");

// Grade: a seeded 30-assertion case covering all six tools.
const { caseDir, outDir } = makeCase30(join(dir.path, "case30"));
add(
  "grade",
  timeInterleaved([
    { name: "grade --version", argv: [join(bin, "grade"), "--version"] },
    {
      name: "grade 30 assertions (binary)",
      argv: [join(bin, "grade"), "--case", caseDir, "--out", outDir],
      env: { REPO_ROOT },
    },
  ]),
  "grade --version",
);
const inProc = new Map<string, number>([
  [
    "read case.json (in-process baseline)",
    await timeInProcess(async () => JSON.parse(await Bun.file(join(caseDir, "case.json")).text())),
  ],
  [
    "gradeCase 30 assertions (in-process)",
    await timeInProcess(() => gradeCase(caseDir, outDir, { repoRoot: REPO_ROOT })),
  ],
]);
add("grade-inproc", inProc, "read case.json (in-process baseline)");

const width = Math.max(...rows.map((r) => r.name.length));
process.stdout.write(`bench (medians of ${ROUNDS} rounds after ${WARMUP} warm-up)\n`);
for (const r of rows) {
  process.stdout.write(
    `  ${r.bench.padEnd(13)} ${r.name.padEnd(width)}  ${r.medianMs.toFixed(2).padStart(8)} ms  x${r.ratio.toFixed(2)} of ${r.baseline}\n`,
  );
}
mkdirSync(join(REPO_ROOT, ".bench"), { recursive: true });
writeFileSync(
  join(REPO_ROOT, ".bench", "results.json"),
  `${JSON.stringify({ rounds: ROUNDS, rows }, null, 2)}\n`,
);

// The hermetic and step lanes' merges at 10,000 units (generated shard files, stamped as the lanes
// stamp them): `run-eval merge --json` over 10,000 cases and `eval-steps merge --output json` over
// 10,000 steps in 1,000 sessions, each as a child (wall time, target < 2 s) at 4 and at 64 shards of
// the same units (peak RSS from wait4 through tests/bench/_child.ts, target flat: 64 within 10% of 4),
// beside the floor of reading and parsing the same files in a child. Rounds interleaved; medians.
// BENCH_ONLY=shard npm run bench, or npx bun tests/bench/shard.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stampShard } from "../../lib/core/shard-set.ts";
import { type CaseRunResult, resultOfCases } from "../../lib/hermetic/result.ts";
import { median } from "../../lib/stats/index.ts";
import { buildStepScorecard, type StepResult } from "../../lib/steps/scorecard.ts";
import { session } from "../steps/_cases.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { runChild } from "./_child.ts";
import type { BenchRow } from "./run.ts";

const UNITS = 10_000;
const ROUNDS = Number(process.env.BENCH_SHARD_ROUNDS ?? 3);

function kase(i: number): CaseRunResult {
  const exitCode = i % 9 === 4 ? 1 : 0;
  const name = `skill-${i % 40}/case-${String(i).padStart(5, "0")}`;
  return {
    name,
    caseDir: `/repo/evals/cases/${name}`,
    result: exitCode === 0 ? "pass" : "fail",
    exitCode,
    stage: exitCode === 0 ? "done" : "grade",
    message: exitCode === 0 ? null : `✗ eval failed: ${name}`,
    assertions: { passed: 5 - exitCode, total: 5 },
    durationMs: 800 + (i % 300),
    subjectMs: 500 + (i % 200),
    kept: null,
    grade: null,
    sandbox: null,
    output: `◆ eval ${name}\n${"┄".repeat(20)}\n  ✓ subject completed\n✓ eval passed: ${name}\n`,
  };
}

function step(i: number): StepResult {
  return {
    id: `step-${String(i).padStart(5, "0")}`,
    session: session(1 + (i % 1000)),
    depth: Math.floor(i / 1000),
    protocol: "anthropic",
    pass: i % 5 !== 2,
    sameTools: i % 5 !== 2,
    sameCalls: i % 7 !== 3,
    valid: true,
    prematureStop: i % 5 === 2,
    problems: [],
    tools: ["Read"],
    latencyMs: 100 + (i % 50),
  };
}

/** The shard files of both lanes at `count` shards, under `dir`. */
function writeShards(dir: string, count: number): { runs: string[]; steps: string[] } {
  mkdirSync(dir, { recursive: true });
  const cases = Array.from({ length: UNITS }, (_, i) => kase(i));
  const steps = Array.from({ length: UNITS }, (_, i) => step(i));
  const facts = { jobs: 4, mechanism: "bwrap", durationMs: 1, exitCode: 1 };
  return {
    runs: Array.from({ length: count }, (_, index) => {
      const { units, stamp } = stampShard(cases, { index, count }, (c) => c.caseDir.slice(6));
      const path = join(dir, `run-${index}.json`);
      writeFileSync(path, JSON.stringify({ ...resultOfCases(units, facts), shard: stamp }, null, 2));
      return path;
    }),
    steps: Array.from({ length: count }, (_, index) => {
      const { units, stamp } = stampShard(
        steps,
        { index, count },
        (s) => s.id,
        (s) => s.session,
      );
      const path = join(dir, `steps-${index}.json`);
      writeFileSync(
        path,
        JSON.stringify({ ...buildStepScorecard("suite", "m", units), shard: stamp }, null, 2),
      );
      return path;
    }),
  };
}

const FLOOR = `for (const f of process.argv.slice(1)) JSON.parse(require("node:fs").readFileSync(f, "utf8"));`;

export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("proctor-bench-shard");
  const sets = { 4: writeShards(join(dir.path, "4"), 4), 64: writeShards(join(dir.path, "64"), 64) };
  const argv = {
    "run-eval merge": (files: string[]) => [
      process.execPath,
      join(REPO_ROOT, "scripts", "run-eval.ts"),
      "merge",
      "--json",
      ...files,
    ],
    "eval-steps merge": (files: string[]) => [
      process.execPath,
      join(REPO_ROOT, "scripts", "eval-steps.ts"),
      "merge",
      "--output",
      "json",
      ...files,
    ],
  };
  const samples = new Map<string, { wall: number[]; rss: number[] }>();
  const note = (name: string, wall: number, rss: number) => {
    const s = samples.get(name) ?? { wall: [], rss: [] };
    s.wall.push(wall);
    s.rss.push(rss);
    samples.set(name, s);
  };
  for (let round = 0; round <= ROUNDS; round++)
    for (const n of [4, 64] as const)
      for (const [lane, files] of [
        ["run-eval merge", sets[n].runs],
        ["eval-steps merge", sets[n].steps],
      ] as const) {
        const floor = runChild([process.execPath, "-e", FLOOR, ...files]);
        const r = runChild(argv[lane](files), { maxBuffer: 1 << 30 });
        if (r.status !== 0 && !(lane === "run-eval merge" && r.status === 1))
          throw new Error(`${lane}: exited ${r.status}: ${r.stderr}`);
        if (round === 0) continue; // warm-up
        note(`${lane}, ${UNITS} units, ${n} shards`, r.wallMs, r.maxRssMB);
        note(`read+parse the same ${n} files (floor)`, floor.wallMs, floor.maxRssMB);
      }
  const rows: BenchRow[] = [];
  const at = (name: string) => samples.get(name) ?? { wall: [0], rss: [0] };
  for (const lane of ["run-eval merge", "eval-steps merge"]) {
    const four = at(`${lane}, ${UNITS} units, 4 shards`);
    const many = at(`${lane}, ${UNITS} units, 64 shards`);
    const floor = at("read+parse the same 4 files (floor)");
    rows.push(
      {
        bench: "shard",
        name: `${lane} ${UNITS} units, 4 shards (wall)`,
        value: median(four.wall),
        unit: "ms",
        ratio: median(four.wall) / median(floor.wall),
        baseline: "read+parse the same files",
        target: "< 2000 ms",
      },
      {
        bench: "shard",
        name: `${lane} ${UNITS} units, 64 shards (wall)`,
        value: median(many.wall),
        unit: "ms",
        ratio: median(many.wall) / median(four.wall),
        baseline: "4 shards",
        target: "< 2000 ms",
      },
      { bench: "shard", name: `${lane} peak RSS, 4 shards`, value: median(four.rss), unit: "MiB" },
      {
        bench: "shard",
        name: `${lane} peak RSS, 64 shards`,
        value: median(many.rss),
        unit: "MiB",
        ratio: median(many.rss) / median(four.rss),
        baseline: "4 shards",
        target: "flat (<= 1.10x)",
      },
    );
  }
  return rows;
}

if (import.meta.main) {
  for (const r of await bench())
    process.stdout.write(
      `${r.name.padEnd(52)} ${r.value.toFixed(1).padStart(9)} ${r.unit}${r.ratio ? `  x${r.ratio.toFixed(2)} of ${r.baseline}` : ""}${r.target ? `  (target ${r.target})` : ""}\n`,
    );
}

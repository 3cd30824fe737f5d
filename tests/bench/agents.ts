// The agent drivers' bench: wall time of one full tool-loop run of each pinned real CLI through its
// driver (fresh HOME, files written, the mock asks for one shell command, then a final text), as a
// ratio against the same CLI's `--version` measured interleaved in the same process, so machine load
// hits both alike. The figure is what a trial pays for the CLI itself before any model latency.
// Runs alone: `npx bun tests/bench/agents.ts` (AGENTS_BENCH_ROUNDS, default 3).

import { run } from "../../lib/core/proc.ts";
import { median } from "../../lib/stats/index.ts";
import type { Harness } from "../../lib/suite/suite.ts";
import { agentCli } from "../support/agent-clis.ts";
import { runAgent } from "../support/agent-run.ts";
import { runCommand, startMockModel } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";

interface BenchRow {
  bench: string;
  name: string;
  value: number;
  unit: string;
  ratio?: number;
  baseline?: string;
  target?: string;
}

const ROUNDS = Number(process.env.AGENTS_BENCH_ROUNDS ?? 3);

async function versionMs(harness: Harness): Promise<number> {
  using dir = tempDir("agents-bench-v");
  const r = await run([agentCli(harness), "--version"], {
    env: { HOME: dir.path, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 60_000,
  });
  if (r.exitCode !== 0) throw new Error(`${harness} --version exited ${r.exitCode}: ${r.stderr.trim()}`);
  return r.durationMs;
}

async function loopMs(harness: Harness): Promise<number> {
  using dir = tempDir("agents-bench");
  await using mock = await startMockModel();
  const key = `sk-bench-${harness}`;
  mock.scenario(key, runCommand("echo bench > bench.txt"));
  const { result } = await runAgent({ harness, mock, root: dir.path, key });
  if (result.exitCode !== 0)
    throw new Error(`${harness} tool loop exited ${result.exitCode}: ${result.stderr.trim()}`);
  return result.durationMs;
}

/** The agents rows: per CLI, the tool-loop run in ms and its ratio to `--version`. */
export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const harness of ["claude", "codex", "gemini"] as const) {
    const loops: number[] = [];
    const versions: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      versions.push(await versionMs(harness));
      loops.push(await loopMs(harness));
    }
    const loop = median(loops);
    const version = median(versions);
    rows.push({
      bench: "agents",
      name: `${harness} tool loop (2 model calls, 1 shell command)`,
      value: Math.round(loop),
      unit: "ms",
      ratio: Number((loop / version).toFixed(2)),
      baseline: `${harness} --version (${Math.round(version)} ms)`,
    });
  }
  return rows;
}

if (import.meta.main) console.log(await bench());

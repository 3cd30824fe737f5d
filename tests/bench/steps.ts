// The step lane's bench: what replay adds over a bare HTTP call, and what grading and the
// session-clustered scorecard cost at suite sizes well past real ones.
//   replay:    N cases (anthropic) through runStepSuite against the mock model at --parallel 8,
//              against the same N bare fetch() POSTs of the same bodies at the same concurrency
//              (the baseline); steps/s and the ratio. The mock runs in its own process; the two
//              sides alternate over BENCH_STEPS_ROUNDS (default 5) rounds after a warm-up; medians.
//   match:     gradeAnswer calls per second on a 3-call answer under `calls`.
//   scorecard: buildStepScorecard over 5,000 results in 500 sessions (5 rates x 2,000 resamples), ms.
// Runs alone: `npx bun tests/bench/steps.ts`.

import { spawn } from "node:child_process";
import { pool } from "../../lib/core/pool.ts";
import { quantile } from "../../lib/stats/quantile.ts";
import { gradeAnswer } from "../../lib/steps/match.ts";
import { runStepSuite } from "../../lib/steps/replay-run.ts";
import { buildStepScorecard, type StepResult } from "../../lib/steps/scorecard.ts";
import { REQUESTS, session, stepCase, writeSuite } from "../steps/_cases.ts";
import { startMockModel, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import type { BenchRow } from "./run.ts";

const N = Number(process.env.BENCH_STEPS ?? 400);
const ROUNDS = Number(process.env.BENCH_STEPS_ROUNDS ?? 5);

/** In a child: the mock model on port 0, its URL on stdout, until stdin closes. */
async function serveMock(): Promise<void> {
  const mock = await startMockModel({
    script: () => toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]),
  });
  process.stdout.write(`${mock.url}\n`);
  process.stdin.resume();
  await new Promise((r) => process.stdin.once("end", r));
  await mock[Symbol.asyncDispose]();
}

/** The mock in its own process, so neither side shares an event loop with the server it measures. */
async function mockProcess(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [import.meta.filename, "--mock"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) resolve(buf.trim());
    });
    child.once("exit", (code) => reject(new Error(`bench mock exited ${code} before listening`)));
  });
  const exited = new Promise((r) => child.once("exit", r));
  const stop = async () => {
    child.stdin.end();
    await exited;
  };
  return { url, stop };
}

async function replay(): Promise<BenchRow[]> {
  const mock = await mockProcess();
  using dir = tempDir("bench-steps");
  writeSuite(
    dir.path,
    Array.from({ length: N }, (_, i) => stepCase("anthropic", { id: `c${i}` })),
  );
  const body = JSON.stringify({ ...REQUESTS.anthropic, model: "m", stream: false });
  const bareOnce = async () => {
    const t0 = performance.now();
    await pool(Array.from({ length: N }), 8, async () => {
      const r = await fetch(`${mock.url}/v1/messages`, {
        method: "POST",
        body,
        headers: { "x-api-key": "k" },
      });
      await r.json();
    });
    return performance.now() - t0;
  };
  const oursOnce = async () => {
    const t1 = performance.now();
    const sc = await runStepSuite({
      suite: dir.path,
      model: "m",
      url: mock.url,
      keyEnv: "K",
      parallel: 8,
      env: { K: "k" },
    });
    if (sc.pass.rate !== 1) throw new Error("bench replay: expected every step to pass");
    return performance.now() - t1;
  };
  // Interleaved rounds, alternating which side goes first, after one warm-up of each; medians.
  const bares: number[] = [];
  const ourss: number[] = [];
  try {
    await bareOnce();
    await oursOnce();
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        bares.push(await bareOnce());
        ourss.push(await oursOnce());
      } else {
        ourss.push(await oursOnce());
        bares.push(await bareOnce());
      }
    }
  } finally {
    await mock.stop();
  }
  const bare = quantile(bares, 0.5);
  const ours = quantile(ourss, 0.5);
  return [
    { bench: "steps", name: "replay bare fetch (baseline)", value: (N / bare) * 1000, unit: "steps/s" },
    {
      bench: "steps",
      name: `replay + grade + scorecard, ${N} steps, parallel 8`,
      value: (N / ours) * 1000,
      unit: "steps/s",
      ratio: ours / bare,
      baseline: "replay bare fetch (baseline)",
    },
  ];
}

function match(): BenchRow {
  const calls = [
    { name: "Read", args: { file_path: "a.ts", limit: 10 } },
    { name: "Grep", args: { pattern: "x", path: "." } },
    { name: "Bash", args: { command: "ls -la", timeout: 5 } },
  ];
  const c = {
    expected: { calls },
    alternatives: [],
    match: "calls" as const,
    tools: [
      { name: "Read", required: ["file_path"] },
      { name: "Grep", required: ["pattern"] },
      { name: "Bash", required: ["command"] },
    ],
  };
  const answer = { calls: [...calls].reverse(), malformedTurn: false, text: "" };
  const n = 100_000;
  const t = performance.now();
  for (let i = 0; i < n; i++) gradeAnswer(c, answer);
  return {
    bench: "steps",
    name: "gradeAnswer, 3 calls, match calls",
    value: (n / (performance.now() - t)) * 1000,
    unit: "grades/s",
  };
}

function scorecard(): BenchRow {
  const results: StepResult[] = Array.from({ length: 5000 }, (_, i) => ({
    id: `c${i}`,
    session: session(i % 500),
    depth: i % 30,
    protocol: "anthropic",
    pass: i % 3 !== 0,
    sameTools: i % 4 !== 0,
    sameCalls: i % 5 !== 0,
    valid: i % 7 !== 0,
    prematureStop: i % 2 === 0 ? null : i % 11 === 0,
    problems: [],
    tools: ["Read"],
    latencyMs: 1,
  }));
  const t = performance.now();
  buildStepScorecard("s", "m", results);
  return {
    bench: "steps",
    name: "scorecard, 5000 steps in 500 sessions",
    value: performance.now() - t,
    unit: "ms",
  };
}

/** The step lane's rows. */
export async function bench(): Promise<BenchRow[]> {
  return [...(await replay()), match(), scorecard()];
}

if (import.meta.main) {
  if (process.argv[2] === "--mock") await serveMock();
  else console.log(await bench());
}

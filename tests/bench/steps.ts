// The step lane's bench: what replay adds over a bare HTTP call, and what grading and the
// session-clustered scorecard cost at suite sizes well past real ones.
//   replay:    N cases (anthropic) through runStepSuite against the mock model at --parallel 8,
//              against the same N bare fetch() POSTs of the same bodies at the same concurrency
//              (the baseline); steps/s and the ratio.
//   match:     gradeAnswer calls per second on a 3-call answer under `calls`.
//   scorecard: buildStepScorecard over 5,000 results in 500 sessions (5 rates x 2,000 resamples), ms.
// Runs alone: `npx bun tests/bench/steps.ts`.

import { pool } from "../../lib/core/pool.ts";
import { gradeAnswer } from "../../lib/steps/match.ts";
import { runStepSuite } from "../../lib/steps/replay-run.ts";
import { buildStepScorecard, type StepResult } from "../../lib/steps/scorecard.ts";
import { REQUESTS, session, stepCase, writeSuite } from "../steps/_cases.ts";
import { startMockModel, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import type { BenchRow } from "./run.ts";

const N = Number(process.env.BENCH_STEPS ?? 400);

async function replay(): Promise<BenchRow[]> {
  await using mock = await startMockModel({
    script: () => toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]),
  });
  using dir = tempDir("bench-steps");
  writeSuite(
    dir.path,
    Array.from({ length: N }, (_, i) => stepCase("anthropic", { id: `c${i}` })),
  );
  const body = JSON.stringify({ ...REQUESTS.anthropic, model: "m", stream: false });
  const t0 = performance.now();
  await pool(Array.from({ length: N }), 8, async () => {
    const r = await fetch(`${mock.url}/v1/messages`, { method: "POST", body, headers: { "x-api-key": "k" } });
    await r.json();
  });
  const bare = performance.now() - t0;
  const t1 = performance.now();
  const sc = await runStepSuite({
    suite: dir.path,
    model: "m",
    url: mock.url,
    keyEnv: "K",
    parallel: 8,
    env: { K: "k" },
  });
  const ours = performance.now() - t1;
  if (sc.pass.rate !== 1) throw new Error("bench replay: expected every step to pass");
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

if (import.meta.main) console.log(await bench());

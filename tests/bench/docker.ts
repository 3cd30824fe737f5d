// The Docker runner's bench. Floor: what three containers cost on this engine at all, three
// `docker run --rm --network none IMAGE true` in a row (one trial = three phase containers). Trial: a trivial trial
// through the runner (prepare, setup `true`, agent `true` with the model bridge to a local server,
// check `true`, dispose), i.e. everything the runner adds: the hardened run, the /work tar in and out,
// exec, the bridge, removal. Rounds interleave floor and trial so machine load hits both alike;
// medians. Then trials per minute with 1 and 2 trials at once. Target (issue 17.3): trial <= 1.3x the floor.
// Runs alone: `npx bun tests/bench/docker.ts` (BENCH_DOCKER_ROUNDS, default 5; BENCH_DOCKER_TRIALS, default 6).
import { createServer } from "node:http";
import { dockerCli } from "../../lib/isolation/docker/engine.ts";
import { dockerRunner, type PhaseRunner } from "../../lib/isolation/docker/index.ts";
import { quantile } from "../../lib/stats/quantile.ts";
import { testImage } from "../isolation/docker/_image.ts";
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_DOCKER_ROUNDS ?? 5);
const TRIALS = Number(process.env.BENCH_DOCKER_TRIALS ?? 6);

async function floor(image: string): Promise<number> {
  const call = dockerCli();
  const t = performance.now();
  for (let i = 0; i < 3; i++) {
    // The same network mode as the trials' phases: the default bridge network costs ~8% more to set up.
    const r = await call(["run", "--rm", "--network", "none", image, "true"]);
    if (r.exitCode !== 0) throw new Error(`docker run failed: ${r.stderr}`);
  }
  return performance.now() - t;
}

async function trial(runner: PhaseRunner, image: string, modelUrl: string, n: number): Promise<number> {
  const t = performance.now();
  const runId = `bench${process.pid}_${n}`;
  const ws = await runner.prepare(runId, undefined);
  const base = { runId, image, timeoutMs: 60_000, network: "none" as const, argv: ["true"] };
  for (const r of [
    await runner.runPhase(ws, { ...base, phase: "setup", commands: [["true"]] }),
    await runner.runPhase(ws, { ...base, phase: "agent", model: { url: modelUrl } }),
    await runner.runPhase(ws, { ...base, phase: "check" }),
  ])
    if (r.exitCode !== 0 || r.infraError) throw new Error(`bench trial failed: ${JSON.stringify(r)}`);
  await runner.dispose(ws);
  return performance.now() - t;
}

async function perMinute(runner: PhaseRunner, image: string, url: string, parallel: number): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < TRIALS) await trial(runner, image, url, 1000 * parallel + next++);
    }),
  );
  return TRIALS / ((performance.now() - t) / 60_000);
}

/** Floor vs trial (ms, ratio) and trials per minute at --parallel 1 and 2. */
export async function bench(): Promise<BenchRow[]> {
  const image = await testImage();
  const model = createServer((_, res) => res.end("ok"));
  await new Promise<void>((r) => model.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(model.address() as { port: number }).port}`;
  const runner = dockerRunner();
  try {
    await trial(runner, image, url, -1); // warm-up: image layers in the page cache, the CLI's first start
    const floors: number[] = [];
    const trials: number[] = [];
    // Interleaved, and each round alternates which side goes first (a shared machine's load drifts).
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) floors.push(await floor(image));
      trials.push(await trial(runner, image, url, i));
      if (i % 2 === 1) floors.push(await floor(image));
    }
    const f = quantile(floors, 0.5);
    const tr = quantile(trials, 0.5);
    const p1 = await perMinute(runner, image, url, 1);
    const p2 = await perMinute(runner, image, url, 2);
    return [
      {
        bench: "docker",
        name: "floor: 3x docker run --rm --network none IMAGE true",
        value: f,
        unit: "ms",
        ratio: 1,
        baseline: "itself",
      },
      {
        bench: "docker",
        name: "trial via the runner (3 phases, bridge)",
        value: tr,
        unit: "ms",
        ratio: tr / f,
        baseline: "floor",
        target: "<= 1.3x",
      },
      { bench: "docker", name: "runner overhead per trial", value: tr - f, unit: "ms", baseline: "floor" },
      {
        bench: "docker",
        name: "trials/min --parallel 1",
        value: p1,
        unit: "trials/min",
        ratio: 1,
        baseline: "itself",
      },
      {
        bench: "docker",
        name: "trials/min --parallel 2",
        value: p2,
        unit: "trials/min",
        ratio: p2 / p1,
        baseline: "--parallel 1",
      },
    ];
  } finally {
    model.close();
  }
}

if (import.meta.main) console.log(await bench());

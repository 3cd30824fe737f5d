// The Docker runner's bench. Floor: what three containers cost on this engine at all, three
// `docker run --rm --network none IMAGE true` in a row (one trial = three phase containers). Trial: a trivial trial
// through the runner (prepare, setup `true`, agent `true` with the model bridge to a local server,
// check `true`, dispose), i.e. everything the runner adds: the hardened containers, /work in and out,
// the bridge, removal. Every phase runs attached there (lib/isolation/docker/_attach.ts): one
// `docker run -i` each with /work on its stdin, `docker cp` out after setup and agent (5 docker calls on
// the critical path against the floor's 3; each `docker rm` runs off it); the second
// trial gives the agent a secret, which only an exec takes by name, so its agent phase keeps the
// original's run -d and exec (the exec unpacking /work from its stdin) and cp out. Rounds interleave floor and trials, each round rotating who goes first
// (a shared machine's load drifts); medians of wall and of CPU. CPU is this process, its docker
// clients, dockerd and containerd (the per-container shims and runc exit with their containers, so
// they are not counted). Then trials per minute with 1 and 2 trials at once. Target (issue 17.3):
// trial <= 1.3x the floor. Runs alone: `npx bun tests/bench/docker.ts` (BENCH_DOCKER_ROUNDS, default 15;
// BENCH_DOCKER_TRIALS, default 6).
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dockerCli } from "../../lib/isolation/docker/engine.ts";
import { dockerRunner, type PhaseRunner } from "../../lib/isolation/docker/index.ts";
import { quantile } from "../../lib/stats/quantile.ts";
import { testImage } from "../isolation/docker/_image.ts";
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_DOCKER_ROUNDS ?? 15);
const TRIALS = Number(process.env.BENCH_DOCKER_TRIALS ?? 6);
const SECRET = "PROCTOR_BENCH_SECRET";

/** A side's cost: wall and CPU, ms. */
export interface Cost {
  wallMs: number;
  cpuMs: number;
}

/** Pids of the engine's long-lived processes, found by name once. */
const enginePids = readdirSync("/proc")
  .filter((p) => /^\d+$/.test(p))
  .filter((p) => {
    try {
      return ["dockerd", "containerd"].includes(readFileSync(`/proc/${p}/comm`, "utf8").trim());
    } catch {
      return false;
    }
  });

/** utime + stime (+ waited-for children's, `withChildren`) of a process, ms (USER_HZ = 100). */
function procCpuMs(pid: string, withChildren: boolean): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // Fields 14-17 of stat(5) are 11-14 here (after pid, comm and state are cut).
    const ticks = f[11]! + f[12]! + (withChildren ? f[13]! + f[14]! : 0);
    return ticks * 10;
  } catch {
    return 0;
  }
}

function cpuNow(): number {
  return procCpuMs("self", true) + enginePids.reduce((sum, p) => sum + procCpuMs(p, false), 0);
}

/** Wall and CPU (this process and its children, dockerd, containerd) of `f`. */
export async function measured(f: () => Promise<void>): Promise<Cost> {
  const cpu = cpuNow();
  const t = performance.now();
  await f();
  return { wallMs: performance.now() - t, cpuMs: cpuNow() - cpu };
}

/** Three bare containers on the trials' network mode. */
export function floor(image: string): Promise<Cost> {
  const call = dockerCli();
  return measured(async () => {
    for (let i = 0; i < 3; i++) {
      // The same network mode as the trials' phases: the default bridge network costs ~8% more to set up.
      const r = await call(["run", "--rm", "--network", "none", image, "true"]);
      if (r.exitCode !== 0) throw new Error(`docker run failed: ${r.stderr}`);
    }
  });
}

/** One trivial trial on an empty /work (or `repo`); `secret` gives the agent a secret by name (its phase then runs detached). */
export function trial(
  runner: PhaseRunner,
  image: string,
  modelUrl: string,
  n: number,
  secret = false,
  repo?: string,
): Promise<Cost> {
  return measured(async () => {
    const runId = `bench${process.pid}_${n}`;
    const ws = await runner.prepare(runId, repo);
    const base = { runId, image, timeoutMs: 60_000, network: "none" as const, argv: ["true"] };
    const agent = { ...base, phase: "agent" as const, model: { url: modelUrl } };
    for (const r of [
      await runner.runPhase(ws, { ...base, phase: "setup", commands: [["true"]] }),
      await runner.runPhase(ws, secret ? { ...agent, secretEnvNames: [SECRET] } : agent),
      await runner.runPhase(ws, { ...base, phase: "check" }),
    ])
      if (r.exitCode !== 0 || r.infraError) throw new Error(`bench trial failed: ${JSON.stringify(r)}`);
    await runner.dispose(ws);
  });
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

/** Runs the sides in turn for `rounds`, rotating which goes first; medians of wall and CPU per side. */
export async function interleaved(sides: (() => Promise<Cost>)[], rounds: number): Promise<Cost[]> {
  const seen: Cost[][] = sides.map(() => []);
  for (let i = 0; i < rounds; i++)
    for (let j = 0; j < sides.length; j++) {
      const k = (i + j) % sides.length;
      seen[k]!.push(await sides[k]!());
    }
  return seen.map((s) => ({
    wallMs: quantile(
      s.map((c) => c.wallMs),
      0.5,
    ),
    cpuMs: quantile(
      s.map((c) => c.cpuMs),
      0.5,
    ),
  }));
}

/** A local model endpoint for the bridge (never called by `true`). */
export async function modelServer(): Promise<{ url: string; close: () => void }> {
  const model = createServer((_, res) => res.end("ok"));
  await new Promise<void>((r) => model.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(model.address() as { port: number }).port}`,
    close: () => model.close(),
  };
}

/** Floor vs trial (wall and CPU, ratios) and trials per minute at --parallel 1 and 2. */
export async function bench(): Promise<BenchRow[]> {
  const image = await testImage();
  const model = await modelServer();
  const runner = dockerRunner();
  process.env[SECRET] = "bench-not-a-secret";
  try {
    // Warm-up: image layers in the page cache, the CLI's first start, both paths.
    await trial(runner, image, model.url, -1);
    await trial(runner, image, model.url, -2, true);
    let n = 0;
    const [f, tr, ts] = await interleaved(
      [
        () => floor(image),
        () => trial(runner, image, model.url, n++),
        () => trial(runner, image, model.url, n++, true),
      ],
      ROUNDS,
    );
    const p1 = await perMinute(runner, image, model.url, 1);
    const p2 = await perMinute(runner, image, model.url, 2);
    const row = (name: string, c: Cost, target?: string): BenchRow[] => [
      {
        bench: "docker",
        name,
        value: c.wallMs,
        unit: "ms",
        ratio: c.wallMs / f!.wallMs,
        baseline: "floor",
        target,
      },
      {
        bench: "docker",
        name: `${name}, CPU`,
        value: c.cpuMs,
        unit: "ms CPU",
        ratio: c.cpuMs / f!.cpuMs,
        baseline: "floor CPU",
      },
    ];
    return [
      ...row("floor: 3x docker run --rm --network none IMAGE true", f!),
      ...row(
        "trial via the runner (3 phases attached: docker run -i each, 2 cp out; bridge)",
        tr!,
        "<= 1.3x",
      ),
      ...row("trial, agent with a secret (its phase detached: run, exec unpacks /work, cp out)", ts!),
      {
        bench: "docker",
        name: "runner overhead per trial",
        value: tr!.wallMs - f!.wallMs,
        unit: "ms",
        baseline: "floor",
      },
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
    delete process.env[SECRET];
    model.close();
  }
}

if (import.meta.main) console.log(await bench());

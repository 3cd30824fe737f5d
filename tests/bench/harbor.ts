// The Harbor trial's bench (issue 29): an oracle trial of tests/fixtures/harbor/fix-add through the
// runner (lib/suite/harbor/trial.ts: the agent's container, then pause, diff and commit of it and a
// fresh verifier container from the snapshot) against its floor, the same containers and engine
// operations without Proctor's additions, as a bare sequence of docker CLI calls:
//   run -d (sleep infinity), cp solution/, exec solve.sh, pause, diff, commit, rm -f (in the
//   background, as the runner does it, while the verifier runs), create (the three fresh volumes,
//   --init), cp - (the same tests tar), start -a, cp reward.json and reward.txt out, then rm -f -v
//   and rmi -f (after the result, in the background: the next trial does not wait for them).
// Proctor's additions are the rest: the hardening flags, the image and program look-ups the tamper
// check needs, the container's first command making /logs/agent, the scratch dir, JSON and bookkeeping.
// Both sides run K trials back to back and then wait for their removals, so the background work is
// paid inside the measurement. The task is loaded once, as in a run with repeats: what the runner
// learns of a task's image once per run (its WORKDIR, USER, PATH and programs, for the tamper check:
// three image look-ups and one short container) is a row of its own. Wall and CPU (this process and
// its children, dockerd and containerd, as tests/bench/docker.ts counts them), interleaved rounds,
// medians. Target: trial <= 1.3x the floor.
// Runs alone: `npx bun tests/bench/harbor.ts` (BENCH_HARBOR_ROUNDS, default 5; BENCH_HARBOR_K, 3).
import { dirname, join } from "node:path";
import type { ProcResult } from "../../lib/core/proc.ts";
import { type DockerCall, dockerCli } from "../../lib/isolation/docker/engine.ts";
import { dockerRunner } from "../../lib/isolation/docker/index.ts";
import { resolveBaseImage } from "../../lib/suite/agents/image.ts";
import { builtinContext } from "../../lib/suite/harbor/check.ts";
import { parseImageMap } from "../../lib/suite/harbor/image.ts";
import { type HarborTask, loadHarborTask } from "../../lib/suite/harbor/task.ts";
import { applyHarborOptions, settleHarborRemovals } from "../../lib/suite/harbor/trial.ts";
import { trialImage } from "../../lib/suite/harbor/trial-image.ts";
import { verifierTree } from "../../lib/suite/harbor/verifier.ts";
import { runTrial } from "../../lib/suite/trial.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { type Cost, interleaved, measured } from "./docker.ts";
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_HARBOR_ROUNDS ?? 5);
const K = Number(process.env.BENCH_HARBOR_K ?? 3);
const TASK = join(REPO_ROOT, "tests", "fixtures", "harbor", "fix-add");

async function ok(call: DockerCall, argv: string[], o: Parameters<DockerCall>[1] = {}): Promise<ProcResult> {
  const r = await call(argv, o);
  if (r.exitCode !== 0) throw new Error(`docker ${argv.join(" ")}: ${r.stderr}`);
  return r;
}

/** One trial's engine operations, bare; returns the removals it leaves running. */
async function bareTrial(
  call: DockerCall,
  task: HarborTask,
  image: string,
  n: number,
): Promise<{ left: Promise<unknown> }> {
  const a = `proctor-bench-harbor-a-${process.pid}-${n}`;
  const v = `proctor-bench-harbor-v-${process.pid}-${n}`;
  const snap = `proctor-bench-harbor-snap:${process.pid}-${n}`;
  await ok(call, ["run", "-d", "--network", "none", "--name", a, image, "sleep", "infinity"]);
  await ok(call, ["cp", dirname(task.solution!), `${a}:/solution`]);
  await ok(call, ["exec", "-i", a, "bash", "/solution/solve.sh"], { input: "" });
  await ok(call, ["pause", a]);
  await ok(call, ["diff", a]);
  await ok(call, ["commit", "--pause=false", a, snap]);
  const agentGone = call(["rm", "-f", a]);
  const volumes = ["/tests", "/logs", "/solution"].flatMap((d) => [
    "--mount",
    `type=volume,dst=${d},volume-nocopy`,
  ]);
  await ok(call, [
    "create",
    "--name",
    v,
    "--network",
    "none",
    "--init",
    ...volumes,
    "--entrypoint",
    "/bin/bash",
    snap,
    "/tests/test.sh",
  ]);
  await ok(call, ["cp", "-", `${v}:/`], { input: verifierTree(task.harbor.testsDir, { uid: 0, gid: 0 }) });
  await ok(call, ["start", "-a", v]);
  for (const f of ["reward.json", "reward.txt"]) await call(["cp", `${v}:/logs/verifier/${f}`, "-"]);
  return {
    left: Promise.all([agentGone, call(["rm", "-f", "-v", v]).then(() => call(["rmi", "-f", snap]))]),
  };
}

/** K bare trials back to back, then their removals. */
function bare(call: DockerCall, task: HarborTask, image: string, round: number): Promise<Cost> {
  return measured(async () => {
    const left: Promise<unknown>[] = [];
    for (let k = 0; k < K; k++) left.push((await bareTrial(call, task, image, round * K + k)).left);
    await Promise.all(left);
  });
}

/** K oracle trials through the runner, then its removals. */
function proctor(task: HarborTask, round: number): Promise<Cost> {
  return measured(async () => {
    for (let k = 0; k < K; k++) {
      const t = await runTrial(
        { task, variant: { name: "oracle", harness: "oracle" }, repeat: 0 },
        builtinContext(`bharbor${process.pid}r${round}k${k}`, dockerRunner(), "oracle", "none"),
      );
      if (t.pass !== true) throw new Error(`bench trial failed: ${t.error ?? JSON.stringify(t)}`);
    }
    await settleHarborRemovals();
  });
}

/** Floor vs runner, wall and CPU per trial. */
export async function bench(): Promise<BenchRow[]> {
  const call = dockerCli();
  const imageMap = parseImageMap([`ubuntu:24.04=${await resolveBaseImage(call)}`]);
  const task = loadHarborTask(TASK);
  applyHarborOptions([task], { imageMap });
  // Warm-up: builds (or finds) the task's image, the CLI's first starts, both paths.
  await proctor(task, -1);
  const image = (await trialImage(call, task, imageMap)).image;
  await bare(call, task, image, -1);
  // Once per task and run: a fresh load of the task resolves its image again.
  const fresh = loadHarborTask(TASK);
  applyHarborOptions([fresh], { imageMap });
  const learn = await measured(async () => void (await trialImage(call, fresh, imageMap)));
  let n = 0;
  const [floor, trial] = await interleaved(
    [() => bare(call, task, image, n++), () => proctor(task, n++)],
    ROUNDS,
  );
  const per = (c: Cost): Cost => ({ wallMs: c.wallMs / K, cpuMs: c.cpuMs / K });
  const f = per(floor!);
  const t = per(trial!);
  const floorName = "floor: the same containers and docker calls, bare (per trial)";
  return [
    { bench: "harbor", name: floorName, value: f.wallMs, unit: "ms", ratio: 1, baseline: "itself" },
    {
      bench: "harbor",
      name: "Harbor oracle trial via the runner (agent container, snapshot, verifier container)",
      value: t.wallMs,
      unit: "ms",
      ratio: t.wallMs / f.wallMs,
      baseline: floorName,
      target: "<= 1.3x",
    },
    {
      bench: "harbor",
      name: `${floorName}, CPU`,
      value: f.cpuMs,
      unit: "ms CPU",
      ratio: 1,
      baseline: "itself",
    },
    {
      bench: "harbor",
      name: "Harbor oracle trial via the runner, CPU",
      value: t.cpuMs,
      unit: "ms CPU",
      ratio: t.cpuMs / f.cpuMs,
      baseline: `${floorName}, CPU`,
    },
    {
      bench: "harbor",
      name: "once per task and run: image look-ups and the program listing (tamper check)",
      value: learn.wallMs,
      unit: "ms",
      ratio: learn.wallMs / f.wallMs,
      baseline: floorName,
    },
  ];
}

if (import.meta.main) console.log(await bench());

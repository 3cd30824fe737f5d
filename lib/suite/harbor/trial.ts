// One trial of a Harbor task, as Harbor runs it: ONE container from the task's environment image
// (with the agent CLI layered in, agent-image.ts) for the agent and then the verifier, since the task
// is judged on the container's state (often /app), not on a /work snapshot. The container is hardened
// like every phase container (lib/isolation/docker/engine.ts runArgs): `--network none` with the
// model bridge unless the run opted into `--network bridge` for a task that sets allow_internet.
// It registers itself with lib/suite/trial.ts, so runTrial's frame (log, redaction) is shared.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, messageOf } from "../../core/errors.ts";
import { flagValues } from "../../core/flags.ts";
import type { ProcResult } from "../../core/proc.ts";
import { type ModelBridge, startModelBridge, waitForForwarder } from "../../isolation/docker/bridge.ts";
import { makeScratchDir, runCall } from "../../isolation/docker/cleanup.ts";
import { type DockerCall, dockerCli, runArgs } from "../../isolation/docker/engine.ts";
import type { PhaseResult } from "../../isolation/docker/index.ts";
import { agentInput, parseAgentOutput } from "../agent-phase.ts";
import { isCliHarness } from "../suite.ts";
import { type Recording, registerTaskKind, STAGE, staged, stderrTail, type TaskPhases } from "../trial.ts";
import { agentImage, FORWARDER_COMMAND } from "./agent-image.ts";
import { type ImageMap, parseImageMap, taskImage } from "./image.ts";
import { type HarborTask, isHarborTask } from "./task.ts";
import { DEFAULT_THRESHOLD, execIn, LOG_DIRS, runVerifier } from "./verifier.ts";

/** A run's settings for its Harbor tasks: flags and suite keys that override task.toml. */
export interface HarborRunOptions {
  imageMap: ImageMap;
  /** pass = reward >= threshold (default 1). */
  threshold?: number;
  cpus?: number;
  memory?: string;
  agentTimeoutMs?: number;
  verifierTimeoutMs?: number;
  /** Observer for every docker call (tests count builds). */
  onDockerCall?: (argv: string[]) => void;
}

/** What a task carries once the run's options are applied (applyHarborOptions). */
const runOptions = new WeakMap<HarborTask, HarborRunOptions>();

/** Gives the run's Harbor options to each Harbor task of `tasks` (others are left alone). */
export function applyHarborOptions(tasks: readonly object[], o: HarborRunOptions): void {
  for (const t of tasks)
    if (isHarborTask(t as never)) {
      runOptions.set(t as HarborTask, o);
      trialImages.delete(t as HarborTask);
    }
}

/** The image a Harbor trial runs in, with its WORKDIR and USER as the image sets them ("" unset). */
interface TrialImage {
  image: string;
  dir: string;
  user: string;
}

/**
 * Per task (with its run's options) and agent image: the trial's image, resolved once instead of per
 * trial (the build context hashed again, the base, task and CLI images and the result inspected: three
 * to four docker calls a trial). A failure is not kept: the next trial tries again.
 */
const trialImages = new WeakMap<HarborTask, Map<string, Promise<TrialImage>>>();

function trialImage(
  call: DockerCall,
  task: HarborTask,
  map: ImageMap,
  cliImage?: string,
): Promise<TrialImage> {
  const mine = trialImages.get(task) ?? new Map<string, Promise<TrialImage>>();
  trialImages.set(task, mine);
  const key = cliImage ?? "";
  const known = mine.get(key);
  if (known) return known;
  const resolving = (async () => {
    const built = await taskImage(call, task, map);
    const image = cliImage === undefined ? built.tag : await agentImage(call, built.tag, cliImage);
    const format = "{{.Config.WorkingDir}}|{{.Config.User}}";
    const inspect = await call(["image", "inspect", "--format", format, image]);
    const [dir = "", user = ""] = inspect.stdout.trim().split("|");
    return { image, dir, user };
  })();
  mine.set(key, resolving);
  resolving.catch(() => mine.delete(key));
  return resolving;
}

function toPhase(r: ProcResult): PhaseResult {
  return {
    exitCode: r.timedOut ? null : r.exitCode,
    stdout: r.stdout,
    stderr: r.stderr,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    commandIndex: 0,
  };
}

/** Writes a driver's staged files into a host dir shaped like STAGE, for one `docker cp`. */
function stageDir(scratch: string, files: { path: string; content: string }[]): string {
  const root = join(scratch, "stage");
  for (const f of files) {
    const at = join(root, f.path.slice(STAGE.length));
    mkdirSync(dirname(at), { recursive: true, mode: 0o755 });
    writeFileSync(at, f.content, { mode: 0o644 });
  }
  chmodSync(root, 0o755);
  return root;
}

const harborPhases: TaskPhases = async (job, ctx, trial, fail) => {
  const task = job.task as HarborTask;
  const o: HarborRunOptions = runOptions.get(task) ?? { imageMap: new Map() };
  const c = task.harbor.config;
  if (ctx.runner.layout) return fail("start: Harbor tasks run under Docker only, not --local", "other");
  if (c.allowInternet && ctx.network !== "bridge")
    return fail(
      `refused: task ${task.id} sets allow_internet = true; run with --network bridge to let it reach the internet`,
      "other",
    );
  if (job.variant.harness === "oracle" && task.solution === undefined)
    return fail(`oracle: Harbor task ${task.id} has no solution/solve.sh`, "other");
  const call: DockerCall = runCall(ctx.runId, dockerCli("docker", o.onDockerCall));
  let resolved: TrialImage;
  try {
    const cli = isCliHarness(job.variant.harness) ? ctx.image : undefined;
    resolved = await trialImage(call, task, o.imageMap, cli);
  } catch (error) {
    return fail(`build: ${messageOf(error)}`, "image");
  }
  // The agent works where the image says and, unless task.toml names a user, as the image's USER
  // (root when it sets none), as Harbor runs it.
  const { image, dir, user: imageUser } = resolved;
  const workdir = dir || "/";
  const user = c.agentUser ?? (imageUser || "0");
  await withContainer(call, ctx, task, image, { ...o, user }, async (name, scratch, bridged) => {
    const mk = await call(
      execIn(name, { workdir: "/", user: "0", env: [] }, [
        "sh",
        "-c",
        `mkdir -p ${LOG_DIRS.join(" ")} && chmod 777 ${LOG_DIRS.join(" ")}`,
      ]),
    );
    if (mk.exitCode !== 0) return fail(`start: cannot make /logs: ${stderrTail(mk.stderr)}`, "start");
    const inv = ctx.driver.command(agentInput(job, ctx, { home: ctx.home, work: workdir }));
    const s = staged(inv, STAGE);
    if (s.files.length > 0) {
      const cp = await call(["cp", stageDir(scratch, s.files), `${name}:${STAGE}`], { timeoutMs: 120_000 });
      if (cp.exitCode !== 0) return fail(`copy: ${stderrTail(cp.stderr)}`, "copy");
    }
    // --pass-env names and the driver's key, by name: their values come from the docker client's env.
    const secrets = [...new Set([...ctx.passEnv, ...Object.values(inv.secretEnv)])].filter(
      (n) => process.env[n] !== undefined,
    );
    const solutionEnv = job.variant.harness === "oracle" ? c.solutionEnv : {};
    const env = { ...inv.env, ...(bridged ? { PROCTOR_MODEL_URL: ctx.agentModelUrl } : {}) };
    const timeoutMs = o.agentTimeoutMs ?? c.agentTimeoutMs;
    const exec = execIn(
      name,
      { workdir, user, env: [...secrets, ...Object.keys(solutionEnv)], vars: env },
      bridged ? waitForForwarder(s.argv) : s.argv,
    );
    const r = await call(exec, {
      env: { ...(process.env as Record<string, string>), ...solutionEnv },
      input: inv.stdin ?? "",
      timeoutMs,
    });
    ctx.record("agent", toPhase(r));
    trial.wallMs = Math.round(r.durationMs);
    if (r.timedOut) {
      fail(`agent: timed out after ${timeoutMs / 1000}s`);
      // What ran past its time is stopped; the verifier still judges the state it left, as in Harbor.
      await call(["restart", "-t", "0", name], { timeoutMs: 120_000 });
    } else if (r.exitCode !== 0) fail(`agent exit ${r.exitCode ?? -1}: ${stderrTail(r.stderr)}`);
    parseAgentOutput(ctx, trial, r, fail);
    const vTimeout = o.verifierTimeoutMs ?? c.verifierTimeoutMs;
    const v = await runVerifier(call, name, task, { workdir, timeoutMs: vTimeout });
    ctx.record("verifier", toPhase(v.run));
    if (v.infraError) return fail(`check: ${v.infraError}`, "copy");
    if (!v.reward.ok) return fail(`check: ${v.reward.why}`);
    trial.reward = v.reward.reward;
    if (v.reward.rewards) trial.rewards = v.reward.rewards;
    // The reward alone decides, as the check's exit does for a task.yaml task (an agent that erred
    // but left the task solved passes; its error stays on the trial).
    trial.pass = v.reward.reward >= (o.threshold ?? DEFAULT_THRESHOLD);
  }).catch((error) => fail(`start: ${messageOf(error)}`, "start"));
};

/** Runs `body` in a fresh hardened container of `image` (bridged to the model for CLI harnesses), then removes it. */
async function withContainer(
  call: DockerCall,
  ctx: Recording,
  task: HarborTask,
  image: string,
  o: HarborRunOptions & { user: string },
  body: (name: string, scratch: string, bridged: boolean) => Promise<void>,
): Promise<void> {
  const c = task.harbor.config;
  const scratch = makeScratchDir(ctx.runId);
  const name = `proctor-harbor-${ctx.runId.slice(-12)}-${Math.random().toString(16).slice(2, 10)}`;
  let bridge: ModelBridge | undefined;
  try {
    const bridged = isCliHarness(ctx.driver.harness);
    if (bridged) bridge = await startModelBridge(scratch, ctx.modelUrl);
    const args = runArgs(
      {
        runId: ctx.runId,
        image,
        phase: "agent",
        argv: [],
        timeoutMs: 0,
        network: ctx.network,
        limits: {
          cpus: o.cpus ?? c.cpus,
          memory: o.memory ?? `${c.memoryMb}m`,
          pids: ctx.limits?.pids ?? 512,
        },
        user: o.user,
      },
      name,
      {
        user: "0",
        ...(bridge ? { bridgeDir: bridge.dir } : {}),
        command: bridge ? FORWARDER_COMMAND : ["sleep", "infinity"],
      },
    );
    // The task image's own WORKDIR stays the container's (runArgs sets /work for the suite's phases).
    args.splice(args.indexOf("-w"), 2);
    const start = await call(args, { timeoutMs: 120_000 });
    if (start.exitCode !== 0) throw new Error(stderrTail(start.stderr));
    await body(name, scratch, bridge !== undefined);
  } finally {
    await call(["rm", "-f", name], { timeoutMs: 120_000 });
    await bridge?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

registerTaskKind("harbor", harborPhases);

/**
 * Gives a suite run's Harbor tasks their options (--image-map, the suite's reward_threshold and
 * timeouts, --cpus and --memory when given) and names the tasks that will reach the internet (allow_internet under
 * --network bridge), for the scorecard. A bad --image-map is a ToolError naming it; a Harbor task
 * under --local (`local`) or an allow_internet task without --network bridge a ConfigError.
 */
export function prepareHarbor(
  tasks: readonly object[],
  o: Omit<HarborRunOptions, "imageMap" | "onDockerCall"> & {
    imageMap: unknown;
    network: "none" | "bridge";
    local?: boolean;
  },
): { internet: string[] } {
  const harbor = tasks.filter((t) => isHarborTask(t as never)) as HarborTask[];
  // Refused up front: its environment image, agent and verifier need a container, so under --local
  // every trial of it would only be an infrastructure failure.
  if (o.local === true && harbor.length > 0)
    throw new ConfigError(
      `Cannot run Harbor task "${harbor[0]!.path}" with --local: Harbor tasks need Docker (environment image, agent and verifier in one container); run without --local`,
    );
  applyHarborOptions(harbor, {
    imageMap: parseImageMap(flagValues(o.imageMap)),
    ...(o.threshold !== undefined ? { threshold: o.threshold } : {}),
    ...(o.cpus !== undefined ? { cpus: o.cpus } : {}),
    ...(o.memory !== undefined ? { memory: o.memory } : {}),
    ...(o.agentTimeoutMs !== undefined ? { agentTimeoutMs: o.agentTimeoutMs } : {}),
    ...(o.verifierTimeoutMs !== undefined ? { verifierTimeoutMs: o.verifierTimeoutMs } : {}),
  });
  const internet = harbor.filter((t) => t.harbor.config.allowInternet);
  // Refused before any trial: a run whose every trial is refused would score nothing.
  if (internet.length > 0 && o.network !== "bridge")
    throw new ConfigError(
      `Cannot run Harbor task "${internet[0]!.path}": it sets allow_internet = true; run with --network bridge to let it reach the internet`,
    );
  return { internet: internet.map((t) => t.id) };
}

// One trial of a Harbor task: the agent works in a container of the task's environment image (with
// the agent CLI layered in, agent-image.ts), and the task is judged on that container's state (often
// /app), not on a /work snapshot, as Harbor judges it. Unlike Harbor, the agent cannot grade itself:
// once it ends, the model bridge is closed, its container frozen, listed and committed (snapshot.ts),
// and the verifier runs in a fresh container from that snapshot (verifier.ts) with fresh /tests, /logs
// and /solution. What the agent changed that the verifier relies on makes the trial `tampered`
// (tamper.ts): a fail, counted apart. Containers are hardened (engine.ts runArgs) with the task
// capabilities (TASK_CAPS); the agent runs with `--network none` and the model bridge unless the task
// sets allow_internet and the run passed `--network bridge`; the verifier gets the run's --network.
// It registers itself with lib/suite/trial.ts, so runTrial's frame (log, redaction) is shared. What the
// trial removes once its result is known (the frozen agent container, the exited verifier, then the
// snapshot) goes in the background: the next trial does not wait for the engine to delete them, and
// every call is the run's (runCall), so a signal still waits for them and sweeps by label.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, messageOf } from "../../core/errors.ts";
import { flagValues } from "../../core/flags.ts";
import type { ProcResult } from "../../core/proc.ts";
import { type ModelBridge, startModelBridge, waitForForwarder } from "../../isolation/docker/bridge.ts";
import { makeScratchDir, runCall } from "../../isolation/docker/cleanup.ts";
import { type DockerCall, dockerCli, runArgs, TASK_CAPS } from "../../isolation/docker/engine.ts";
import type { PhaseResult } from "../../isolation/docker/index.ts";
import { agentInput, parseAgentOutput } from "../agent-phase.ts";
import { type BridgedKey, bridgedKey } from "../agents/key.ts";
import { isCliHarness } from "../suite.ts";
import { type Recording, registerTaskKind, STAGE, staged, stderrTail, type TaskPhases } from "../trial.ts";
import { FORWARDER_COMMAND } from "./agent-image.ts";
import { type ImageMap, parseImageMap } from "./image.ts";
import { dropSnapshot, snapshotAgent } from "./snapshot.ts";
import { tamperedPaths, testCommands } from "./tamper.ts";
import { type HarborTask, isHarborTask } from "./task.ts";
import { forgetTrialImages, type TrialImage, trialImage } from "./trial-image.ts";
import {
  AGENT_LOG_DIR,
  DEFAULT_THRESHOLD,
  runVerifier,
  type VerifierUser,
  verifierUser,
} from "./verifier.ts";

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

/** Removals trials left running (each settles itself; a signal's sweep waits for them as run calls). */
const removals = new Set<Promise<unknown>>();

function inBackground(p: Promise<unknown>): void {
  removals.add(p);
  const done = () => removals.delete(p);
  void p.then(done, done);
}

/** Waits until every removal Harbor trials left running has ended (a bench, a test counting what is left). */
export async function settleHarborRemovals(): Promise<void> {
  while (removals.size > 0) await Promise.allSettled([...removals]);
}

/** What a task carries once the run's options are applied (applyHarborOptions). */
const runOptions = new WeakMap<HarborTask, HarborRunOptions>();

/** Gives the run's Harbor options to each Harbor task of `tasks` (others are left alone). */
export function applyHarborOptions(tasks: readonly object[], o: HarborRunOptions): void {
  for (const t of tasks)
    if (isHarborTask(t as never)) {
      runOptions.set(t as HarborTask, o);
      forgetTrialImages(t as HarborTask);
    }
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

/**
 * docker exec argv with a workdir and a user; `env` values come from the client's environment by
 * name, `vars` (non-secret: they show in inspect) are given as NAME=value after them.
 */
export function execIn(
  container: string,
  o: { workdir: string; user: string; env: string[]; vars?: Record<string, string> },
  argv: string[],
) {
  return [
    "exec",
    "-i",
    "-w",
    o.workdir,
    "-u",
    o.user,
    ...o.env.flatMap((k) => ["-e", k]),
    ...Object.entries(o.vars ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    container,
    ...argv,
  ];
}

/** Where the oracle finds the task's solution/ (Harbor's path), uploaded whole into the agent's container. */
export const SOLUTION_DIR = "/solution";
/** The oracle's command, as Harbor's oracle runs it: bash, so a solve.sh without a shebang works. */
export const ORACLE_ARGV = ["bash", `${SOLUTION_DIR}/solve.sh`];

/** Whether the trial's agent talks to a model through the bridge: a CLI, or a command agent given a model URL. */
function bridgedTo(job: Parameters<TaskPhases>[0], ctx: Recording): boolean {
  const h = job.variant.harness;
  return isCliHarness(h) || (h === "command" && ctx.modelUrl !== "");
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
  const oracle = job.variant.harness === "oracle";
  if (oracle && task.solution === undefined)
    return fail(`oracle: Harbor task ${task.id} has no solution/solve.sh`, "other");
  const call: DockerCall = runCall(ctx.runId, dockerCli("docker", o.onDockerCall));
  let img: TrialImage;
  try {
    const cli = isCliHarness(job.variant.harness);
    const layer = cli || bridgedTo(job, ctx) ? { image: ctx.image, cli } : undefined;
    img = await trialImage(call, task, o.imageMap, layer);
  } catch (error) {
    return fail(`build: ${messageOf(error)}`, "image");
  }
  // The agent works where the image says and, unless task.toml names a user, as the image's USER
  // (root when it sets none), as Harbor runs it; the verifier likewise with [verifier] user.
  // task.toml's [environment] workdir over the image's WORKDIR, as Harbor reads it.
  const workdir = c.workdir ?? (img.dir || "/");
  const user = c.agentUser ?? (img.user || "0");
  const verifierAs = c.verifierUser ?? (img.user || "0");
  const limits = {
    cpus: o.cpus ?? c.cpus,
    memory: o.memory ?? `${c.memoryMb}m`,
    pids: ctx.limits?.pids ?? 512,
  };
  const scratch = makeScratchDir(ctx.runId);
  const name = `proctor-harbor-${ctx.runId.slice(-12)}-${Math.random().toString(16).slice(2, 10)}`;
  let snapshot: string | undefined;
  let gone: Promise<unknown>[] = [];
  try {
    const timeoutMs = o.agentTimeoutMs ?? c.agentTimeoutMs;
    const agent = await agentPhase(call, {
      job,
      ctx,
      task,
      img,
      workdir,
      user,
      verifierAs,
      limits,
      timeoutMs,
      scratch,
      name,
      trial,
      fail,
    });
    if (agent === undefined) return;
    snapshot = agent.image;
    gone = [agent.agentGone];
    trial.wallMs = Math.round(agent.wallMs);
    const tampered = tamperedPaths(agent.changes, {
      workdir,
      pathDirs: img.path.split(":"),
      commands: testCommands(verifierScripts(task)),
      ...(img.programs ? { programs: img.programs } : {}),
      namedUser: !/^\d+(:\d+)?$/.test(verifierAs) && verifierAs !== "root",
      runnerMade: [AGENT_LOG_DIR, ...(oracle ? [SOLUTION_DIR] : [])],
    });
    if (agent.owner === null)
      return fail(`check: the verifier's user "${verifierAs}" is not in the image's /etc/passwd`);
    const v = await runVerifier(call, task, {
      runId: ctx.runId,
      snapshot,
      name: `${name}-verifier`,
      scratch,
      workdir,
      owner: agent.owner,
      path: img.path,
      network: ctx.network,
      limits,
      timeoutMs: o.verifierTimeoutMs ?? c.verifierTimeoutMs,
      removal: (p) => gone.push(p),
    });
    ctx.record("verifier", toPhase(v.run));
    if (tampered.length > 0) {
      // Whatever the verifier said: a grade the agent could have bent is not evidence.
      trial.tampered = tampered;
      fail(
        `tampered: the agent changed what the verifier relies on: ${tampered.slice(0, 3).join("; ")}${tampered.length > 3 ? `; and ${tampered.length - 3} more` : ""}`,
      );
    }
    if (v.infraError) return fail(`check: ${v.infraError}`, "copy");
    if (!v.reward.ok) return fail(`check: ${v.reward.why}`);
    trial.reward = v.reward.reward;
    if (v.reward.rewards) trial.rewards = v.reward.rewards;
    // The reward alone decides, as the check's exit does for a task.yaml task (an agent that erred
    // but left the task solved passes; its error stays on the trial); a tampered trial never passes.
    trial.pass = tampered.length === 0 && v.reward.reward >= (o.threshold ?? DEFAULT_THRESHOLD);
  } catch (error) {
    fail(`start: ${messageOf(error)}`, "start");
  } finally {
    // A snapshot removes the agent's container itself; one that never got there is removed here.
    if (snapshot === undefined) await call(["rm", "-f", name], { timeoutMs: 120_000 });
    else {
      // The snapshot goes once no container uses it: after the verifier's (and the agent's) removal.
      const image = snapshot;
      inBackground(Promise.allSettled(gone).then(() => dropSnapshot(call, image)));
    }
    rmSync(scratch, { recursive: true, force: true });
  }
};

/** The text of the task's verifier scripts (test.sh and the shell scripts beside it), for testCommands. */
function verifierScripts(task: HarborTask): string {
  const dir = task.harbor.testsDir;
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".sh"))
      .map((f) => {
        const path = join(dir, f);
        return lstatSync(path).isFile() ? readFileSync(path, "utf8") : "";
      })
      .join("\n");
  } catch {
    return "";
  }
}

interface AgentRun {
  job: Parameters<TaskPhases>[0];
  ctx: Recording;
  task: HarborTask;
  img: TrialImage;
  workdir: string;
  user: string;
  /** The verifier's user as task.toml or the image names it. */
  verifierAs: string;
  limits: { cpus: number; memory: string; pids: number };
  timeoutMs: number;
  scratch: string;
  name: string;
  trial: Parameters<TaskPhases>[2];
  fail: Parameters<TaskPhases>[3];
}

/**
 * The agent's container: started hardened (bridged to the model for a CLI harness), /logs/agent made,
 * the oracle's solution/ or the driver's files copied in, the agent run; then the bridge closed and
 * the container snapshotted and removed. undefined when the trial already failed outside the agent.
 */
async function agentPhase(call: DockerCall, a: AgentRun) {
  const { job, ctx, task, img, workdir, user, scratch, name, trial, fail } = a;
  const c = task.harbor.config;
  const oracle = job.variant.harness === "oracle";
  // The agent reaches the internet only when the task asks for it and the run allows it.
  const network = c.allowInternet && ctx.network === "bridge" ? "bridge" : "none";
  const inv = oracle
    ? undefined
    : ctx.driver.command(agentInput(job, ctx, { home: ctx.home, work: workdir }));
  // The model key stays on the host: the CLI gets a placeholder, the bridge puts the real one on.
  let key: BridgedKey | undefined;
  try {
    // The oracle has no command of its own, but --pass-env names still reach it.
    key = bridgedKey(ctx.driver, inv ?? { env: {}, secretEnv: {} }, ctx.passEnv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return void fail(`agent: ${error.message}`, "other");
  }
  let bridge: ModelBridge | undefined;
  try {
    if (bridgedTo(job, ctx))
      bridge = await startModelBridge(scratch, ctx.modelUrl, {
        ...(key?.credential ? { credential: key.credential } : {}),
        // The bridge is the trial's meter (meter/), as for task.yaml trials.
        ...(ctx.witness ? { onExchange: ctx.witness.meter.observer() } : {}),
      });
    // /logs/agent is made by the container's first process (the task image's shell, before any agent).
    const first = bridge ? FORWARDER_COMMAND : ["sleep", "infinity"];
    const args = runArgs(
      {
        runId: ctx.runId,
        image: img.image,
        phase: "agent",
        argv: [],
        timeoutMs: 0,
        network,
        limits: a.limits,
        // The container's own first process is root's (it makes /logs/agent); the agent execs as `user`.
        user: "0",
      },
      name,
      {
        user: "0",
        ...(bridge ? { bridgeDir: bridge.dir } : {}),
        command: [
          "sh",
          "-c",
          `mkdir -p ${AGENT_LOG_DIR} && chmod 777 ${AGENT_LOG_DIR} && exec "$@"`,
          "sh",
          ...first,
        ],
        caps: TASK_CAPS,
        keep: true,
      },
    );
    // The task image's own WORKDIR stays the container's (runArgs sets /work for the suite's phases).
    args.splice(args.indexOf("-w"), 2);
    const start = await call(args, { timeoutMs: 120_000 });
    if (start.exitCode !== 0) throw new Error(stderrTail(start.stderr));
    const s = inv ? staged(inv, STAGE) : { argv: ORACLE_ARGV, files: [] };
    if (oracle) {
      const cp = await call(["cp", dirname(task.solution!), `${name}:${SOLUTION_DIR}`], {
        timeoutMs: 120_000,
      });
      if (cp.exitCode !== 0) return void fail(`copy: ${stderrTail(cp.stderr)}`, "copy");
    } else if (s.files.length > 0) {
      const cp = await call(["cp", stageDir(scratch, s.files), `${name}:${STAGE}`], { timeoutMs: 120_000 });
      if (cp.exitCode !== 0) return void fail(`copy: ${stderrTail(cp.stderr)}`, "copy");
    }
    // --pass-env names by name (their values from the docker client's env); never the model key.
    // The task's environment env (host-resolved, by name: values never in argv) under the solution's.
    const solutionEnv = { ...c.environmentEnv, ...(oracle ? c.solutionEnv : {}) };
    const env = {
      ...(key?.env ?? inv?.env ?? {}),
      ...(bridge ? { PROCTOR_MODEL_URL: ctx.agentModelUrl } : {}),
    };
    const timeoutMs = a.timeoutMs;
    const exec = execIn(
      name,
      { workdir, user, env: [...(key?.secretEnvNames ?? []), ...Object.keys(solutionEnv)], vars: env },
      bridge ? waitForForwarder(s.argv) : s.argv,
    );
    const r = await call(exec, {
      env: { ...(process.env as Record<string, string>), ...solutionEnv },
      input: inv?.stdin ?? "",
      timeoutMs,
    });
    ctx.record("agent", toPhase(r));
    // What ran past its time is frozen with the rest; the verifier judges the state it left, as in Harbor.
    if (r.timedOut) fail(`agent: timed out after ${timeoutMs / 1000}s`);
    else if (r.exitCode !== 0) fail(`agent exit ${r.exitCode ?? -1}: ${stderrTail(r.stderr)}`);
    parseAgentOutput(ctx, trial, r, fail);
    // Before anything is judged, the model is out of reach: no verifier-time process talks to it.
    await bridge?.close();
    bridge = undefined;
    let owner: VerifierUser | null = null;
    const snap = await snapshotAgent(call, ctx.runId, name, async (frozen) => {
      owner = await verifierUser(call, frozen, a.verifierAs, scratch);
    });
    return { ...snap, owner: owner as VerifierUser | null, wallMs: r.durationMs };
  } finally {
    await bridge?.close();
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

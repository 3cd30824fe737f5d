// The Docker runner: each phase of a trial in a fresh, hardened container from the variant's image,
// with only /work carried between phases as a tar snapshot on the host (a sparse file as a PAX sparse
// member, holes kept; capped by maxWorkBytes: _sparse.ts). A one-command phase without
// secrets runs attached (_attach.ts: one `docker run -i` with /work on stdin, cp out, rm); the others keep
// the original's verbs (originals 6.4: run, exec..., cp out, rm) with /work riding the first exec's
// stdin, or a `docker cp` in where the user's own tar cannot unpack it. Secrets (--pass-env) reach only the agent
// exec, by name, from the docker client's own environment; the agent reaches only its model endpoint, through lib/isolation/docker/bridge.ts,
// which puts the model key on its requests: the key itself never enters a container. It does not
// build images (lib/isolation/docker/image.ts) nor decide what a failure means for the trial (the suite).

import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf, ToolError } from "../../core/errors.ts";
import { run } from "../../core/proc.ts";
import type { DockerRunnerOptions, PhaseResult, PhaseRunner, PhaseSpec, Workspace } from "../contract.ts";
import {
  attachable,
  commandStderr,
  phaseCommand,
  START_ALLOWANCE_MS,
  UNPACK_FAILED,
  UNPACK_MARK,
  unpackable,
  unpackThen,
} from "./_attach.ts";
import {
  type Box,
  carry,
  container,
  copyOut,
  DEFAULT_MAX_WORK_BYTES,
  INFRA_TIMEOUT_MS,
  ownerOf,
  result,
  snapshot,
  startError,
} from "./_box.ts";
import { phaseInput } from "./_tar.ts";
import { forwarderCommand, type ModelBridge, startModelBridge, waitForForwarder } from "./bridge.ts";
import { isStopping, makeScratchDir, runCall, track } from "./cleanup.ts";
import {
  BRIDGE_MOUNT,
  checkEngine,
  checkRunId,
  type DockerCall,
  dockerCli,
  execArgs,
  runArgs,
  tail,
} from "./engine.ts";

export type { DockerRunnerOptions, PhaseResult, PhaseRunner, PhaseSpec, Workspace } from "../contract.ts";
export { DEFAULT_MAX_WORK_BYTES } from "./_box.ts";
export { installSignalCleanup, removeRunResources, stopRun } from "./cleanup.ts";
export { checkEngine } from "./engine.ts";

/** Each workspace's /work cap (its runner's maxWorkBytes). */
const work = new WeakMap<Workspace, number>();

/** Container removals still running, per workspace. */
const removals = new WeakMap<Workspace, Set<Promise<unknown>>>();
function pending(ws: Workspace): Set<Promise<unknown>> {
  let s = removals.get(ws);
  if (!s) {
    s = new Set();
    removals.set(ws, s);
  }
  return s;
}

/** A PhaseRunner on the local Docker engine via the `docker` CLI. */
export function dockerRunner(opts: DockerRunnerOptions = {}): PhaseRunner {
  const call = dockerCli(opts.docker, opts.onDockerCall);
  const user = opts.user ?? "1000:1000";
  const root = opts.scratchRoot ?? tmpdir();
  const maxWork = opts.maxWorkBytes ?? DEFAULT_MAX_WORK_BYTES;
  let engine: Promise<void> | undefined;
  return {
    async prepare(runId, repoDir) {
      checkRunId(runId);
      engine ??= checkEngine(call);
      await engine;
      const dir = makeScratchDir(runId, root);
      const ws: Workspace = { runId, dir };
      const src = repoDir ?? join(dir, "empty");
      if (!repoDir) mkdirSync(src);
      const [uid = "1000", gid = uid] = user.split(":");
      // Owned by the run user; symlinks stay links (transform S: targets untouched); members become work/...
      // Through the same carry as a copy out: sparse files keep their holes, the whole is capped.
      // Tracked: a signal's sweep waits for this write into the scratch dir before removing it.
      const args = [`--owner=${uid}`, `--group=${gid}`, "--numeric-owner", "--transform", "s,^\\.,work,S"];
      const why = await carry(snapshot(ws), maxWork, (onStdout) =>
        track(runId, run(["tar", "-C", src, ...args, "-cf", "-", "."], { onStdout })),
      );
      if (why !== undefined) {
        rmSync(dir, { recursive: true, force: true });
        throw new ToolError(`Cannot snapshot repo "${repoDir}": ${why}`, 1);
      }
      work.set(ws, maxWork);
      return ws;
    },
    // Every call of a phase is the run's: tracked, and refused once a signal is stopping the run.
    async runPhase(ws, spec) {
      const r = await runPhase(runCall(ws.runId, call), user, ws, spec);
      // A phase cut short by a signal (its container removed under it) says nothing about the agent,
      // and whatever broke on the way (a copy out of a removed container) was the cancelling.
      if (!isStopping(ws.runId)) return r;
      const why = r.infraError ? ` (${r.infraError})` : "";
      return { ...r, infraError: `cancelled: the run is stopping${why}` };
    },
    async dispose(ws) {
      await Promise.all(pending(ws));
      removals.delete(ws);
      rmSync(ws.dir, { recursive: true, force: true });
    },
  };
}

async function runPhase(
  call: DockerCall,
  user: string,
  ws: Workspace,
  spec: PhaseSpec,
): Promise<PhaseResult> {
  const started = performance.now();
  if (spec.runId !== ws.runId)
    throw new ToolError(`Phase run id "${spec.runId}" does not own workspace of run "${ws.runId}"`, 1);
  if (spec.phase !== "agent" && (spec.secretEnvNames?.length || spec.model))
    throw new ToolError(`Secrets and the model bridge are for the agent phase only, not "${spec.phase}"`, 1);
  let bridge: ModelBridge | undefined;
  try {
    if (spec.model)
      bridge = await startModelBridge(ws.dir, spec.model.url, {
        ...(spec.model.credential ? { credential: spec.model.credential } : {}),
        ...(spec.model.onExchange ? { onExchange: spec.model.onExchange } : {}),
      });
    const box: Box = { call, user, ws, spec, bridge, started, maxWork: work.get(ws) };
    if (attachable(spec, user)) {
      const r = await attached(box);
      // Its tar could not unpack /work: the engine copies it in (a folded exec would fail alike).
      if (r !== UNPACK_FAILED) return r;
      return await detached(box, false);
    }
    return await detached(box, true);
  } catch (error) {
    if (error instanceof ToolError && /Cannot run/.test(error.message)) throw error;
    return result({ durationMs: performance.now() - started, infraError: messageOf(error) });
  } finally {
    await bridge?.close();
  }
}

/**
 * A phase as its container's own process: one attached `docker run -i` (no cp in, no exec) whose stdin
 * carries /work in; the container's exit is the command's, /work is copied out of the exited container
 * (a check's changes are never carried: its container goes with `--rm`). Returns UNPACK_FAILED when the
 * image's /work is not the user's to write (the caller runs it detached).
 */
async function attached(box: Box): Promise<PhaseResult | typeof UNPACK_FAILED> {
  const { call, user, ws, spec, bridge } = box;
  const { name, remove } = container(box);
  const input = phaseInput(snapshot(ws), ws.dir, spec.files ?? [], ownerOf(user), spec.stdin);
  const discard = spec.phase === "check";
  let gone = false;
  try {
    const env = { ...spec.env, ...(bridge ? { PROCTOR_MODEL_URL: bridge.innerUrl } : {}) };
    const command = phaseCommand(
      input.tarBytes,
      spec.commands?.[0] ?? spec.argv,
      bridge !== undefined,
      input.sparse,
    );
    const args = runArgs(spec, name, { user, bridgeDir: bridge?.dir, command, attach: true, discard, env });
    const r = await call(args, { stdinFile: input.path, timeoutMs: spec.timeoutMs + START_ALLOWANCE_MS });
    const { started, stderr } = commandStderr(r.stderr);
    // With --rm the client returns once the engine removed the container its command ran in.
    gone = discard && started && !r.timedOut;
    if (r.timedOut) {
      // What ran past its time may still be writing: the container goes, /work stays as it was. Its
      // client was killed, perhaps before the engine had made the container: removed once it exists.
      await remove({ late: true });
      return result({ stdout: r.stdout, stderr, timedOut: true, durationMs: r.durationMs });
    }
    if (!started) {
      if (r.exitCode === 125 && stderr.trimEnd().endsWith(UNPACK_MARK)) return UNPACK_FAILED;
      // The engine's refusal (no image, a create or start refused), never the command's exit: the
      // command never started, and what it prints comes after the mark, so it cannot fake this.
      return result({
        durationMs: performance.now() - box.started,
        infraError: startError(stderr, spec.image),
      });
    }
    const last = result({ exitCode: r.exitCode, stdout: r.stdout, stderr, durationMs: r.durationMs });
    const failed = discard ? undefined : await copyOut(box, name);
    return failed ? { ...last, infraError: failed } : last;
  } finally {
    if (!gone) pending(ws).add(remove().catch(() => undefined));
    if (input.copy) rmSync(input.path, { force: true });
  }
}

/**
 * The original's verbs: `run -d` (sleep, or the forwarder), /work and the files in, an exec per
 * command, `cp` /work out. For several commands and secrets (only an exec takes them by name), with
 * /work riding the first exec's stdin when its tar can unpack it (`fold`), else a `docker cp` in
 * (files the user may not write, and after an attached phase could not unpack).
 */
async function detached(box: Box, fold: boolean): Promise<PhaseResult> {
  const { call, user, ws, spec, bridge } = box;
  const elapsed = () => performance.now() - box.started;
  const { name, remove } = container(box);
  let folded = fold && unpackable(spec, user);
  const inbound = phaseInput(
    snapshot(ws),
    ws.dir,
    spec.files ?? [],
    ownerOf(spec.user ?? user),
    folded ? spec.stdin : "",
  );
  // /work and the phase's files in one copy: each `docker cp` is a round trip through the engine.
  const copyIn = async () => {
    const r = await call(["cp", "-", `${name}:/`], { stdinFile: inbound.path, timeoutMs: INFRA_TIMEOUT_MS });
    return r.exitCode === 0
      ? undefined
      : result({ durationMs: elapsed(), infraError: `copy in: ${tail(r.stderr)}` });
  };
  const env = { ...spec.env, ...(bridge ? { PROCTOR_MODEL_URL: bridge.innerUrl } : {}) };
  const exec = (argv: string[], unpacking: boolean) =>
    call(
      execArgs(
        name,
        unpacking ? unpackThen(inbound.tarBytes, argv, inbound.sparse) : argv,
        env,
        spec.secretEnvNames ?? [],
      ),
      unpacking
        ? { stdinFile: inbound.path, timeoutMs: spec.timeoutMs }
        : { input: spec.stdin ?? "", timeoutMs: spec.timeoutMs },
    );
  try {
    const command = bridge ? forwarderCommand(BRIDGE_MOUNT) : ["sleep", "infinity"];
    const start = await call(runArgs(spec, name, { user, bridgeDir: bridge?.dir, command }), {
      timeoutMs: INFRA_TIMEOUT_MS,
    });
    if (start.exitCode !== 0)
      return result({ durationMs: elapsed(), infraError: startError(start.stderr, spec.image) });
    const refused = folded ? undefined : await copyIn();
    if (refused) return refused;
    let last = result({ durationMs: 0 });
    for (const [i, raw] of (spec.commands ?? [spec.argv]).entries()) {
      const argv = bridge ? waitForForwarder(raw) : raw;
      let r = await exec(argv, folded && i === 0);
      if (folded && i === 0 && r.exitCode === 125 && r.stderr.trimEnd().endsWith(UNPACK_MARK)) {
        // The image's /work is not the user's to write: the engine copies it in, the command runs as usual.
        folded = false;
        const failed = await copyIn();
        if (failed) return failed;
        r = await exec(argv, false);
      }
      last = result({
        exitCode: r.timedOut ? null : r.exitCode,
        stdout: r.stdout,
        stderr: r.stderr,
        timedOut: r.timedOut,
        durationMs: r.durationMs,
        commandIndex: i,
      });
      if (r.timedOut) {
        // What ran past its time may still be writing: the container goes, /work stays as it was.
        await remove();
        return last;
      }
      if (r.exitCode !== 0) break;
    }
    const failed = spec.phase === "check" ? undefined : await copyOut(box, name);
    return failed ? { ...last, infraError: failed } : last;
  } finally {
    // Removal is off the critical path: the next phase starts while this container goes; dispose()
    // and the signal hook wait for it, and the label sweep catches anything still left.
    pending(ws).add(remove().catch(() => undefined));
    if (inbound.copy) rmSync(inbound.path, { force: true });
  }
}

// What a run owns and how it goes: containers and networks labelled `proctor.run=<runId>`, scratch dirs
// `proctor-docker.<runId>.<random>`; removal matches that label and prefix exactly, never another run's.
// Every docker call and scratch write of a run is tracked, so a signal can refuse new ones, let those in
// flight settle (a killed `docker run` client does not stop the engine creating its container) and sweep
// until nothing is left. The signal hook ends the process through lib/core/signals.ts (130/143).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ToolError } from "../../core/errors.ts";
import type { ProcResult } from "../../core/proc.ts";
import { exitOnSignal } from "../../core/signals.ts";
import { ATTACHED_RUN, checkRunId, type DockerCall, dockerCli, RUN_LABEL } from "./engine.ts";

const PREFIX = "proctor-docker.";
/** A `docker run -d` in flight is waited for this long before the first sweep (it normally takes ~1 s). */
const START_GRACE_MS = 60_000;
/** The verb an attached phase's `docker run -i` is tracked by: it lasts the whole phase, so never waited for. */
const ATTACHED = "run -i";
/** Once the containers are gone, execs and copies return at once; this bounds a stuck client. */
const SETTLE_MS = 30_000;
/** The sweep ends after two empty listings in a row, this far apart, or after this many rounds. */
const SWEEP_PAUSE_MS = 250;
const SWEEP_ROUNDS = 40;

/** Per run: closing (a signal came) and the docker calls and scratch writes still in flight, by verb. */
interface RunState {
  closing: boolean;
  inflight: Map<Promise<unknown>, string>;
}
const runs = new Map<string, RunState>();

function stateOf(runId: string): RunState {
  let s = runs.get(runId);
  if (!s) {
    s = { closing: false, inflight: new Map() };
    runs.set(runId, s);
  }
  return s;
}

/** Whether a signal is stopping `runId` (its phases' results are then cut short, not the agent's). */
export function isStopping(runId: string): boolean {
  return runs.get(runId)?.closing === true;
}

/** Tracks work of `runId` (a docker call, a tar into its scratch dir) until it settles. */
export function track<T>(runId: string, p: Promise<T>, verb = "other"): Promise<T> {
  const { inflight } = stateOf(runId);
  inflight.set(p, verb);
  const done = () => inflight.delete(p);
  void p.then(done, done);
  return p;
}

/** Calls a closing run may still make: they only look or remove. */
function sweeps(args: string[]): boolean {
  const [verb, sub] = args;
  return verb === "ps" || verb === "rm" || (verb === "network" && (sub === "ls" || sub === "rm"));
}

/**
 * The docker calls of `runId`: each tracked until it settles; once the run is closing, anything but a
 * listing or a removal is refused without running (a result with exit null, so the phase ends as an
 * infrastructure failure instead of creating what the sweep would have to chase).
 */
export function runCall(runId: string, call: DockerCall): DockerCall {
  return (args, o) => {
    if (stateOf(runId).closing && !sweeps(args)) return Promise.resolve(refused(runId, args));
    const attached = args[0] === ATTACHED_RUN[0] && args[1] === ATTACHED_RUN[1];
    return track(runId, call(args, o), attached ? ATTACHED : args[0]);
  };
}

function refused(runId: string, args: string[]): ProcResult {
  const stderr = `run "${runId}" is stopping: docker ${args[0]} not started`;
  return {
    command: ["docker", ...args],
    exitCode: null,
    signal: null,
    stdout: "",
    stderr,
    durationMs: 0,
    timedOut: false,
  };
}

/** Makes a scratch directory owned by `runId` (its name carries the run id); refused once the run is closing. */
export function makeScratchDir(runId: string, root = tmpdir()): string {
  checkRunId(runId);
  if (isStopping(runId)) throw new ToolError(`Run "${runId}" is stopping: no new workspace`, 1);
  return mkdtempSync(join(root, `${PREFIX}${runId}.`));
}

/** Scratch dirs of `runId` under `root` (exact run id match: "r1" never matches "r10"). */
export function scratchDirsOf(runId: string, root = tmpdir()): string[] {
  const want = `${PREFIX}${runId}.`;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(want) && !n.slice(want.length).includes("."))
    .map((n) => join(root, n));
}

/** Names of the run's containers (any state, Created included) or networks; undefined when the listing failed. */
async function listed(runId: string, call: DockerCall, kind: "containers" | "networks") {
  checkRunId(runId);
  const label = `label=${RUN_LABEL}=${runId}`;
  const args =
    kind === "containers"
      ? ["ps", "-a", "--filter", label, "--format", "{{.Names}}"]
      : ["network", "ls", "--filter", label, "--format", "{{.Name}}"];
  const r = await call(args, { timeoutMs: 60_000 });
  return r.exitCode === 0 ? r.stdout.split("\n").filter(Boolean) : undefined;
}

/** Names of every container (running or not) labelled with `runId`. */
export async function containersOf(runId: string, call: DockerCall = dockerCli()): Promise<string[]> {
  return (await listed(runId, call, "containers")) ?? [];
}

/** Names of every network labelled with `runId`. */
export async function networksOf(runId: string, call: DockerCall = dockerCli()): Promise<string[]> {
  return (await listed(runId, call, "networks")) ?? [];
}

type Sweep = { containers: string[]; networks: string[]; dirs: string[] };

/** One pass: force-removes the run's containers, networks and scratch dirs; `clean` when nothing was listed or left. */
async function sweepOnce(runId: string, call: DockerCall, root: string | undefined) {
  const containers = await listed(runId, call, "containers");
  // -v: a Harbor verifier's fresh volumes (/tests, /logs, /solution) go with their container.
  if (containers?.length) await call(["rm", "-f", "-v", ...containers], { timeoutMs: 120_000 });
  // A Harbor trial's snapshot of its agent's container, committed with the run's label.
  const images = await call(["image", "ls", "-q", "--filter", `label=${RUN_LABEL}=${runId}`], {
    timeoutMs: 60_000,
  });
  const snapshots = images.exitCode === 0 ? images.stdout.split("\n").filter(Boolean) : [];
  if (snapshots.length) await call(["rmi", "-f", ...new Set(snapshots)], { timeoutMs: 120_000 });
  const networks = await listed(runId, call, "networks");
  if (networks?.length) await call(["network", "rm", ...networks], { timeoutMs: 120_000 });
  const dirs = scratchDirsOf(runId, root);
  let dirsLeft = false;
  for (const d of dirs) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      dirsLeft = true; // a writer still adding files: the next round takes it
    }
  }
  const clean = containers?.length === 0 && networks?.length === 0 && !dirsLeft;
  return { found: { containers: containers ?? [], networks: networks ?? [], dirs }, clean };
}

/** Force-removes the run's containers, networks and scratch dirs once; returns what it found. */
export async function removeRunResources(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string } = {},
): Promise<Sweep> {
  return (await sweepOnce(runId, o.call ?? dockerCli(), o.scratchRoot)).found;
}

/** Sweeps until two listings in a row find nothing (an engine may still be finishing a create), bounded. */
export async function sweepRun(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string } = {},
): Promise<Sweep> {
  const call = o.call ?? dockerCli();
  const all: Sweep = { containers: [], networks: [], dirs: [] };
  let clean = 0;
  for (let round = 0; round < SWEEP_ROUNDS && clean < 2; round++) {
    if (round > 0) await delay(SWEEP_PAUSE_MS);
    const r = await sweepOnce(runId, call, o.scratchRoot);
    merge(all, r.found);
    clean = r.clean ? clean + 1 : 0;
  }
  return all;
}

function merge(into: Sweep, found: Sweep): Sweep {
  for (const k of ["containers", "networks", "dirs"] as const)
    for (const n of found[k]) if (!into[k].includes(n)) into[k].push(n);
  return into;
}

/** Waits until nothing matching `which` is in flight for the run, or `ms` passed. */
async function settle(s: RunState, ms: number, which: (verb: string) => boolean = () => true) {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = [...s.inflight].filter(([, v]) => which(v)).map(([p]) => p);
    const left = deadline - Date.now();
    if (open.length === 0 || left <= 0) return;
    const timer = new AbortController();
    await Promise.race([
      Promise.allSettled(open),
      delay(left, undefined, { signal: timer.signal }).catch(() => {}),
    ]);
    timer.abort();
  }
}

/**
 * Sweeps again while attached runs are in flight: each ends once its container goes, and one whose
 * container the engine was still creating at the last listing shows up in a later one. Bounded.
 */
async function chaseAttached(s: RunState, runId: string, o: { call?: DockerCall; scratchRoot?: string }) {
  const all: Sweep = { containers: [], networks: [], dirs: [] };
  const open = () => [...s.inflight.values()].includes(ATTACHED);
  const deadline = Date.now() + START_GRACE_MS;
  while (open() && Date.now() < deadline) {
    await settle(s, SWEEP_PAUSE_MS, (v) => v === ATTACHED);
    if (open()) merge(all, await removeRunResources(runId, o));
  }
  return all;
}

/**
 * Stops `runId` and removes everything it owns: no new docker call or workspace starts, the detached
 * `docker run`s in flight finish (so their containers exist to be found), a sweep removes the
 * containers (the execs, attached runs and copies into them then return; an attached run still being
 * created is chased), everything else in flight settles, and the sweep repeats until nothing is left;
 * returns all it removed. Safe to call more than once.
 */
export async function stopRun(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string } = {},
): Promise<Sweep> {
  checkRunId(runId);
  const s = stateOf(runId);
  s.closing = true;
  await settle(s, START_GRACE_MS, (v) => v === "run");
  const first = merge(await removeRunResources(runId, o), await chaseAttached(s, runId, o));
  await settle(s, SETTLE_MS);
  return merge(first, await sweepRun(runId, o));
}

/**
 * On SIGINT/SIGTERM: tell the caller (`onSignal`, e.g. to stop starting trials), stop the run and
 * remove all it owns (stopRun), then exit 130 (INT) or 143 (TERM): once a listener is installed Node
 * no longer terminates by itself, so the hook must. Returns a function that uninstalls the hook.
 */
export function installSignalCleanup(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string; onSignal?: (signal: NodeJS.Signals) => void } = {},
): () => void {
  checkRunId(runId);
  let busy = false;
  const handler = (signal: NodeJS.Signals) => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        stateOf(runId).closing = true;
        o.onSignal?.(signal);
        await stopRun(runId, o);
      } finally {
        exitOnSignal(signal);
      }
    })();
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}

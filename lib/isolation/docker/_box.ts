// One phase's container for the Docker runner (lib/isolation/docker/index.ts): what a phase carries
// (Box), its fresh name and its removal, /work's copy out into the host snapshot (holes kept, capped:
// _sparse.ts), and the results a phase returns. Shared by the attached and the detached paths, so
// both end and fail alike.
import { randomBytes } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { ProcResult } from "../../core/proc.ts";
import type { PhaseResult, PhaseSpec, Workspace } from "../contract.ts";
import { CarryError, carrySink, OverCapError, SparseCarry } from "./_sparse.ts";
import type { ModelBridge } from "./bridge.ts";
import { type DockerCall, tail } from "./engine.ts";

/** How long a docker verb other than exec may take before we call it an infrastructure failure. */
export const INFRA_TIMEOUT_MS = 120_000;

/** The snapshot file inside a workspace's scratch dir. */
export const snapshot = (ws: Workspace) => join(ws.dir, "work.tar");

/** The most a trial's /work snapshot may hold between phases (data, maps and headers; holes not counted). */
export const DEFAULT_MAX_WORK_BYTES = 1024 * 1024 * 1024;

/** The one line of a trial whose /work is over the cap (an infrastructure failure: the trial ends). */
export function overCap(cap: number): string {
  return `/work is over the cap: a trial carries at most ${cap} bytes between phases, holes not counted (--max-work-bytes raises it)`;
}

/** Numeric uid:gid of a docker --user value; a user name (no numbers) leaves files to root. */
export function ownerOf(user: string): { uid: number; gid: number } {
  const m = /^(\d+)(?::(\d+))?$/.exec(user);
  return m ? { uid: Number(m[1]), gid: Number(m[2] ?? m[1]) } : { uid: 0, gid: 0 };
}

/** A phase result: nothing ran unless `o` says otherwise. */
export function result(o: Partial<PhaseResult> & { durationMs: number }): PhaseResult {
  return { exitCode: null, stdout: "", stderr: "", timedOut: false, commandIndex: 0, ...o };
}

/** One phase's container: its name, the docker calls, and its removal off the critical path. */
export interface Box {
  call: DockerCall;
  user: string;
  ws: Workspace;
  spec: PhaseSpec;
  bridge?: ModelBridge;
  started: number;
  /** The cap of /work's snapshot (default DEFAULT_MAX_WORK_BYTES). */
  maxWork?: number;
}

/** How often, and how far apart, a removal asks again for a container the engine may still be creating. */
export const LATE_REMOVAL_TRIES = 20;
const LATE_REMOVAL_PAUSE_MS = 250;

/**
 * A fresh container name, and its removal (once, however often asked; the caller tracks it per
 * workspace). `{ late: true }` is for a `docker run` whose client was killed at the phase's limit: the
 * engine may not have made the container yet, and `rm -f` of a missing one says "No such container"
 * and succeeds, so it asks again, a bounded number of times, until there was one to remove.
 */
export function container(box: Box): { name: string; remove: (o?: { late?: boolean }) => Promise<void> } {
  const name = `proctor-eval-${randomBytes(6).toString("hex")}`;
  let removing: Promise<void> | undefined;
  const rm = () => box.call(["rm", "-f", name], { timeoutMs: INFRA_TIMEOUT_MS });
  const late = async () => {
    for (let i = 1; i <= LATE_REMOVAL_TRIES; i++) {
      const r = await rm();
      if (!/No such container/i.test(r.stderr) || i === LATE_REMOVAL_TRIES) return;
      await delay(LATE_REMOVAL_PAUSE_MS);
    }
  };
  const remove = (o: { late?: boolean } = {}) => {
    removing ??= o.late ? late() : rm().then(() => undefined);
    return removing;
  };
  return { name, remove };
}

/**
 * Copies /work out of a container (running or exited) into the snapshot, as it streams: holes kept,
 * never more than the cap written (the copy stops there). Undefined when it worked, else the one line.
 */
export async function copyOut(box: Box, name: string): Promise<string | undefined> {
  const tmp = join(box.ws.dir, `.work.${randomBytes(4).toString("hex")}.tar`);
  const cap = box.maxWork ?? DEFAULT_MAX_WORK_BYTES;
  const why = await carry(tmp, cap, (onStdout) =>
    box.call(["cp", `${name}:/work`, "-"], { timeoutMs: INFRA_TIMEOUT_MS, onStdout }),
  );
  if (why !== undefined) return `copy out: ${why}`;
  renameSync(tmp, snapshot(box.ws));
  return undefined;
}

/**
 * Streams what `produce` writes (a tar: docker cp's, or tar's for the starting snapshot) into the
 * snapshot file `path` through SparseCarry, capped at `cap`. Undefined when it worked; else why, in one
 * line, with `path` removed.
 */
export async function carry(
  path: string,
  cap: number,
  produce: (onStdout: (chunk: Buffer) => boolean) => Promise<ProcResult>,
): Promise<string | undefined> {
  const c = new SparseCarry(path, `${path}.spill`, cap);
  const sink = carrySink(c);
  let why: string | undefined;
  let done = false;
  try {
    const r = await produce(sink.onStdout);
    const failed = sink.failed();
    if (failed !== undefined) why = failed instanceof OverCapError ? overCap(cap) : failed.message;
    else if (r.exitCode !== 0) why = r.timedOut ? "timed out" : tail(r.stderr);
    else {
      c.finish();
      done = true;
    }
  } catch (error) {
    if (!(error instanceof CarryError)) throw error;
    why = error.message;
  } finally {
    c.close();
    if (!done) rmSync(path, { force: true });
  }
  return why;
}

/** The start failure of a container: a missing image names its remedy. */
export function startError(stderr: string, image: string): string {
  return /No such image/i.test(stderr)
    ? `image "${image}" is missing: build it with "npx bun evals/images/build.ts"`
    : `start: ${tail(clientError(stderr))}`;
}

/** `docker run`'s own error line(s), without its "docker: " prefix and the "Run 'docker run --help'" trailer. */
function clientError(stderr: string): string {
  return stderr
    .replace(/^docker: /m, "")
    .replace(/\s*Run 'docker run --help' for more information\.?\s*$/, "");
}

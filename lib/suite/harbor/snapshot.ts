// The end of a Harbor agent phase: every process the agent left is frozen (`docker pause`), what it
// changed is listed (`docker diff`), its filesystem is committed to an image labelled with the run (so
// a signal's sweep finds it) and its container, with every process in it, is removed. The verifier
// starts from that image in a fresh container: nothing the agent started survives (no process, no
// open descriptor, no mount; the model bridge's socket is not in the image, it was a mount). The
// removal runs while the verifier does (agentGone), off the trial's critical path, only when the pause
// took: a frozen process cannot run, so nothing of the agent acts meanwhile; a container the engine
// did not pause (it had stopped, or the pause failed) is removed before the verifier is made.
// Why a commit and not the alternatives: killing processes in place cannot be proven complete (a
// process can fork between the listing and the kill, or hide in a new session) and leaves the agent's
// mounts and namespaces; `docker export | import` copies the whole filesystem (seconds to minutes on a
// real task image) where a commit stores only the agent's layer (tens of milliseconds) and keeps the
// image's config; CRIU checkpoints carry processes over, the opposite of what is wanted. A fresh
// container from the committed layer is what Harbor's own verifier would see, minus the agent.
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { RUN_LABEL } from "../../isolation/docker/engine.ts";
import { type Change, parseDiff } from "./tamper.ts";

/** The repository of the snapshots; each is removed when its trial ends. */
export const SNAPSHOT_REPO = "proctor-harbor-snapshot";

/** A committed agent container: the image the verifier starts from, and what the agent changed. */
export interface Snapshot {
  image: string;
  changes: Change[];
  /** The agent's container's removal, still running (its processes frozen) or done. */
  agentGone: Promise<unknown>;
}

/**
 * Freezes, lists, commits and removes the agent's container `name`. A container that already stopped
 * (its agent ended its own init) is listed and committed as it is; `frozen` reads what it needs of the
 * container while nothing in it runs. Throws with the engine's words
 * when it cannot be committed (the container removed first).
 */
export async function snapshotAgent(
  call: DockerCall,
  runId: string,
  name: string,
  frozen?: (name: string) => Promise<void>,
): Promise<Snapshot> {
  const remove = () => call(["rm", "-f", name], { timeoutMs: 120_000 });
  let paused = false;
  let committed = false;
  try {
    paused = (await call(["pause", name], { timeoutMs: 60_000 })).exitCode === 0;
    // What the runner reads of the frozen container (the verifier's /etc/passwd) cannot change under it.
    await frozen?.(name);
    const diff = await call(["diff", name], { timeoutMs: 120_000 });
    if (diff.exitCode !== 0) throw new Error(`docker diff: ${diff.stderr.trim()}`);
    const image = `${SNAPSHOT_REPO}:${name.replace(/[^A-Za-z0-9_.-]/g, "-").slice(-100)}`;
    const commit = await call(
      ["commit", "--pause=false", "--change", `LABEL ${RUN_LABEL}=${runId}`, name, image],
      { timeoutMs: 600_000 },
    );
    if (commit.exitCode !== 0) throw new Error(`docker commit: ${commit.stderr.trim()}`);
    committed = true;
    // Frozen, it waits for its removal while the verifier runs; not frozen, it goes first.
    const agentGone = paused ? remove() : Promise.resolve(await remove());
    return { image, changes: parseDiff(diff.stdout), agentGone };
  } finally {
    if (!committed) await remove();
  }
}

/** Removes a snapshot image (its trial ended). */
export async function dropSnapshot(call: DockerCall, image: string): Promise<void> {
  await call(["rmi", "-f", image], { timeoutMs: 120_000 });
}

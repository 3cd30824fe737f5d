// The end of a Harbor agent phase: every process the agent left is frozen (`docker pause`), what it
// changed is listed (`docker diff`), its filesystem is committed to an image labelled with the run (so
// a signal's sweep finds it) and its container, with every process in it, is removed. The verifier
// starts from that image in a fresh container: nothing the agent started survives (no process, no
// open descriptor, no mount; the model bridge's socket is not in the image, it was a mount).
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { RUN_LABEL } from "../../isolation/docker/engine.ts";
import { type Change, parseDiff } from "./tamper.ts";

/** The repository of the snapshots; each is removed when its trial ends. */
export const SNAPSHOT_REPO = "proctor-harbor-snapshot";

/** A committed agent container: the image the verifier starts from, and what the agent changed. */
export interface Snapshot {
  image: string;
  changes: Change[];
}

/**
 * Freezes, lists, commits and removes the agent's container `name`. A container that already stopped
 * (its agent ended its own init) is listed and committed as it is. Throws with the engine's words
 * when it cannot be committed.
 */
export async function snapshotAgent(call: DockerCall, runId: string, name: string): Promise<Snapshot> {
  try {
    await call(["pause", name], { timeoutMs: 60_000 });
    const diff = await call(["diff", name], { timeoutMs: 120_000 });
    if (diff.exitCode !== 0) throw new Error(`docker diff: ${diff.stderr.trim()}`);
    const image = `${SNAPSHOT_REPO}:${name.replace(/[^A-Za-z0-9_.-]/g, "-").slice(-100)}`;
    const commit = await call(
      ["commit", "--pause=false", "--change", `LABEL ${RUN_LABEL}=${runId}`, name, image],
      { timeoutMs: 600_000 },
    );
    if (commit.exitCode !== 0) throw new Error(`docker commit: ${commit.stderr.trim()}`);
    return { image, changes: parseDiff(diff.stdout) };
  } finally {
    await call(["rm", "-f", name], { timeoutMs: 120_000 });
  }
}

/** Removes a snapshot image (its trial ended). */
export async function dropSnapshot(call: DockerCall, image: string): Promise<void> {
  await call(["rmi", "-f", image], { timeoutMs: 120_000 });
}

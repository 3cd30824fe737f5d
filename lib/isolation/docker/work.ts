// Where the Docker runner keeps a workspace's /work between phases, for readers outside this folder
// (lib/isolation/work-tree.ts reads it for a trial's diff): the tar snapshot _box.ts writes.
import type { Workspace } from "../contract.ts";
import { snapshot } from "./_box.ts";

/** The tar snapshot of `ws`'s /work (members under `work/`). */
export function snapshotFile(ws: Workspace): string {
  return snapshot(ws);
}

// What /work holds at one moment, read on the host for a trial's transcript (the agent's diff): every
// regular file's SHA-256 and size, its bytes when small, and each link's target. Under Docker it is
// read from the runner's tar snapshot of /work (lib/core/tar-read.ts, nothing unpacked), under
// --local from the trial's work/ directory (no link followed). Read-only, and never the agent's
// verdict: the check and the graders decide, this only shows what changed.
import { Buffer } from "node:buffer";
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import { join } from "node:path";
import { type Sha256, sha256 } from "../core/hash.ts";
import { readTar } from "../core/tar-read.ts";
import type { Workspace } from "./contract.ts";
import { snapshotFile } from "./docker/work.ts";

/** One path of /work: a regular file (its bytes kept when small), a link, or something else. */
export type WorkEntry =
  | { kind: "file"; sha256: string; size: number; exec: boolean; data?: Buffer }
  | { kind: "link"; target: string }
  | { kind: "other" };

/** /work's paths (relative, `/`-separated, directories left out) and what each is. */
export type WorkTree = Map<string, WorkEntry>;

/** Files up to this size keep their bytes (to be diffed); larger ones only their hash. */
export const KEPT_FILE_BYTES = 512 * 1024;
/** All kept bytes of one tree together stay under this; files past it keep only their hash. */
export const KEPT_TREE_BYTES = 32 * 1024 * 1024;

/** Builds a tree, keeping bytes within the caps. */
function builder() {
  const tree: WorkTree = new Map();
  let kept = 0;
  const keep = (size: number) => {
    if (size > KEPT_FILE_BYTES || kept + size > KEPT_TREE_BYTES) return false;
    kept += size;
    return true;
  };
  return { tree, keep };
}

/** /work as a tar snapshot holds it: members under `work/` (the runner's layout), their bytes hashed. */
export function tarWorkTree(tarPath: string): WorkTree {
  const { tree, keep } = builder();
  let current: { path: string; hash: Sha256; parts?: Buffer[]; size: number; exec: boolean } | undefined;
  const finish = () => {
    if (!current) return;
    const data = current.parts ? Buffer.concat(current.parts) : undefined;
    tree.set(current.path, {
      kind: "file",
      sha256: current.hash.digest("hex"),
      size: current.size,
      exec: current.exec,
      ...(data ? { data } : {}),
    });
    current = undefined;
  };
  readTar(
    tarPath,
    (m) => {
      finish();
      const path = m.path.replace(/^work(\/|$)/, "").replace(/\/+$/, "");
      if (path === "" || m.kind === "dir") return;
      if (m.kind === "file") {
        current = { path, hash: sha256(), size: m.size, exec: (m.mode & 0o111) !== 0 };
        if (keep(m.size)) current.parts = [];
      } else if (m.kind === "symlink") tree.set(path, { kind: "link", target: m.link ?? "" });
      else tree.set(path, { kind: "other" });
    },
    (chunk) => {
      current?.hash.update(chunk);
      current?.parts?.push(Buffer.from(chunk));
    },
  );
  finish();
  return tree;
}

function hashFile(path: string, size: number, keepIt: boolean): { sha256: string; data?: Buffer } {
  const hash = sha256();
  const parts: Buffer[] = [];
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let at = 0; at < size; ) {
      const n = readSync(fd, buf, 0, buf.length, at);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      if (keepIt) parts.push(Buffer.from(buf.subarray(0, n)));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest("hex"), ...(keepIt ? { data: Buffer.concat(parts) } : {}) };
}

/** /work as a directory on this host holds it (--local): links read, never followed. */
export function dirWorkTree(root: string): WorkTree {
  const { tree, keep } = builder();
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const path = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full, path);
      else if (st.isSymbolicLink()) tree.set(path, { kind: "link", target: readlinkSync(full) });
      else if (st.isFile()) {
        try {
          const h = hashFile(full, st.size, keep(st.size));
          tree.set(path, { kind: "file", size: st.size, exec: (st.mode & 0o111) !== 0, ...h });
        } catch {
          tree.set(path, { kind: "other" });
        }
      } else tree.set(path, { kind: "other" });
    }
  };
  walk(root, "");
  return tree;
}

/** /work of a workspace of either runner; undefined for a runner this file does not know (a test's). */
export function workTreeOf(ws: Workspace): WorkTree | undefined {
  const local = (ws as { work?: unknown }).work;
  if (typeof local === "string") return existsSync(local) ? dirWorkTree(local) : undefined;
  const tar = snapshotFile(ws);
  return existsSync(tar) ? tarWorkTree(tar) : undefined;
}

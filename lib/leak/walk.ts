// The post-run walker: every entry under a run root, depth first in sorted order, without following
// symlinks. Regular files are yielded for scanning; sockets, FIFOs and devices are yielded as
// `special` so the scan can list them (they are never opened: a FIFO would block the reader).
import { lstatSync, readdirSync } from "node:fs";
import { resolveInside } from "../fsx.ts";

/** One non-directory entry under the root; `path` is root-relative with `/` separators. */
export interface WalkEntry {
  path: string;
  abs: string;
  type: "file" | "special";
}

/**
 * Yields the regular files (and special files) under `root`. Symlinks are neither followed nor
 * yielded: what they point at inside the root is scanned at its own place. A directory that cannot
 * be listed is yielded as a `file`, so the scan opens it, fails, and reports it unreadable.
 */
export function* walkRunRoot(root: string, rel = ""): Generator<WalkEntry> {
  const dir = rel === "" ? { ok: true as const, path: root } : resolveInside(root, rel);
  if (!dir.ok) return;
  let names: string[];
  try {
    names = readdirSync(dir.path).sort();
  } catch {
    yield { path: rel === "" ? "." : rel, abs: dir.path, type: "file" };
    return;
  }
  for (const name of names) {
    const childRel = rel === "" ? name : `${rel}/${name}`;
    const child = resolveInside(root, childRel);
    if (!child.ok) continue;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(child.path);
    } catch {
      yield { path: childRel, abs: child.path, type: "file" }; // vanished or unreachable: let the scan say so
      continue;
    }
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) yield* walkRunRoot(root, childRel);
    else if (st.isFile()) yield { path: childRel, abs: child.path, type: "file" };
    else yield { path: childRel, abs: child.path, type: "special" };
  }
}

// The run-root walker: every entry under a root somebody else wrote (an agent's run root, a fixture,
// a run directory), depth first in sorted order, as a descriptor walk (lib/core/confined.ts): each
// directory is opened without following a link and listed through its own descriptor, so a directory
// swapped for a link mid-walk is never entered. Links are reported, never followed; sockets, FIFOs and
// devices are reported as `special` and never opened (a FIFO would block the reader).
import { closeSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openDirConfined } from "../core/confined.ts";

/** One non-directory entry under the root; `path` is root-relative with `/` separators. */
export interface WalkEntry {
  path: string;
  abs: string;
  type: "file" | "special";
}

/** Any entry under the root, directories and links included. */
export interface TreeEntry {
  path: string;
  abs: string;
  type: "file" | "dir" | "link" | "special" | "unlistable";
}

/**
 * Yields every entry under `root` (directories before their contents, names in code-unit order).
 * A directory that cannot be opened or listed, and an entry that cannot be lstat'ed (vanished, or
 * a name that is not UTF-8), are yielded as `unlistable`; a directory so reported is not entered.
 */
export function* walkTree(root: string): Generator<TreeEntry> {
  let dir: ReturnType<typeof openDirConfined>;
  try {
    dir = openDirConfined(root, ".");
  } catch {
    yield { path: ".", abs: root, type: "unlistable" };
    return;
  }
  try {
    yield* walkDir(dir.path, root, "");
  } finally {
    closeSync(dir.fd);
  }
}

function* walkDir(dirPath: string, root: string, rel: string): Generator<TreeEntry> {
  let names: string[];
  try {
    names = readdirSync(dirPath).sort();
  } catch {
    yield { path: rel === "" ? "." : rel, abs: join(root, rel), type: "unlistable" };
    return;
  }
  for (const name of names) {
    const childRel = rel === "" ? name : `${rel}/${name}`;
    const abs = join(root, childRel);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(`${dirPath}/${name}`); // lstat on the last component: never follows it
    } catch {
      // vanished, or a name that is not UTF-8 (readdir's string cannot reach it): say so, never skip
      yield { path: childRel, abs, type: "unlistable" };
      continue;
    }
    if (st.isSymbolicLink()) yield { path: childRel, abs, type: "link" };
    else if (st.isFile()) yield { path: childRel, abs, type: "file" };
    else if (!st.isDirectory()) yield { path: childRel, abs, type: "special" };
    else {
      let child: ReturnType<typeof openDirConfined>;
      try {
        child = openDirConfined(dirPath, name); // O_NOFOLLOW|O_DIRECTORY under the parent's descriptor
      } catch {
        yield { path: childRel, abs, type: "unlistable" };
        continue;
      }
      try {
        yield { path: childRel, abs, type: "dir" };
        yield* walkDir(child.path, root, childRel);
      } finally {
        closeSync(child.fd);
      }
    }
  }
}

/**
 * Yields the regular files (and special files) under `root`. Symlinks are neither followed nor
 * yielded: what they point at inside the root is scanned at its own place. A directory that cannot
 * be listed is yielded as a `file`, so the scan opens it, fails, and reports it unreadable.
 */
export function* walkRunRoot(root: string): Generator<WalkEntry> {
  for (const e of walkTree(root)) {
    if (e.type === "file" || e.type === "special") yield { path: e.path, abs: e.abs, type: e.type };
    else if (e.type === "unlistable") yield { path: e.path, abs: e.abs, type: "file" };
  }
}

// Reading files inside a root that somebody else controls (a run root an agent wrote, an MCP client's
// --root, a subject's OUT): opened without following a link at ANY component (the descriptor walk in
// _confined-walk.ts) and without blocking; FIFOs, sockets and devices refused before any read; reads
// capped. Writes are confined-write.ts. It does not know formats or roots' meanings; callers decide
// what a refusal means for their run.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import {
  ConfinedPathError,
  confinedParts,
  hasProcFd,
  lstatWalk,
  O_CLOEXEC,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_NONBLOCK,
  openDirFd,
  refusal,
} from "./_confined-walk.ts";
import { mkdirConfined } from "./confined-write.ts";

export {
  accessProblem,
  ConfinedPathError,
  type ConfinedReason,
  confinedParts,
  partsUnder,
} from "./_confined-walk.ts";

/** An open regular file: its descriptor and size. Close it with closeSync. */
export interface ConfinedFile {
  fd: number;
  size: number;
  stat: Stats;
}

/**
 * Opens the regular file `rel` under `root` for reading: no link at any component, O_NONBLOCK (a
 * FIFO never blocks the open), and anything but a regular file refused after fstat. A `maxBytes`
 * cap refuses larger files before any read.
 */
export function openConfined(root: string, rel: string, opts: { maxBytes?: number } = {}): ConfinedFile {
  const parts = confinedParts(rel);
  if (parts.length === 0) throw new ConfinedPathError(rel, "not-regular");
  const shown = join(root, ...parts);
  const name = parts[parts.length - 1] as string;
  const flags = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  let fd: number;
  if (hasProcFd()) {
    const dirfd = openDirFd(root, parts.slice(0, -1), shown);
    try {
      fd = openSync(`/proc/self/fd/${dirfd}/${name}`, flags);
    } catch (error) {
      refusal(error, shown, true);
    } finally {
      closeSync(dirfd);
    }
  } else {
    const before = lstatWalk(root, parts, shown);
    if (!before.isFile()) throw new ConfinedPathError(shown, "not-regular");
    try {
      fd = openSync(shown, flags);
    } catch (error) {
      refusal(error, shown, true);
    }
    const now = fstatSync(fd);
    if (now.ino !== before.ino || now.dev !== before.dev) {
      closeSync(fd);
      throw new ConfinedPathError(shown, "link", "changed while opening");
    }
  }
  return checkRegular(fd, shown, opts.maxBytes);
}

/**
 * Opens an absolute path that must itself be a regular file (last component not a link), capped.
 * `follow: true` follows links (a path the user typed, not one an agent controls).
 */
export function openRegular(path: string, opts: { maxBytes?: number; follow?: boolean } = {}): ConfinedFile {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (opts.follow ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC);
  } catch (error) {
    refusal(error, path, true);
  }
  return checkRegular(fd, path, opts.maxBytes);
}

function checkRegular(fd: number, shown: string, maxBytes: number | undefined): ConfinedFile {
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new ConfinedPathError(shown, "not-regular");
  }
  if (maxBytes !== undefined && stat.size > maxBytes) {
    closeSync(fd);
    throw new ConfinedPathError(shown, "too-large", `${stat.size} bytes, cap ${maxBytes}`);
  }
  return { fd, size: stat.size, stat };
}

/** Reads a whole open file, never more than `cap` bytes (a file that grows past it is refused). */
function readAllFd(fd: number, size: number, shown: string, cap: number | undefined): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(size || 65536, 1 << 20)));
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (cap !== undefined && total > cap)
      throw new ConfinedPathError(shown, "too-large", `over ${cap} bytes`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}

/** Reads the regular file `rel` under `root` (see openConfined), capped at `maxBytes`. */
export function readConfined(root: string, rel: string, opts: { maxBytes?: number } = {}): Buffer {
  const f = openConfined(root, rel, opts);
  try {
    return readAllFd(f.fd, f.size, join(root, rel), opts.maxBytes);
  } finally {
    closeSync(f.fd);
  }
}

/** Reads the regular file at absolute `path` (last component not a link, no FIFO), capped. */
export function readRegular(path: string, opts: { maxBytes?: number; follow?: boolean } = {}): Buffer {
  const f = openRegular(path, opts);
  try {
    return readAllFd(f.fd, f.size, path, opts.maxBytes);
  } finally {
    closeSync(f.fd);
  }
}

/** An open directory: its descriptor and a path that reaches it without a re-walk (Linux: /proc/self/fd/N). */
export interface ConfinedDir {
  fd: number;
  path: string;
}

/**
 * Opens the directory `rel` under `root` without following a link at any component (with `create`,
 * missing ones are made, mode `mode`). Operations on `<path>/<name>` then act inside that very
 * directory even if a component is swapped later. Close `fd` with closeSync.
 */
export function openDirConfined(
  root: string,
  rel: string,
  opts: { create?: boolean; mode?: number } = {},
): ConfinedDir {
  const parts = confinedParts(rel);
  const shown = join(root, ...parts);
  if (hasProcFd()) {
    const fd = openDirFd(root, parts, shown, opts.create === true, opts.mode ?? 0o755);
    return { fd, path: `/proc/self/fd/${fd}` };
  }
  if (opts.create) mkdirConfined(root, rel, opts.mode ?? 0o755);
  const before = lstatWalk(root, parts, shown);
  if (!before.isDirectory()) throw new ConfinedPathError(shown, "not-directory");
  const path = join(resolve(root), ...parts);
  const fd = openSync(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  const now = fstatSync(fd);
  if (now.ino !== before.ino || now.dev !== before.dev) {
    closeSync(fd);
    throw new ConfinedPathError(shown, "link", "changed while opening");
  }
  return { fd, path };
}

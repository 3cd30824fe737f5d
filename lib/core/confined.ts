// Files inside a root that somebody else controls (a run root an agent wrote, an MCP client's
// --root, a subject's OUT): opened without following a link at ANY component and without blocking.
// On Linux this is a descriptor walk: each directory is opened with O_NOFOLLOW|O_DIRECTORY through
// the previous one's /proc/self/fd entry, so a directory swapped for a link between two steps is
// refused, never followed (no path is re-walked after a check). Elsewhere (no /proc) it walks with
// lstat and then checks the opened descriptor's device and inode against the final lstat.
// Non-regular files (FIFOs, sockets, devices) are refused before any read, and reads are capped.
// It does not know formats or roots' meanings; callers decide what a refusal means for their run.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** Why a confined open was refused. */
export type ConfinedReason =
  | "link" // a component is a symbolic link
  | "not-regular" // the last component is a FIFO, socket, device or directory
  | "not-directory" // a middle component is not a directory
  | "outside" // the relative path is absolute, empty or climbs with ..
  | "missing" // a component does not exist
  | "too-large" // the file is larger than the cap
  | "exists"; // an exclusive create found something there

/** A refused confined access; `reason` is machine-readable, the message names the path. */
export class ConfinedPathError extends Error {
  readonly reason: ConfinedReason;
  readonly path: string;
  /** The message without the path: what was refused and why. */
  readonly why: string;
  constructor(path: string, reason: ConfinedReason, detail = "") {
    const why = `${describe(reason)}${detail ? ` (${detail})` : ""}`;
    super(`Refused "${path}": ${why}`);
    this.name = "ConfinedPathError";
    this.reason = reason;
    this.path = path;
    this.why = why;
  }
}

/** Why a file could not be opened or read, in words that quote no content: an errno code or a refusal. */
export function accessProblem(error: unknown): string {
  if (error instanceof ConfinedPathError) return error.reason === "missing" ? "ENOENT" : error.why;
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}

function describe(reason: ConfinedReason): string {
  switch (reason) {
    case "link":
      return "a symbolic link where a file or directory was expected";
    case "not-regular":
      return "not a regular file";
    case "not-directory":
      return "a path component is not a directory";
    case "outside":
      return "the path leaves its root";
    case "missing":
      return "no such file";
    case "too-large":
      return "larger than the size cap";
    case "exists":
      return "already exists";
  }
}

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_CLOEXEC = (constants as Record<string, number>).O_CLOEXEC ?? 0;

let procFd: boolean | undefined;
/** True when /proc/self/fd can be used for a descriptor walk (Linux). */
function hasProcFd(): boolean {
  if (procFd === undefined) procFd = process.platform === "linux" && existsSync("/proc/self/fd");
  return procFd;
}

/** Splits a root-relative path into components, refusing absolute paths, `..` and empty paths. */
export function confinedParts(rel: string): string[] {
  if (typeof rel !== "string" || rel.includes("\0") || isAbsolute(rel))
    throw new ConfinedPathError(String(rel), "outside");
  const parts = rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new ConfinedPathError(rel, "outside");
  return parts;
}

/** An absolute path under `root` as its root-relative components, or throws "outside". */
export function partsUnder(root: string, abs: string): string[] {
  const r = relative(resolve(root), resolve(abs));
  if (r.startsWith("..") || isAbsolute(r)) throw new ConfinedPathError(abs, "outside");
  return r === "" ? [] : r.split(sep);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function errCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** Maps an open(2) failure on component `shown` to a refusal; rethrows what is not a refusal. */
function refusal(error: unknown, shown: string, lastIsFile: boolean, at?: string): never {
  const code = errCode(error);
  // O_DIRECTORY|O_NOFOLLOW on a link answers ENOTDIR, not ELOOP: tell the two apart by lstat.
  if (code === "ENOTDIR" && at !== undefined && isLink(at)) throw new ConfinedPathError(shown, "link");
  if (code === "ELOOP" || code === "EMLINK") throw new ConfinedPathError(shown, "link");
  if (code === "ENOTDIR") throw new ConfinedPathError(shown, lastIsFile ? "not-regular" : "not-directory");
  if (code === "ENOENT") throw new ConfinedPathError(shown, "missing");
  if (code === "ENXIO") throw new ConfinedPathError(shown, "not-regular"); // a socket, or a FIFO with no writer
  throw error;
}

/** Opens `root` itself (the caller's trusted starting point; a link there is followed once). */
function openRoot(root: string): number {
  return openSync(root, constants.O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/**
 * Opens the directory `parts` under `root` (no link followed at any component) and returns its
 * descriptor; with `create`, missing directories are made (mode `mode`) on the way. Linux only.
 */
function openDirFd(root: string, parts: string[], shown: string, create = false, mode = 0o755): number {
  let fd = openRoot(root);
  try {
    for (const part of parts) {
      const at = `/proc/self/fd/${fd}/${part}`;
      let next: number;
      try {
        next = openSync(at, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      } catch (error) {
        if (!(create && errCode(error) === "ENOENT")) refusal(error, shown, false, at);
        try {
          mkdirSync(at, { mode });
        } catch (mkErr) {
          if (errCode(mkErr) !== "EEXIST") throw mkErr;
        }
        try {
          next = openSync(at, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        } catch (again) {
          refusal(again, shown, false, at);
        }
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Portable fallback: lstat every component; a link or a non-directory in the middle is refused. */
function lstatWalk(root: string, parts: string[], shown: string): Stats {
  let cur = resolve(root);
  let st: Stats = lstatSync(cur);
  for (const part of parts) {
    cur = join(cur, part);
    try {
      st = lstatSync(cur);
    } catch (error) {
      refusal(error, shown, false);
    }
    if (st.isSymbolicLink()) throw new ConfinedPathError(shown, "link");
  }
  return st;
}

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

/** Makes the directory `rel` under `root` (and its parents), never through a link; returns its path. */
export function mkdirConfined(root: string, rel: string, mode = 0o755): string {
  const parts = confinedParts(rel);
  const shown = join(root, ...parts);
  if (hasProcFd()) {
    closeSync(openDirFd(root, parts, shown, true, mode));
    return shown;
  }
  let cur = resolve(root);
  for (const part of parts) {
    cur = join(cur, part);
    try {
      mkdirSync(cur, { mode });
    } catch (error) {
      if (errCode(error) !== "EEXIST") throw error;
    }
    const st = lstatSync(cur);
    if (st.isSymbolicLink()) throw new ConfinedPathError(shown, "link");
    if (!st.isDirectory()) throw new ConfinedPathError(shown, "not-directory");
  }
  return shown;
}

/**
 * Writes `data` to `rel` under `root`: parents walked (and with `mkdirs`, made) without links, then
 * a temp file created O_EXCL|O_NOFOLLOW in that same directory descriptor and renamed into place.
 * With `exclusive`, an existing entry at `rel` is refused ("exists") instead of replaced.
 */
export function writeConfined(
  root: string,
  rel: string,
  data: string | Uint8Array,
  opts: { mode?: number; exclusive?: boolean; mkdirs?: boolean; dirMode?: number } = {},
): string {
  const parts = confinedParts(rel);
  if (parts.length === 0) throw new ConfinedPathError(rel, "not-regular");
  const shown = join(root, ...parts);
  const name = parts[parts.length - 1] as string;
  const dirParts = parts.slice(0, -1);
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const mode = opts.mode ?? 0o644;
  const write = (dirPath: string) => {
    const target = `${dirPath}/${name}`;
    if (opts.exclusive) {
      // O_EXCL on the final name itself: nothing there may be replaced, a dangling link included.
      let fd: number;
      try {
        fd = openSync(
          target,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW | O_CLOEXEC,
          mode,
        );
      } catch (error) {
        if (errCode(error) === "EEXIST") throw new ConfinedPathError(shown, "exists");
        refusal(error, shown, true);
      }
      try {
        writeAll(fd, buf);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const tmp = `${dirPath}/.${name}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW | O_CLOEXEC,
      mode,
    );
    try {
      writeAll(fd, buf);
    } catch (error) {
      closeSync(fd);
      unlinkSync(tmp);
      throw error;
    }
    closeSync(fd);
    try {
      renameSync(tmp, target); // rename replaces a link at `name` itself; it never writes through it
    } catch (error) {
      unlinkSync(tmp);
      throw error;
    }
  };
  if (hasProcFd()) {
    const dirfd = openDirFd(root, dirParts, shown, opts.mkdirs === true, opts.dirMode ?? 0o755);
    try {
      write(`/proc/self/fd/${dirfd}`);
    } finally {
      closeSync(dirfd);
    }
  } else {
    if (opts.mkdirs) mkdirConfined(root, dirParts.join("/"), opts.dirMode ?? 0o755);
    const st = lstatWalk(root, dirParts, shown);
    if (!st.isDirectory()) throw new ConfinedPathError(shown, "not-directory");
    write(join(resolve(root), ...dirParts));
  }
  return shown;
}

function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

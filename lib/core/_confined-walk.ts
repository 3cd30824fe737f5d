// The walk under lib/core/confined.ts (reads) and lib/core/confined-write.ts (writes): the refusal
// type, path components, and the one descriptor walk. On Linux each directory is opened with
// O_NOFOLLOW|O_DIRECTORY through the previous one's /proc/self/fd entry, so a directory swapped for a
// link between two steps is refused, never followed; elsewhere it walks with lstat and the caller checks
// the opened descriptor's device and inode. Callers outside core/ import from confined.ts.
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileProblem } from "./errors.ts";

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

/** Why a file could not be opened or read, in words that quote no content (errors.ts fileProblem, or a refusal). */
export function accessProblem(error: unknown): string {
  if (error instanceof ConfinedPathError) return error.why;
  return fileProblem(error);
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

export const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
export const O_CLOEXEC = (constants as Record<string, number>).O_CLOEXEC ?? 0;

let procFd: boolean | undefined;
/** True when /proc/self/fd can be used for a descriptor walk (Linux). */
export function hasProcFd(): boolean {
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

export function errCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/** Maps an open(2) failure on component `shown` to a refusal; rethrows what is not a refusal. */
export function refusal(error: unknown, shown: string, lastIsFile: boolean, at?: string): never {
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
export function openDirFd(
  root: string,
  parts: string[],
  shown: string,
  create = false,
  mode = 0o755,
): number {
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
export function lstatWalk(root: string, parts: string[], shown: string): Stats {
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

// File-system helpers every lane needs: atomic writes (temp file + rename, so a reader never sees a
// half-written file), exclusive locks that work across processes, and path joins that refuse to
// leave a root. It does not parse formats; lib/<format>.ts does that on top of these.
import { Buffer } from "node:buffer";
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { flockExclusive } from "./runtime.ts";

/** `n` random bytes as hex, for temp names: the web crypto every runtime has (node:crypto costs start-up). */
function randomHex(n: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex");
}

/**
 * Writes a file atomically: a temp file in the same directory, fsync, rename over the target.
 * An existing file's mode is preserved; a new file gets `mode` (default 0o666 less the umask).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: { mode?: number } = {}): void {
  const dir = dirname(path);
  let mode = opts.mode ?? 0o666;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    // new file: keep the requested mode
  }
  const tmp = join(dir, `.${basename(path)}.${randomHex(6)}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** In-process queue per lock path: flock is per open file, so two callers in one process must take turns here first. */
const localQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` holding an exclusive cross-process lock on `lockPath`. Under Bun this is flock(2) on the
 * file itself (the lock dies with the process, so a crash never leaves it held); elsewhere it falls
 * back to an O_EXCL sibling `<lockPath>.excl` that holds the owner's pid and is broken when that pid
 * no longer exists. Callers in the same process are queued, never deadlocked.
 */
export function withFileLock<T>(lockPath: string, fn: () => T | Promise<T>): Promise<T> {
  const key = resolve(lockPath);
  const previous = localQueues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => withProcessLock(lockPath, fn));
  const settled = next.catch(() => undefined);
  localQueues.set(key, settled);
  void settled.then(() => {
    if (localQueues.get(key) === settled) localQueues.delete(key);
  });
  return next;
}

async function withProcessLock<T>(lockPath: string, fn: () => T | Promise<T>): Promise<T> {
  const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND, 0o666);
  try {
    if (await flockExclusive(fd)) return await fn();
    return await withExclLock(`${lockPath}.excl`, fn);
  } finally {
    closeSync(fd); // closing releases a flock
  }
}

async function withExclLock<T>(path: string, fn: () => T | Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      breakIfStale(path);
      // Back off without burning the CPU the lock holder needs: a short synchronous wait.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(50, 1 + attempt));
    }
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // already broken by a waiter that judged us stale; nothing to release
    }
  }
}

function breakIfStale(path: string): void {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path, "utf8"), 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") rmSync(path, { force: true });
  }
}

/** Why a relative path was refused by resolveInside. */
export type PathRefusal = "absolute" | "traversal" | "empty" | "symlink" | "outside";

/**
 * Resolves `rel` under `root`, refusing absolute paths, `..` segments, and (when `noLinks`) any
 * existing symlink on the way. Returns the absolute path or the reason it was refused.
 */
export function resolveInside(
  root: string,
  rel: string,
  opts: { noLinks?: boolean } = {},
): { ok: true; path: string } | { ok: false; reason: PathRefusal } {
  if (rel === "") return { ok: false, reason: "empty" };
  if (isAbsolute(rel)) return { ok: false, reason: "absolute" };
  if (rel.split(/[\\/]/).includes("..")) return { ok: false, reason: "traversal" };
  const base = resolve(root);
  const path = resolve(base, rel);
  const r = relative(base, path);
  if (r.startsWith("..") || isAbsolute(r)) return { ok: false, reason: "outside" };
  if (opts.noLinks) {
    let cur = base;
    for (const part of r.split(sep).filter(Boolean)) {
      cur = join(cur, part);
      try {
        if (lstatSync(cur).isSymbolicLink()) return { ok: false, reason: "symlink" };
      } catch {
        break; // does not exist yet: nothing further can be a link
      }
    }
  }
  return { ok: true, path };
}

/** mkdir -p that returns the path. */
export function ensureDir(path: string, mode = 0o755): string {
  mkdirSync(path, { recursive: true, mode });
  return path;
}

/** True when `path` exists and this process may execute it. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Every executable named `name` in the directories of `searchPath` (a PATH value), in order. */
export function executablesOnPath(name: string, searchPath: string | undefined): string[] {
  return (searchPath ?? "")
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .filter(isExecutable);
}

/** The first executable named `name` on `searchPath`, or null (which(1)). */
export function which(name: string, searchPath: string | undefined): string | null {
  return executablesOnPath(name, searchPath)[0] ?? null;
}

/** Up to `length` bytes of `fd` from `offset` (fewer at the end of the file); the fd's position is not moved. */
export function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** The real path of `p` (links resolved), or `fallback` when there is none (missing, unreadable). */
export function realpathOr(p: string, fallback: string = p): string {
  try {
    return realpathSync(p);
  } catch {
    return fallback;
  }
}

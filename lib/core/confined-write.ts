// Writes under a root that somebody else controls: directories made and files written without
// following a link at any component (the walk in lib/core/_confined-walk.ts), a file written to a temp
// name in the very directory it lands in and renamed into place, or created exclusively. Reads and the
// refusal type are in lib/core/confined.ts.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import {
  ConfinedPathError,
  confinedParts,
  errCode,
  hasProcFd,
  lstatWalk,
  O_CLOEXEC,
  O_NOFOLLOW,
  openDirFd,
  refusal,
} from "./_confined-walk.ts";

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
  const write = (dirPath: string) => writeEntry(dirPath, name, shown, buf, opts);
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

/**
 * Writes `name` inside a directory already open (lib/core/confined.ts openDirConfined): no walk and no
 * second open of the directory per file, for writers of many files into one private directory.
 */
export function writeInDir(
  dir: { path: string },
  name: string,
  data: string | Uint8Array,
  opts: { mode?: number; exclusive?: boolean } = {},
): string {
  const parts = confinedParts(name);
  if (parts.length !== 1) throw new ConfinedPathError(name, "not-regular");
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  writeEntry(dir.path, name, `${dir.path}/${name}`, buf, opts);
  return `${dir.path}/${name}`;
}

/** Creates `name` in `dirPath` (exclusively, or by a temp file renamed over it) and writes `buf`. */
function writeEntry(
  dirPath: string,
  name: string,
  shown: string,
  buf: Uint8Array,
  opts: { mode?: number; exclusive?: boolean },
): void {
  const mode = opts.mode ?? 0o644;
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
}

function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

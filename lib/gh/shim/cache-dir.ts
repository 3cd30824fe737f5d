// Where the per-user cache of cassette indexes lives, and the checks that no one else can put a file
// in it (a planted index could answer a call wrongly; a planted FIFO or device would be opened).
// First choice: `$XDG_CACHE_HOME/proctor/cassette-index` (else `~/.cache/...`), trusted when every
// directory from / down to it, as stat'ed with links followed, is ours or root's and writable by no
// one else: then no one else can have made or can change any link on the way, so plain stats vouch
// for it and a replay checks it without node:fs (lib/core/runtime.ts statFile). A home inside a
// world-writable directory (HOME=/tmp) fails that walk. Second choice, as before:
// `<tmpdir>/proctor-<uid>/cassette-index`, trusted when lstat (node:fs, loaded only then) shows our
// own directory that no one else can write: in a sticky /tmp a stat that follows links cannot tell
// it from another user's link.
import type * as NodeFs from "node:fs";
import { type FileStat, statFile, statFileSync } from "../../core/runtime.ts";

type Env = Record<string, string | undefined>;

/** os.tmpdir() without node:os: TMPDIR, TMP or TEMP, else /tmp, without a trailing slash. */
export function tempRoot(env: Env = process.env): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || "/tmp";
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}

/** `$XDG_CACHE_HOME/proctor/cassette-index`, else `$HOME/.cache/proctor/cassette-index`; null without either. */
export function homeCacheDir(env: Env = process.env): string | null {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg?.startsWith("/") ? xdg : env.HOME?.startsWith("/") ? `${env.HOME}/.cache` : null;
  return base === null ? null : `${base.replace(/\/+$/, "")}/proctor/cassette-index`;
}

/**
 * True when every directory from / down to `dir` (links followed) exists, belongs to `uid` or root and
 * is writable by neither group nor others, and `dir` itself (made 0700) is `uid`'s alone.
 */
export async function safeDir(dir: string, uid: number, stat = statFile): Promise<boolean> {
  const paths = chain(dir);
  if (!paths) return false;
  // One at a time: each stat is a hop to Bun's thread pool, and parallel ones start more threads.
  for (const [i, path] of paths.entries())
    if (!dirOk(await stat(path), uid, i === paths.length - 1)) return false;
  return true;
}

/** `/`, then each directory down to `dir`; null for a relative path or one with `..`. */
function chain(dir: string): string[] | null {
  const parts = dir.split("/").filter((p) => p !== "" && p !== ".");
  if (!dir.startsWith("/") || parts.includes("..")) return null;
  return ["/", ...parts.map((_, i) => `/${parts.slice(0, i + 1).join("/")}`)];
}

function dirOk(st: FileStat | null, uid: number, last: boolean): boolean {
  if (!st?.isDirectory) return false;
  if (last) return st.uid === uid && (st.mode & 0o077) === 0;
  return (st.uid === uid || st.uid === 0) && (st.mode & 0o022) === 0;
}

/** The cache to read from, or null: the home one when safeDir vouches for it, else the temp one. */
export async function readableCacheDir(env: Env = process.env): Promise<string | null> {
  const uid = process.getuid?.();
  const home = homeCacheDir(env);
  if (uid !== undefined && home && (await safeDir(home, uid))) return home;
  return tempCacheDir(env, false);
}

/** The cache to write to, made where missing (0700), or null when neither place is ours alone. */
export function defaultCacheDir(env: Env = process.env): string | null {
  const uid = process.getuid?.();
  const home = homeCacheDir(env);
  const paths = home === null ? null : chain(home);
  // Nothing is made in a home that fails the walk already (HOME=/tmp/...): only missing directories
  // may follow the first one that is not there yet.
  const usable = (st: FileStat | null, i: number) =>
    st === null || dirOk(st, uid ?? -1, i === (paths?.length ?? 0) - 1);
  if (uid !== undefined && home && paths?.every((p, i) => usable(statFileSync(p), i))) {
    try {
      fs().mkdirSync(home, { recursive: true, mode: 0o700 });
      if (paths.every((p, i) => dirOk(statFileSync(p), uid, i === paths.length - 1))) return home;
    } catch {
      // a home we cannot write to: the temp dir instead
    }
  }
  return tempCacheDir(env, true);
}

/** `<tmpdir>/proctor-<user>/cassette-index` (made when `create`), or null when that directory is not ours alone. */
function tempCacheDir(env: Env, create: boolean): string | null {
  try {
    const uid = process.getuid?.();
    const root = `${tempRoot(env)}/proctor-${uid ?? (process.getBuiltinModule("node:os") as { userInfo(): { username: string } }).userInfo().username}`;
    if (create) fs().mkdirSync(root, { recursive: true, mode: 0o700 });
    const st = fs().lstatSync(root);
    if (!st.isDirectory()) return null;
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return null;
    const dir = `${root}/cassette-index`;
    if (create) fs().mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return null;
  }
}

function fs(): typeof NodeFs {
  return process.getBuiltinModule("node:fs") as typeof NodeFs;
}

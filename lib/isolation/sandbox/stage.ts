// Making host files usable by a subject that runs as 65534. A root runner drops privileges before the
// sandbox is built (see _wrap.ts), so the work directory must belong to the subject and every file it
// executes must be readable by "other" along its whole path. The gh shim (dist/proctor, or bun plus
// scripts/) often lives under /root, which 65534 cannot traverse: stage it with stageForSubject().
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../../core/errors.ts";
import { fastHash } from "../../core/runtime.ts";
import type { Sandbox } from "./spec.ts";

/** True when uid/gid may do `want` (r, w, x bits) on `path`, and may search every directory above it. */
export function accessibleBy(path: string, uid: number, gid: number, want: number): boolean {
  if (uid === 0) return true;
  const abs = resolve(path);
  const parts = abs.split("/").filter(Boolean);
  let cur = "/";
  const check = (p: string, bits: number): boolean => {
    const st = statSync(p);
    const shift = st.uid === uid ? 6 : st.gid === gid ? 3 : 0;
    return ((st.mode >> shift) & bits) === bits;
  };
  try {
    for (const part of parts) {
      if (!check(cur, 1)) return false;
      cur = join(cur, part);
    }
    return check(abs, want);
  } catch {
    return false;
  }
}

const R = 4;
const X = 1;

/**
 * Makes `workDir` (recursively, links not followed) owned by the subject uid when the runner is root
 * and the sandbox drops to another uid; a no-op otherwise. Refuses a workDir the subject could not
 * reach because a directory above it is closed to "other" (e.g. under /root).
 */
export function prepareWorkDir(sandbox: Sandbox, workDir: string): void {
  const uid = sandbox.subjectUid;
  const gid = sandbox.subjectGid ?? uid;
  if (uid === null || gid === null || process.getuid?.() !== 0) return;
  const parent = dirname(resolve(workDir));
  if (!accessibleBy(parent, uid, gid, X))
    throw new ConfigError(
      `Cannot prepare sandbox work dir "${workDir}": uid ${uid} cannot reach "${parent}" ` +
        "(make the work dir under the system temp dir)",
      { exitCode: 2 },
    );
  const walk = (p: string): void => {
    const st = lstatSync(p);
    lchownSync(p, uid, gid);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(resolve(workDir));
}

/**
 * Returns a path the subject can read and execute holding `hostPath`'s bytes. When the subject runs as
 * the runner, or can already read the file, that is `hostPath` itself. Otherwise the file is copied
 * (once per content version) to `<cacheRoot>/<key>/<basename>`, mode 0755, in a root-owned directory
 * tree the subject cannot modify. cacheRoot defaults to `<tmpdir>/proctor-subject-<uid>`.
 *
 * Under bwrap the host's /tmp is replaced by a private tmpfs, so pass the staged path as an identity
 * bind (`roBinds: [{ host: p, inside: p }]`); unshare and sandbox-exec see it in place.
 */
export function stageForSubject(sandbox: Sandbox, hostPath: string, cacheRoot?: string): string {
  const uid = sandbox.subjectUid;
  const gid = sandbox.subjectGid ?? uid;
  if (uid === null || gid === null || accessibleBy(hostPath, uid, gid, R | X)) return hostPath;
  const root = cacheRoot ?? join(tmpdir(), `proctor-subject-${process.getuid?.() ?? "x"}`);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const rst = lstatSync(root);
  if (!rst.isDirectory() || rst.uid !== process.getuid?.() || (rst.mode & 0o022) !== 0)
    throw new ConfigError(
      `Cannot stage "${hostPath}" for the subject: "${root}" is not a directory owned by us and closed to others`,
      { exitCode: 2 },
    );
  chmodSync(root, 0o755);
  const st = statSync(hostPath);
  const key = fastHash(`${resolve(hostPath)}\0${st.size}\0${st.mtimeMs}\0${st.ino}`);
  const dir = join(root, key);
  const target = join(dir, basename(hostPath));
  try {
    if (statSync(target).size === st.size) return target;
  } catch {
    // not staged yet
  }
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  copyFileSync(hostPath, tmp);
  chmodSync(tmp, 0o755);
  renameSync(tmp, target);
  if (!accessibleBy(target, uid, gid, R | X))
    throw new ConfigError(`Cannot stage "${hostPath}": uid ${uid} still cannot read "${target}"`, {
      exitCode: 2,
    });
  return target;
}

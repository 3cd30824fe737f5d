// The promotion lock (agent_eval.py `lock`, reference §5.2): digests of a task tree and its rubric,
// written into the committed lock.json, and the check `run` makes before anything starts. The
// digests are the original's, so a lock.json written by either tool verifies under the other:
//   task tree: sha256 over the sorted lines `<relpath>\0<sha256(file) hex>\n` (UTF-8), one per
//              regular file under tasks/<id>/ (relpath `/`-separated, relative to that directory);
//              file modes, mtimes and empty directories are not part of it; a symlink or any
//              other non-regular entry anywhere is refused (ConfigError, exit 3).
//   rubric:    sha256 of rubrics/<id>.json's bytes.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pyJsonDumps } from "../compat/py/json.ts";
import { codepointCompare } from "../compat/py/text.ts";
import { ConfigError } from "../core/errors.ts";
import { writeFileAtomic } from "../core/fsx.ts";
import { sha256Hex } from "../core/hash.ts";
import { type Lock, loadLock, loadPromotionTask, loadRubric } from "./formats.ts";

/** The regular files under `dir` as `/`-separated relative paths; refuses symlinks and special files. */
function regularFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    const child = rel === "" ? name : `${rel}/${name}`;
    const st = lstatSync(join(dir, child));
    if (st.isSymbolicLink()) throw new ConfigError(`task tree has a symlink: ${join(dir, child)}`);
    if (st.isDirectory()) out.push(...regularFiles(dir, child));
    else if (st.isFile()) out.push(child);
    else throw new ConfigError(`task tree has a non-regular file: ${join(dir, child)}`);
  }
  return out;
}

/** The task-tree digest of `taskDir` (the directory itself must not be a symlink). */
export function taskDigest(taskDir: string): string {
  const abs = resolve(taskDir);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(abs);
  } catch {
    throw new ConfigError(`task not found: ${abs}`);
  }
  if (!st.isDirectory()) throw new ConfigError(`task directory is not a real directory: ${abs}`);
  const lines = regularFiles(abs).map((rel) => `${rel}\0${sha256Hex(readFileSync(join(abs, rel)))}\n`);
  lines.sort(codepointCompare);
  return sha256Hex(lines.join(""));
}

/** The rubric digest: sha256 of the file's bytes. */
export function rubricDigest(path: string): string {
  try {
    return sha256Hex(readFileSync(path));
  } catch (error) {
    throw new ConfigError(`Cannot read rubric "${path}": ${(error as Error).message}`, { cause: error });
  }
}

/** lock.json's bytes: sorted keys, indent 2, non-ASCII kept, trailing newline (Python json.dumps). */
export function lockText(lock: Lock): string {
  return `${pyJsonDumps(lock, { sortKeys: true, indent: 2, ensureAscii: false })}\n`;
}

/** What `lock` prints. */
export interface LockResult {
  locked: true;
  task_id: string;
  task_sha256: string;
  rubric_sha256: string;
  lock: string;
}

/**
 * Validates the task and rubric in `store`, then records their digests under `tasks.<id>` in the
 * lock file at `lockPath` (created as `{"tasks": {}, "version": 1}` when missing, its folder too, as
 * the original does; other tasks kept), written atomically with stable bytes. Throws ConfigError on an invalid task, rubric or lock.
 */
export function lockTask(store: string, id: string, lockPath: string): LockResult {
  const task = loadPromotionTask(store, id);
  const rubric = loadRubric(store, id);
  const entry = { rubric_sha256: rubricDigest(rubric.path), task_sha256: taskDigest(task.dir) };
  const path = resolve(lockPath);
  const lock: Lock = existsSync(path) ? loadLock(path) : { tasks: {}, version: 1 };
  lock.tasks[id] = entry;
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, lockText(lock));
  return {
    locked: true,
    task_id: id,
    task_sha256: entry.task_sha256,
    rubric_sha256: entry.rubric_sha256,
    lock: path,
  };
}

/** Why a task may not run, with the original's message. */
export type LockCheck =
  | { ok: true; task_sha256: string; rubric_sha256: string }
  | { ok: false; reason: "not locked" | "task changed" | "rubric changed"; message: string };

/**
 * Compares the task and rubric in `store` with `lock`, in the original's order: not locked, task
 * changed, rubric changed. An invalid task or rubric throws ConfigError (also exit 3 at the edge).
 */
export function checkLocked(store: string, id: string, lock: Lock): LockCheck {
  const task = loadPromotionTask(store, id);
  const rubric = loadRubric(store, id);
  const entry = Object.hasOwn(lock.tasks, id) ? lock.tasks[id] : undefined;
  if (entry === undefined)
    return {
      ok: false,
      reason: "not locked",
      message: `task not locked: ${id} — run \`lock\` and commit the lock`,
    };
  const task_sha256 = taskDigest(task.dir);
  if (task_sha256 !== entry.task_sha256)
    return { ok: false, reason: "task changed", message: `task changed since it was locked: ${id}` };
  const rubric_sha256 = rubricDigest(rubric.path);
  if (rubric_sha256 !== entry.rubric_sha256)
    return { ok: false, reason: "rubric changed", message: `rubric changed since it was locked: ${id}` };
  return { ok: true, task_sha256, rubric_sha256 };
}

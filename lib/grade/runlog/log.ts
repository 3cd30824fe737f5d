// The run-log file itself: rotation into `<stem>-<YYYYMMDDTHHMMSSZ>.jsonl` segments, the tail window
// readers scan (newest K segments + the active log, oldest first), the durable append, the locked
// append-once transaction keyed by event_id, and the failure-streak count. Validation is record.ts.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { parsePyJson, pyJsonDumps } from "../../compat/py/json.ts";
import { pyOSError, pySorted, splitlines, strip, universalNewlines } from "../../compat/py/text.ts";
import { PyFloat, type PyValue, pyEquals } from "../../compat/py/value.ts";
import { withFileLock } from "../../core/fsx.ts";

/** Rotation and tail-window settings (0 disables a rotation trigger). */
export interface LogPolicy {
  rotateMaxBytes: number;
  rotateMaxDays: number;
  tailSegments: number;
}
export const DEFAULT_POLICY: LogPolicy = { rotateMaxBytes: 1024 * 1024, rotateMaxDays: 30, tailSegments: 10 };

/** A record the caller must be told is invalid (exit 3), e.g. a conflicting event_id. */
export class RecordConflict extends Error {}

function stem(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The log's rotated segments, oldest first, at most `limit` of them. */
export function segmentPaths(path: string, limit: number): string[] {
  if (limit <= 0) return [];
  const dir = dirname(path);
  const prefix = `${stem(path)}-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const segments = names
    .filter((n) => n.length >= prefix.length + 6 && n.startsWith(prefix) && n.endsWith(".jsonl"))
    .filter((n) => {
      try {
        return statSync(join(dir, n)).isFile();
      } catch {
        return false;
      }
    });
  return pySorted(segments)
    .slice(-limit)
    .map((n) => join(dir, n));
}

function readText(path: string): string {
  const bytes = readFileSync(path);
  return universalNewlines(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes));
}

/** Lines across the tail window, oldest first; `readable` when any component could be read. */
export function readLogLines(path: string, limit: number): { lines: string[]; readable: boolean } {
  const lines: string[] = [];
  let readable = false;
  for (const candidate of [...segmentPaths(path, limit), path]) {
    try {
      lines.push(...splitlines(readText(candidate)));
      readable = true;
    } catch {
      // unreadable or undecodable component: skipped
    }
  }
  return { lines, readable };
}

/** Whether an append should rotate first: size at or above max bytes, or idle (mtime) for max days. */
export function rotationDue(path: string, policy: LogPolicy, now = Date.now()): boolean {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    return false;
  }
  if (policy.rotateMaxBytes > 0 && st.size >= policy.rotateMaxBytes) return true;
  return policy.rotateMaxDays > 0 && (now - st.mtimeMs) / 1000 >= policy.rotateMaxDays * 86400;
}

/** Renames the active log to a timestamped segment (same-second collisions get `-N`). */
export function rotateLog(path: string, now = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, "") + "Z";
  const base = join(dirname(path), `${stem(path)}-${stamp}`);
  let target = `${base}.jsonl`;
  for (let n = 1; existsSync(target); n++) target = `${base}-${n}.jsonl`;
  renameSync(path, target);
  return target;
}

/** Rotates when due; a failed rename is a warning (returned) and the append goes ahead. */
export function maybeRotate(
  path: string,
  policy: LogPolicy,
  shownPath = path,
): { segment?: string; warning?: string } {
  if (policy.rotateMaxBytes <= 0 && policy.rotateMaxDays <= 0) return {};
  if (!rotationDue(path, policy)) return {};
  try {
    return { segment: rotateLog(path) };
  } catch (error) {
    return {
      warning: `⚠ gi-runlog: could not rotate ${shownPath} — appending anyway (${pyOSError(error)})`,
    };
  }
}

/** Appends `line` + "\n" durably (parents created, fsync before close). */
export function appendLine(path: string, line: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "a");
  try {
    const buf = Buffer.from(`${line}\n`, "utf8");
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `record` unless a record with its event_id is already in the tail window, all under an
 * exclusive lock on `<log>.lock`. Returns "appended" or "already_present"; throws RecordConflict
 * for a same-id record with a different payload (`ts` ignored when the caller did not supply one),
 * and fs errors (exit 4) for an unreadable active log.
 */
export async function appendOnce(
  path: string,
  record: Record<string, unknown>,
  opts: { tsWasSupplied: boolean; policy: LogPolicy; shownPath?: string; warn?: (line: string) => void },
): Promise<"appended" | "already_present"> {
  const eventId = record.event_id;
  if (typeof eventId !== "string") throw new RecordConflict("--append-once requires event_id");
  mkdirSync(dirname(path), { recursive: true });
  const lockPath = `${path}.lock`;
  return withFileLock(lockPath, () => {
    const { warning } = maybeRotate(path, opts.policy, opts.shownPath);
    if (warning) opts.warn?.(warning);
    const lines: string[] = [];
    for (const segment of segmentPaths(path, opts.policy.tailSegments)) {
      try {
        lines.push(...splitlines(readText(segment)));
      } catch {
        // an unreadable segment only narrows the dedup window
      }
    }
    try {
      lines.push(...splitlines(readText(path)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new Error(`cannot read existing log for append-once — ${pyOSError(error)}`, { cause: error });
      }
    }
    for (const raw of lines) {
      let existing: PyValue;
      try {
        existing = parsePyJson(raw);
      } catch {
        continue;
      }
      if (!isObject(existing) || existing.event_id !== eventId) continue;
      const candidate: Record<string, unknown> = { ...record };
      if (!opts.tsWasSupplied) candidate.ts = Object.hasOwn(existing, "ts") ? existing.ts : null;
      if (pyEquals(existing, candidate)) return "already_present";
      throw new RecordConflict(`event_id '${eventId}' already exists with a conflicting payload`);
    }
    appendLine(path, pyJsonDumps(record, { ensureAscii: false, separators: [",", ":"] }));
    return "appended";
  });
}

function isObject(v: PyValue): v is { [key: string]: PyValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

/** Leading run of `failed` outcomes for `issue`, scanning newest first; other issues are skipped. */
export function countFailureStreak(lines: readonly string[], issue: number | bigint): number {
  let streak = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const raw = strip(lines[i]!);
    if (!raw) continue;
    let rec: PyValue;
    try {
      rec = parsePyJson(raw);
    } catch {
      continue;
    }
    if (!isObject(rec) || !pyEquals(rec.issue ?? null, issue)) continue;
    if (rec.outcome !== "failed") break;
    streak++;
  }
  return streak;
}

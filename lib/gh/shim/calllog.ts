// The gh call log (EVAL_GH_CALL_LOG): one line per invocation, byte-identical to gh_shim.py's
// `json.dumps({"argv": normalized}, ensure_ascii=False) + "\n"`, appended with one write() under an
// exclusive lock so parallel calls never interleave. A failure is a warning, never fatal: the
// grader, not the subject, decides what a missing line means. The log is opened O_NONBLOCK and must
// be a regular file: a FIFO left at its path would otherwise block every gh call forever.
import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { pyJsonDumps } from "../../compat/py/json.ts";
import { flockExclusive } from "../../core/runtime.ts";

/** The exact call-log line for a normalised argv, newline included. */
export function callLogLine(normalized: readonly string[]): string {
  return `${pyJsonDumps({ argv: normalized }, { ensureAscii: false })}\n`;
}

// flock is per open file: two appends in one process would block each other's thread, so callers
// in this process take turns here first (the lock then orders us against other processes).
let turn: Promise<unknown> = Promise.resolve();

/**
 * Appends the line for `normalized` to `path` (one write, exclusive lock). Returns the warning to
 * print on failure, or null.
 */
export function appendCallLog(path: string, normalized: readonly string[]): Promise<string | null> {
  const mine = turn.then(() => appendLocked(path, normalized));
  turn = mine.catch(() => undefined);
  return mine;
}

async function appendLocked(path: string, normalized: readonly string[]): Promise<string | null> {
  const line = Buffer.from(callLogLine(normalized), "utf8");
  let fd: number | undefined;
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NONBLOCK;
    fd = openSync(path, flags, 0o666);
    if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
    // O_APPEND makes one write land whole at the end; the flock also orders writers elsewhere.
    await flockExclusive(fd);
    let off = 0;
    while (off < line.length) off += writeSync(fd, line, off, line.length - off);
    return null;
  } catch (error) {
    return `⚠ gh shim: cannot append to EVAL_GH_CALL_LOG ${path}: ${describeOsError(error)}\n`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** An OSError-like description: `[Errno 13] Permission denied: '<path>'` is Python's; we keep it short. */
export function describeOsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message.replace(/^[A-Z]+: /, "")}` : String(e?.message ?? error);
}

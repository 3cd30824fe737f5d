// Collecting what a subject left behind. The runner may be root and everything under WORK belongs to
// the subject, so nothing here follows a link the subject could have planted: OUT must still be a
// directory, the call log is streamed (capped, never a FIFO, no link followed: lib/hermetic/copy.ts)
// over (never through) whatever sits at OUT/gh-calls.jsonl, and OUT may not hold a link that leaves
// OUT (the grader would otherwise read, say, /etc/shadow as root and quote it in its report).
import { lstatSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative } from "node:path";
import { ConfinedPathError } from "../core/confined.ts";
import { copyConfined } from "./copy.ts";

/** True when `out` is still a real directory (not a link, not replaced by a file). */
export function outIsDirectory(out: string): boolean {
  try {
    return lstatSync(out).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Replaces `<out>/<name>` with `data`, removing whatever was there first (a link is removed, not
 * followed). The subject has exited; an exclusive create still refuses anything that reappeared.
 * No fsync: the work directory is thrown away after grading.
 */
export function replaceInOut(out: string, name: string, data: string | Uint8Array): void {
  const path = join(out, name);
  rmSync(path, { recursive: true, force: true });
  writeFileSync(path, data, { flag: "wx", mode: 0o644 });
}

/**
 * Publishes `<workRoot>/<callLog>` as OUT/gh-calls.jsonl, streamed and capped at `maxBytes`. A log
 * that is missing is not published (null); one that is no longer a regular file (a FIFO, a link) or
 * is over the cap is refused: nothing is published and the refusal is returned for one line.
 */
export function publishCallLog(
  workRoot: string,
  callLog: string,
  out: string,
  maxBytes: number,
): ConfinedPathError | null {
  const dest = join(out, "gh-calls.jsonl");
  rmSync(dest, { recursive: true, force: true });
  try {
    copyConfined(workRoot, callLog, dest, maxBytes);
    return null;
  } catch (error) {
    if (!(error instanceof ConfinedPathError)) throw error;
    return error.reason === "missing" ? null : error;
  }
}

/** Paths (relative to OUT) of links under OUT whose target is outside OUT or does not resolve. */
export function linksLeaving(out: string): string[] {
  const root = realpathSync(out);
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isSymbolicLink()) {
        let target: string | null = null;
        try {
          target = realpathSync(path);
        } catch {
          target = null;
        }
        const rel = target === null ? ".." : relative(root, target);
        if (rel.startsWith("..") || isAbsolute(rel)) found.push(relative(out, path));
      }
    }
  };
  walk(out);
  return found;
}

/**
 * The subject's output with the work directory's copy of the cassette named as the case's own
 * `cassettes.json`, so a miss (`  cassette: <path>`) points at the file to edit, not at a copy that
 * is deleted with WORK. A case without one ran on an empty cassette, and the line says so.
 */
export function showCaseCassette(text: string, workCassettes: string, caseDir: string): string {
  if (!text.includes(workCassettes)) return text;
  const own = join(caseDir, "cassettes.json");
  const shown =
    basename(workCassettes) === "cassettes.json"
      ? own
      : `${own} (not there: the case ran on an empty cassette)`;
  return text.replaceAll(workCassettes, shown);
}

// The diff grader and the /work snapshots it compares: before the agent (after the task's setup,
// the repository's starting state) and after it, each `cksum` of every regular file outside .git
// (POSIX, so any image has it). Changed = added, modified or deleted paths, sorted. The grader then
// checks max_files_changed, must_not_change and must_change, in the original's order and wording.
import type { Grade } from "../scorecard/schema.ts";
import { type Exec, stderrTail } from "./exec.ts";
import { anyGlobMatches } from "./glob.ts";
import type { Grader } from "./spec.ts";

type DiffGrader = Extract<Grader, { type: "diff" }>;

/** path -> "checksum size" of every regular file under /work outside .git. */
export type Snapshot = Map<string, string>;

/** The snapshot command, run with /work as its directory. */
export const SNAPSHOT_ARGV = ["sh", "-c", "find . -path ./.git -prune -o -type f -exec cksum {} +"];

/** Parses `cksum` lines ("sum size ./path"). */
export function parseSnapshot(stdout: string): Snapshot {
  const out: Snapshot = new Map();
  for (const line of stdout.split("\n")) {
    const m = /^(\S+) (\S+) (.+)$/.exec(line);
    if (m) out.set(m[3]!.replace(/^\.\//, ""), `${m[1]} ${m[2]}`);
  }
  return out;
}

/** Takes a snapshot of /work, or says why it could not. */
export async function snapshot(
  exec: Exec,
): Promise<{ ok: true; files: Snapshot } | { ok: false; error: string }> {
  const r = await exec(SNAPSHOT_ARGV);
  if (r.exitCode === 0 && !r.timedOut && !r.infraError) return { ok: true, files: parseSnapshot(r.stdout) };
  const why = r.infraError ?? (r.timedOut ? "timed out" : "<nil>");
  return { ok: false, error: `snapshot (exit ${r.exitCode ?? -1}, err ${why}): ${stderrTail(r.stderr)}` };
}

/** Added, modified and deleted paths between two snapshots, in code-point order. */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [p, sum] of after) if (before.get(p) !== sum) out.push(p);
  for (const p of before.keys()) if (!after.has(p)) out.push(p);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Grades the changed paths against `g`. */
export function diffGrade(g: DiffGrader, changed: readonly string[]): Grade {
  const fail = (detail: string): Grade => ({ grader: "diff", pass: false, detail });
  if (g.maxFilesChanged > 0 && changed.length > g.maxFilesChanged)
    return fail(`${changed.length} files changed, max ${g.maxFilesChanged}: ${changed.join(", ")}`);
  for (const p of changed) if (anyGlobMatches(g.mustNotChange, p)) return fail(`changed protected path ${p}`);
  for (const glob of g.mustChange)
    if (!changed.some((p) => anyGlobMatches([glob], p))) return fail(`nothing matching ${glob} changed`);
  return { grader: "diff", pass: true, detail: `${changed.length} files changed` };
}

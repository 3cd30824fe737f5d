// The diff grader over the /work snapshots of snapshot.ts (before the agent and after it): changed =
// added, modified and deleted paths, sorted, .git and links included (a link is its target, a FIFO
// or unreadable entry its kind: each a change like any other). The grader then checks
// max_files_changed, must_not_change and must_change, in the original's order and wording.
import type { Grade } from "../scorecard/schema.ts";
import { type Exec, stderrTail } from "./exec.ts";
import { anyGlobMatches } from "./glob.ts";
import { changes, parseListing, SNAPSHOT_ARGV, type Snapshot } from "./snapshot.ts";
import type { Grader } from "./spec.ts";

type DiffGrader = Extract<Grader, { type: "diff" }>;

/**
 * Takes a snapshot of /work, or says why it could not. find's non-zero status is taken only when the
 * listing names a directory it could not read (itself recorded, so a change all the same).
 */
export async function snapshot(
  exec: Exec,
): Promise<{ ok: true; files: Snapshot } | { ok: false; error: string }> {
  const r = await exec(SNAPSHOT_ARGV);
  if (r.exitCode === 0 && !r.timedOut && !r.infraError) {
    const listing = parseListing(r.stdout);
    if ("error" in listing) return { ok: false, error: `snapshot: ${listing.error}` };
    const explained = [...listing.files.values()].some((e) => e.kind === "unreadable-dir");
    if (listing.status === 0 || explained) return { ok: true, files: listing.files };
    return { ok: false, error: `snapshot (find exit ${listing.status}): ${stderrTail(r.stderr)}` };
  }
  const why = r.infraError ?? (r.timedOut ? "timed out" : "<nil>");
  return { ok: false, error: `snapshot (exit ${r.exitCode ?? -1}, err ${why}): ${stderrTail(r.stderr)}` };
}

/** Added, modified and deleted paths between two snapshots, in code-point order. */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  return changes(before, after).map((c) => c.path);
}

/** A path as a grade shows it: as it is, or JSON-quoted when it holds a control character. */
export function showPath(p: string): string {
  return /[\u0000-\u001f\u007f]/.test(p) ? JSON.stringify(p) : p;
}

/** Grades the changed paths against `g`. */
export function diffGrade(g: DiffGrader, changed: readonly string[]): Grade {
  const fail = (detail: string): Grade => ({ grader: "diff", pass: false, detail });
  if (g.maxFilesChanged > 0 && changed.length > g.maxFilesChanged)
    return fail(
      `${changed.length} files changed, max ${g.maxFilesChanged}: ${changed.map(showPath).join(", ")}`,
    );
  for (const p of changed)
    if (anyGlobMatches(g.mustNotChange, p)) return fail(`changed protected path ${showPath(p)}`);
  for (const glob of g.mustChange)
    if (!changed.some((p) => anyGlobMatches([glob], p))) return fail(`nothing matching ${glob} changed`);
  return { grader: "diff", pass: true, detail: `${changed.length} files changed` };
}

// repo_scripts: the case's list of repository scripts the subject may run. Checked before any subject
// starts, by default exactly as run_eval.sh's snippet did (a list of strings fully matching
// src/shared/scripts/<name>.py, each a regular file under the repository root), and stricter in one
// place: no symlink anywhere on the path, not only the last component. `run-eval --scripts-root DIR`
// lets a case name any file under DIR of the repository instead (`.`: anywhere in it), for a
// repository laid out otherwise: still a relative path with no `..`, a regular file reached through no
// link. Valid entries are copied flat (by their names) into EVAL_SCRIPTS_DIR, read through
// lib/core/confined.ts, so the subject never reaches the checkout. A refusal ends with the rule.
import { closeSync, fstatSync, readSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pyRepr } from "../compat/py/repr.ts";
import { isPyDict } from "../compat/py/value.ts";
import { openConfined } from "../core/confined.ts";
import { resolveInside } from "../core/fsx.ts";
import { REPO_SCRIPT_RE, repoScriptAllowed, repoScriptsRule } from "../grade/repo-scripts.ts";

/** The rule itself is the case format's (lib/grade/repo-scripts.ts), shared with `grade lint`. */
export { REPO_SCRIPT_RE, repoScriptsRule };

/** Valid: the entries to copy (relative to the repository). Invalid: the detail lines run_eval.sh printed. */
export type RepoScriptsCheck = { ok: true; sources: string[] } | { ok: false; problems: string[] };

/**
 * Checks `case.repo_scripts` against `repoRoot`. `data` is the parsed case.json (anything): a case that
 * is not an object lists no scripts (grading refuses it later), as in the original.
 */
export function checkRepoScripts(data: unknown, repoRoot: string, scriptsRoot?: string): RepoScriptsCheck {
  if (!isPyDict(data) || !("repo_scripts" in data)) return { ok: true, sources: [] };
  const entries = data.repo_scripts;
  if (!Array.isArray(entries)) return { ok: false, problems: ["  repo_scripts must be a list"] };
  const problems: string[] = [];
  const sources: string[] = [];
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (typeof entry !== "string" || !repoScriptAllowed(entry, scriptsRoot)) {
      problems.push(`  repo_scripts entry not allowed: ${pyRepr(entry)}`);
      continue;
    }
    if (!isRegularInside(repoRoot, entry)) {
      problems.push(`  repo_scripts entry is not a regular file: ${entry}`);
      continue;
    }
    const name = basename(entry);
    const first = names.get(name);
    if (first !== undefined && first !== entry) {
      problems.push(`  repo_scripts entries ${first} and ${entry} share the name ${name}`);
      continue;
    }
    names.set(name, entry);
    if (first === undefined) sources.push(entry);
  }
  return problems.length ? { ok: false, problems } : { ok: true, sources };
}

/** A regular file at `rel` under `root`, with no link at any component. */
function isRegularInside(root: string, rel: string): boolean {
  if (!resolveInside(root, rel, { noLinks: true }).ok) return false;
  try {
    closeSync(openConfined(root, rel).fd);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies each checked entry (relative to `repoRoot`) into `scriptsDir` under its own name, mode kept;
 * read through the confined opener, so a link swapped in after the check is refused, never followed.
 * Returns the copied paths.
 */
export function copyRepoScripts(repoRoot: string, sources: string[], scriptsDir: string): string[] {
  return sources.map((rel) => {
    const dest = join(scriptsDir, basename(rel));
    const { fd, size } = openConfined(repoRoot, rel);
    try {
      const bytes = Buffer.alloc(size);
      let at = 0;
      while (at < size) {
        const n = readSync(fd, bytes, at, size - at, at);
        if (n === 0) break;
        at += n;
      }
      writeFileSync(dest, bytes.subarray(0, at), { mode: fstatSync(fd).mode & 0o777, flag: "wx" });
    } finally {
      closeSync(fd);
    }
    return dest;
  });
}

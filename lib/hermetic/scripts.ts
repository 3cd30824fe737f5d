// repo_scripts: the case's list of shared repository scripts the subject may run. Checked before any
// subject starts, exactly as run_eval.sh's snippet did (a list of strings fully matching the pattern,
// each a regular file under the repository root), and stricter in one place: no symlink anywhere on
// the path, not only the last component. Valid entries are copied flat into EVAL_SCRIPTS_DIR, so the
// subject never reaches the checkout.
import { copyFileSync, lstatSync } from "node:fs";
import { basename, join } from "node:path";
import { pyRepr } from "../compat/py/repr.ts";
import { isPyDict } from "../compat/py/value.ts";
import { resolveInside } from "../core/fsx.ts";

/** The only shape an entry may take (run_eval.sh's re.fullmatch pattern). */
export const REPO_SCRIPT_RE = /^src\/shared\/scripts\/[a-z0-9]+(?:-[a-z0-9]+)*[.]py$/;

/** Valid: the absolute sources to copy. Invalid: the detail lines run_eval.sh printed. */
export type RepoScriptsCheck = { ok: true; sources: string[] } | { ok: false; problems: string[] };

/**
 * Checks `case.repo_scripts` against `repoRoot`. `data` is the parsed case.json (anything): a case that
 * is not an object lists no scripts (grading refuses it later), as in the original.
 */
export function checkRepoScripts(data: unknown, repoRoot: string): RepoScriptsCheck {
  if (!isPyDict(data) || !("repo_scripts" in data)) return { ok: true, sources: [] };
  const entries = data.repo_scripts;
  if (!Array.isArray(entries)) return { ok: false, problems: ["  repo_scripts must be a list"] };
  const problems: string[] = [];
  const sources: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== "string" || !REPO_SCRIPT_RE.test(entry)) {
      problems.push(`  repo_scripts entry not allowed: ${pyRepr(entry)}`);
      continue;
    }
    const at = resolveInside(repoRoot, entry, { noLinks: true });
    let regular = false;
    if (at.ok) {
      try {
        regular = lstatSync(at.path).isFile();
      } catch {
        regular = false;
      }
    }
    if (!at.ok || !regular) {
      problems.push(`  repo_scripts entry is not a regular file: ${entry}`);
      continue;
    }
    sources.push(at.path);
  }
  return problems.length ? { ok: false, problems } : { ok: true, sources };
}

/** Copies each checked source into `scriptsDir` under its own name; returns the copied paths. */
export function copyRepoScripts(sources: string[], scriptsDir: string): string[] {
  return sources.map((src) => {
    const dest = join(scriptsDir, basename(src));
    copyFileSync(src, dest);
    return dest;
  });
}

// What a case's repo_scripts entry may be, the one rule `grade lint` and run-eval both hold a case to
// (lib/hermetic/scripts.ts checks the files themselves against the repository): by default exactly
// run_eval.sh's pattern, src/shared/scripts/<name>.py; under `--scripts-root DIR` any relative path
// under DIR without `..` (`.`: anywhere in the repository). Words only: no file is read here.
import { posix } from "node:path";

/** The only shape an entry may take by default (run_eval.sh's re.fullmatch pattern). */
export const REPO_SCRIPT_RE = /^src\/shared\/scripts\/[a-z0-9]+(?:-[a-z0-9]+)*[.]py$/;

/** `./tools/` -> `tools`, `.` -> "". */
function normalRoot(root: string): string {
  const n = posix.normalize(root.replaceAll("\\", "/")).replace(/\/+$/, "");
  return n === "." ? "" : n;
}

/** Whether `entry` may be named under `scriptsRoot` (undefined: run_eval.sh's pattern). */
export function repoScriptAllowed(entry: string, scriptsRoot?: string): boolean {
  if (scriptsRoot === undefined) return REPO_SCRIPT_RE.test(entry);
  if (entry === "" || entry.startsWith("/") || entry.includes("\\")) return false;
  const parts = entry.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return false;
  const root = normalRoot(scriptsRoot);
  return root === "" || entry.startsWith(`${root}/`);
}

/** What an entry must be, as a lint finding words it: `expected <this>, got '...'`. */
export function repoScriptsWanted(scriptsRoot?: string): string {
  if (scriptsRoot === undefined)
    return "src/shared/scripts/<name>.py (lowercase words joined by -; --scripts-root DIR, as run-eval is given it, takes others)";
  const root = normalRoot(scriptsRoot);
  return `a path under ${root === "" ? "the repository" : `${root}/`} without ".."`;
}

/** The rule a refusal ends with, for the default or a --scripts-root. */
export function repoScriptsRule(scriptsRoot?: string): string {
  if (scriptsRoot === undefined)
    return "  an entry is src/shared/scripts/<name>.py (<name>: lowercase letters and digits, words joined by -), a regular file reached through no link; run-eval --scripts-root DIR takes any file under DIR of --repo instead";
  const root = normalRoot(scriptsRoot);
  return `  an entry is a path under ${root === "" ? "the root" : `${root}/`} of the repository (--scripts-root) without "..", a regular file reached through no link; each name once (they are copied flat)`;
}

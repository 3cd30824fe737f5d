// The bundled example cases (evals/cases): where they are and how to list them, for the tests that
// hold every case to the same rules (examples, cases-offline).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./tools.ts";

/** The cases root. */
export const CASES_ROOT = join(REPO_ROOT, "evals", "cases");

/** One example case: its `<skill>/<case>` name and absolute directory. */
export interface ExampleCase {
  name: string;
  dir: string;
}

function findCases(dir: string): string[] {
  if (existsSync(join(dir, "case.json"))) return [dir];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? findCases(join(dir, n)) : []));
}

/** Every case under `root` (default evals/cases), sorted by name. */
export function exampleCases(root = CASES_ROOT): ExampleCase[] {
  return findCases(root).map((dir) => ({ name: relative(root, dir), dir }));
}

/** The case's repo_scripts list (empty when it has none). */
export function repoScripts(dir: string): string[] {
  const data = JSON.parse(readFileSync(join(dir, "case.json"), "utf8")) as { repo_scripts?: unknown };
  return Array.isArray(data.repo_scripts) ? data.repo_scripts.map(String) : [];
}

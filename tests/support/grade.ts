// Test helpers for grade: write a case and its artifacts into a directory, and run the grade CLI as a
// child process ({stdout, stderr, exitCode} together).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { run } from "../../lib/core/proc.ts";

/** The repository root (grade's default repo root when run from it). */
export const REPO = join(import.meta.dirname, "..", "..");

/** Where the grade fixtures live. */
export const FIXTURES = join(REPO, "tests", "fixtures", "grade");

/** Writes `case.json` (an object, or raw text) under `<root>/case` and each file under `<root>/out`. */
export function writeCase(
  root: string,
  data: unknown,
  files: Record<string, string | Uint8Array> = {},
): { caseDir: string; outDir: string } {
  const caseDir = join(root, "case");
  const outDir = join(root, "out");
  mkdirSync(caseDir, { recursive: true });
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(caseDir, "case.json"),
    typeof data === "string" ? data : `${JSON.stringify(data, null, 2)}\n`,
  );
  for (const [rel, content] of Object.entries(files)) {
    const path = join(outDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return { caseDir, outDir };
}

/** What a CLI run printed and returned. */
export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** Runs `scripts/grade.ts <args>` from the repository root. */
export async function runGradeCli(
  args: string[],
  opts: { input?: string; cwd?: string } = {},
): Promise<CliRun> {
  const r = await run([process.execPath, join(REPO, "scripts", "grade.ts"), ...args], {
    cwd: opts.cwd ?? REPO,
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1", REPO_ROOT: "" } as Record<string, string>,
  });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
}

/** True when text carries a JavaScript stack frame line. */
export function hasStack(text: string): boolean {
  return /^ {4}at /m.test(text);
}

#!/usr/bin/env bun
// The README's main job on the bundled examples (a dev script, not shipped in the binary): lints
// every case under evals/cases and grades its committed golden artifacts (expected/), exactly as
// the grader sees a subject's OUT. When run-eval lands (#3) this also runs each subject sandboxed.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { main as grade } from "./grade.ts";

const ROOT = join(import.meta.dirname, "..");
const CASES = join(ROOT, process.argv[2] ?? "evals/cases");

function findCases(dir: string): string[] {
  if (existsSync(join(dir, "case.json"))) return [dir];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? findCases(join(dir, name)) : []));
}

let failed = 0;
const cases = findCases(CASES);
for (const dir of cases) {
  process.stdout.write(`\n── ${relative(ROOT, dir)}\n`);
  const lint = await grade(["lint", dir]);
  const graded = await grade(["--case", dir, "--out", join(dir, "expected")]);
  if (lint !== 0 || graded !== 0) failed++;
}
process.stdout.write(`\n${cases.length - failed} passed, ${failed} failed (${cases.length} example cases)\n`);
process.exitCode = failed === 0 && cases.length > 0 ? 0 : 1;

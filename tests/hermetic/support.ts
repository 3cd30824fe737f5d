// Helpers for the run-eval tests: write a throw-away case (case.json, subject.sh, cassettes) and run
// the tool as a child process, with a private TMPDIR (readable by the subject uid) so a test can see
// that every work directory was removed.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { type TempDir, tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

/** A case to write: the subject's bash body (after the contract prologue) and its grade list. */
export interface CaseSpec {
  name: string;
  body?: string;
  grade?: unknown[];
  /** Extra case.json fields (repo_scripts, ...), or raw text to write instead of the object. */
  extra?: Record<string, unknown>;
  raw?: string;
  cassettes?: unknown;
  noSubject?: boolean;
  noCase?: boolean;
}

const CALLS_PUBLISHED = {
  tool: "file-exists",
  file: "OUT/gh-calls.jsonl",
  label: "the call log is published",
};

/** Writes the case under `<root>/<name>` and returns its directory. */
export function writeEvalCase(root: string, spec: CaseSpec): string {
  const dir = join(root, spec.name);
  mkdirSync(dir, { recursive: true });
  if (!spec.noCase) {
    const data = { name: spec.name, grade: spec.grade ?? [CALLS_PUBLISHED], ...spec.extra };
    writeFileSync(join(dir, "case.json"), spec.raw ?? `${JSON.stringify(data, null, 2)}\n`);
  }
  if (!spec.noSubject) {
    const subject = `#!/usr/bin/env bash\nset -euo pipefail\nOUT="\${EVAL_OUT:?EVAL_OUT is required}"\n${spec.body ?? ""}\n`;
    writeFileSync(join(dir, "subject.sh"), subject, { mode: 0o644 });
  }
  if (spec.cassettes !== undefined)
    writeFileSync(join(dir, "cassettes.json"), `${JSON.stringify(spec.cassettes, null, 2)}\n`);
  return dir;
}

/** A private TMPDIR for the runner that the subject uid can traverse (mkdtemp makes 0700); removed on dispose. */
export function openTmp(): TempDir {
  const dir = tempDir("run-eval-tmpdir");
  chmodSync(dir.path, 0o755);
  return dir;
}

/** Runs `bun scripts/run-eval.ts args` with a clean environment plus `env`. */
export function runEval(
  args: string[],
  env: Record<string, string> = {},
  cwd = REPO_ROOT,
): Promise<ProcResult> {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/",
  };
  return run([BIN.bun, join(REPO_ROOT, "scripts", "run-eval.ts"), ...args], {
    cwd,
    env: { ...base, CI: "true", ...env },
    timeoutMs: 300_000,
  });
}

/** `n` trivial cases (the subject does nothing, one assertion) under `root`, for overhead and -j measurements. */
export function writeTrivialCases(root: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    writeEvalCase(root, { name: `trivial-${String(i).padStart(3, "0")}`, body: "" }),
  );
}

// The hermetic subject contract (originals.md 7.4 T3, evals/cases/README.md "subject.sh"): a case's
// subject.sh as facts, so a test compares them with toEqual and a failure names every broken rule.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";

/** Words a hermetic subject must never contain (network tools, installers, record mode, escapes). */
export const FORBIDDEN = [
  /\bcurl\b/,
  /\bwget\b/,
  /\bnc\b/,
  /\bssh\b/,
  /\bpip3?\b/,
  /\bnpm\b/,
  /EVAL_RECORD/,
  /REPO_ROOT/,
  /\.\.\/\.\.\//,
  /src\/shared\/scripts/,
];

/** What the contract looks at in one subject. */
export interface SubjectFacts {
  shebang: string | undefined;
  strict: boolean;
  out: boolean;
  executable: boolean;
  forbidden: string[];
  syntax: number | null;
  name: unknown;
}

/** Reads `<caseDir>/subject.sh` (and case.json's name) into SubjectFacts; runs `bash -n` on it. */
export async function subjectFacts(caseDir: string): Promise<SubjectFacts> {
  const path = join(caseDir, "subject.sh");
  const text = readFileSync(path, "utf8");
  const syntax = await run(["bash", "-n", path]);
  return {
    shebang: text.split("\n")[0],
    strict: /^set -euo pipefail$/m.test(text),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell text itself, not a template
    out: text.includes('OUT="${EVAL_OUT:?EVAL_OUT is required}"'),
    executable: (statSync(path).mode & 0o777) === 0o755,
    forbidden: FORBIDDEN.filter((re) => re.test(text)).map(String),
    syntax: syntax.exitCode,
    name: JSON.parse(readFileSync(join(caseDir, "case.json"), "utf8")).name,
  };
}

/** The facts of a subject that keeps the contract, for the case called `name`. */
export function contractKept(name: string): SubjectFacts {
  return {
    shebang: "#!/usr/bin/env bash",
    strict: true,
    out: true,
    executable: true,
    forbidden: [],
    syntax: 0,
    name,
  };
}

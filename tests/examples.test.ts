// The bundled example cases (evals/cases) are data users copy: each must be a good case (grade lint),
// its subject must keep the hermetic contract (originals.md 7.4 T3), and its committed golden
// artifacts must grade to exit 0, so the README's main command passes on a fresh clone.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { lintCase } from "../lib/grade/lint.ts";
import { gradeCase } from "../lib/grade/runner.ts";
import { run } from "../lib/proc.ts";
import { REPO_ROOT } from "./support/tools.ts";

const CASES = join(REPO_ROOT, "evals", "cases");

function findCases(dir: string): string[] {
  if (existsSync(join(dir, "case.json"))) return [dir];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? findCases(join(dir, n)) : []));
}

const cases = findCases(CASES).map((dir) => ({ name: relative(CASES, dir), dir }));

/** Words a hermetic subject must never contain (network tools, installers, record mode, escapes). */
const FORBIDDEN = [
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

test("there are example cases", () => {
  expect(cases.length).toBeGreaterThanOrEqual(8);
});

describe.each(cases)("$name", ({ name, dir }) => {
  test("passes grade lint", () => {
    expect(lintCase(dir).findings).toEqual([]);
  });

  test("subject keeps the hermetic contract", async () => {
    const path = join(dir, "subject.sh");
    const text = readFileSync(path, "utf8");
    const syntax = await run(["bash", "-n", path]);
    expect({
      shebang: text.split("\n")[0],
      strict: text.includes("set -euo pipefail"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell text itself, not a template
      out: text.includes('"${EVAL_OUT:?EVAL_OUT is required}"'),
      executable: (statSync(path).mode & 0o111) !== 0,
      forbidden: FORBIDDEN.filter((re) => re.test(text)).map(String),
      syntax: syntax.exitCode,
      name: JSON.parse(readFileSync(join(dir, "case.json"), "utf8")).name,
    }).toEqual({
      shebang: "#!/usr/bin/env bash",
      strict: true,
      out: true,
      executable: true,
      forbidden: [],
      syntax: 0,
      name,
    });
  });

  test("its golden artifacts grade to exit 0", async () => {
    const result = await gradeCase(dir, join(dir, "expected"), { repoRoot: REPO_ROOT });
    expect(result.assertions.filter((a) => !a.ok)).toEqual([]);
  });
});

// The bundled example cases (evals/cases) are data users copy: each must be a good case (grade lint),
// its subject must keep the hermetic contract (originals.md 7.4 T3), and its committed golden
// artifacts must grade to exit 0, so the README's main command passes on a fresh clone.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { lintCase } from "../lib/grade/lint.ts";
import { gradeCase } from "../lib/grade/runner.ts";
import { exampleCases } from "./support/cases.ts";
import { contractKept, subjectFacts } from "./support/subject-contract.ts";
import { REPO_ROOT } from "./support/tools.ts";

const cases = exampleCases();

test("there are example cases", () => {
  expect(cases.length).toBeGreaterThanOrEqual(8);
});

describe.each(cases)("$name", ({ name, dir }) => {
  test("passes grade lint", () => {
    expect(lintCase(dir).findings).toEqual([]);
  });

  test("subject keeps the hermetic contract", async () => {
    expect(await subjectFacts(dir)).toEqual(contractKept(name));
  });

  test("its golden artifacts grade to exit 0", async () => {
    const result = await gradeCase(dir, join(dir, "expected"), { repoRoot: REPO_ROOT });
    expect(result.assertions.filter((a) => !a.ok)).toEqual([]);
  });
});

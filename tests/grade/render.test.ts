import { expect, test } from "bun:test";
import { renderGrade, verdictLine } from "../../lib/grade/render.ts";
import type { AssertionResult, GradeResult } from "../../lib/grade/result.ts";

const base = { index: 0, tool: "idd-lint", want: 0, got: 0, reason: null, output: [] };
const RULE = "┄".repeat(40);

test("verdict lines in grade.py's format", () => {
  const cases: AssertionResult[] = [
    { ...base, label: "passes", ok: true },
    { ...base, label: "mismatch", ok: false, got: 1 },
    { ...base, label: "did not run", ok: false, got: null },
    { ...base, label: "refused", ok: false, got: null, reason: "rejected before execution: x" },
    {
      ...base,
      label: null,
      tool: null,
      ok: false,
      want: null,
      got: null,
      reason: "non-object grade assertion",
    },
  ];
  expect(cases.map(verdictLine)).toEqual([
    "  ✓ passes",
    "  ✗ mismatch (want exit 0, got 1)",
    "  ✗ did not run (want exit 0, got None)",
    "  ✗ refused — rejected before execution: x",
    "  ✗ non-object grade assertion",
  ]);
});

test("the report: header, each tool's output lines then the verdict they lead to (grade.py's order), rules, summary", () => {
  const result: GradeResult = {
    version: 1,
    name: "s/c",
    caseDir: "/c",
    outDir: "/o",
    passed: false,
    counts: { passed: 1, failed: 1 },
    assertions: [
      { ...base, label: "a", ok: true },
      { ...base, index: 1, label: "b", ok: false, got: 1, output: ["x", "y"] },
    ],
  };
  expect(renderGrade(result)).toEqual(
    `◆ grade s/c\n${RULE}\n  ✓ a\n    │ x\n    │ y\n  ✗ b (want exit 0, got 1)\n${RULE}\n✗ grade failed: 1 passed, 1 failed\n`,
  );
  const passed = {
    ...result,
    passed: true,
    counts: { passed: 2, failed: 0 },
    assertions: [result.assertions[0]!],
  };
  expect(renderGrade(passed)).toEqual(`◆ grade s/c\n${RULE}\n  ✓ a\n${RULE}\n✓ grade passed: 2 assertions\n`);
});

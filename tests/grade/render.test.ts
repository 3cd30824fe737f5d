import { expect, test } from "bun:test";
import { renderGrade, verdictLine } from "../../lib/grade/render.ts";
import type { AssertionResult, GradeResult } from "../../lib/grade/result.ts";

const base = { index: 0, tool: "idd-lint", want: 0, got: 0, reason: null, output: [] };
const RULE = "┄".repeat(40);

/** Case s/c: one assertion passed, one failed. */
const resultOf = (assertions: AssertionResult[]): GradeResult => ({
  version: 1,
  name: "s/c",
  caseDir: "/c",
  outDir: "/o",
  passed: false,
  counts: { passed: 1, failed: 1 },
  assertions,
});

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
  const result = resultOf([
    { ...base, label: "a", ok: true },
    { ...base, index: 1, label: "b", ok: false, got: 1, output: ["x", "y"] },
  ]);

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

const NEGATIVE: AssertionResult = {
  ...base,
  tool: "gi-runlog-echo",
  label: "rejected",
  ok: true,
  want: 3,
  got: 3,
  output: ["✗ gi-runlog: bad"],
};
const GENERAL: AssertionResult = {
  ...base,
  index: 1,
  tool: "file-not-contains",
  label: "c",
  ok: false,
  got: 1,
  reason: 'OUT/a: want no match of "x", got 1',
  output: ['line 1: "x"'],
};

// issue 26: on a terminal, a check that passed because its tool failed as asked shows the tool's
// output dimmed and says so; without colour the bytes stay grade.py's. A general check's lines follow
// its verdict, which says what it wanted and got.
test.each([
  {
    name: "no colour: grade.py's bytes",
    color: false,
    want: `◆ grade s/c\n${RULE}\n    │ ✗ gi-runlog: bad\n  ✓ rejected\n  ✗ c — OUT/a: want no match of "x", got 1\n    │ line 1: "x"\n${RULE}\n✗ grade failed: 1 passed, 1 failed\n`,
  },
  {
    name: "colour: the expected failure dimmed and named",
    color: true,
    want: `◆ grade s/c\n${RULE}\n\u001b[2m    │ ✗ gi-runlog: bad\u001b[22m\n  ✓ rejected\u001b[2m (the tool failed as expected: exit 3)\u001b[22m\n  ✗ c — OUT/a: want no match of "x", got 1\n    │ line 1: "x"\n${RULE}\n✗ grade failed: 1 passed, 1 failed\n`,
  },
])("a passing negative check and a general check: $name", ({ color, want }) => {
  const result = { ...resultOf([]), assertions: [NEGATIVE, GENERAL] };
  expect(renderGrade(result, { color })).toEqual(want);
});

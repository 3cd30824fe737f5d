import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { HANDLERS } from "../../lib/grade/handlers.ts";
import type { AssertionResult } from "../../lib/grade/result.ts";
import { gradeAssertion, gradeCase } from "../../lib/grade/runner.ts";
import type { GradeContext, GradeHandler } from "../../lib/grade/types.ts";
import { FIXTURES, REPO, writeCase } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const row = (
  index: number,
  label: string | null,
  tool: string | null,
  ok: boolean,
  want: number | null,
  got: number | null,
  reason: string | null = null,
) => ({
  index,
  label,
  tool,
  ok,
  want,
  got,
  reason,
  output: [],
});

describe("gradeCase", () => {
  test("grades leniently where grade.py was lenient (fixture 'lenient')", async () => {
    const dir = join(FIXTURES, "lenient");
    const result = await gradeCase(join(dir, "case"), join(dir, "out"), { repoRoot: REPO });
    expect(result).toEqual({
      version: 1,
      name: "t/lenient",
      caseDir: join(dir, "case"),
      outDir: join(dir, "out"),
      passed: false,
      counts: { passed: 3, failed: 10 },
      assertions: [
        row(0, null, null, false, null, null, "non-object grade assertion"),
        row(1, "an unknown tool", "no-such-tool", false, 0, null, "unknown tool 'no-such-tool'"),
        row(2, "no tool at all", null, false, 0, null, "unknown tool None"),
        row(3, 'expect_exit "0" is int("0")', "file-exists", true, 0, 0),
        row(4, "expect_exit 0.9 is int(0.9) = 0", "file-exists", true, 0, 0),
        {
          ...row(5, "expect_exit true is 1", "file-exists", false, 1, 0),
          output: ["OUT/there.txt exists, but expect_exit 1 wants it absent"],
        },
        row(
          6,
          "expect_exit null is not an integer",
          "file-exists",
          false,
          null,
          null,
          "expect_exit must be an integer, got None",
        ),
        row(
          7,
          'expect_exit "zero" is not an integer',
          "file-exists",
          false,
          null,
          null,
          "expect_exit must be an integer, got 'zero'",
        ),
        row(8, "args must be a list", "idd-lint", false, 0, null, "args must be a list"),
        row(9, "file-exists expect_exit=0", "file-exists", true, 0, 0),
        row(10, "red-green without file", "red-green", false, 0, null, "red-green requires 'file'"),
        row(
          11,
          "gi-runlog-echo without file",
          "gi-runlog-echo",
          false,
          0,
          null,
          "gi-runlog-echo requires 'file'",
        ),
        row(12, "file-exists without file", "file-exists", false, 0, null, "file-exists requires 'file'"),
      ],
    });
  });

  test("the name falls back to the directory; OUT is resolved; T13 OUTPUT.md stays relative", async () => {
    using tmp = tempDir("grade-runner");
    const { caseDir, outDir } = writeCase(
      tmp.path,
      {
        grade: [
          { tool: "file-exists", file: "OUT/OUTPUT.md", label: "OUT/OUTPUT.md is in OUT" },
          { tool: "file-exists", file: "OUTPUT.md", expect_exit: 1, label: "OUTPUT.md is not substituted" },
          { tool: "file-exists", file: "TIMEOUT", label: "TIMEOUT is not substituted" },
        ],
      },
      { "OUTPUT.md": "x" },
    );
    writeFileSync(join(tmp.path, "TIMEOUT"), "t");
    const result = await gradeCase(caseDir, outDir, { repoRoot: REPO, cwd: tmp.path });
    expect({ name: result.name, passed: result.passed, oks: result.assertions.map((a) => a.ok) }).toEqual({
      name: "case",
      passed: true,
      oks: [true, true, true],
    });
  });

  test("an unusable case throws ConfigError", async () => {
    using tmp = tempDir("grade-runner");
    const { caseDir, outDir } = writeCase(tmp.path, { name: "x/y", grade: [] });
    await expect(gradeCase(caseDir, outDir)).rejects.toEqual(
      new ConfigError("case x/y: grade section missing or empty"),
    );
  });
});

test("gradeAssertion: a label that is not a string is printed with str()", async () => {
  const ctx: GradeContext = { outDir: "/nonexistent-out", repoRoot: REPO, cwd: "/" };
  expect(
    await gradeAssertion({ tool: "file-exists", file: "OUT/x", label: 5, expect_exit: 1 }, 0, ctx),
  ).toEqual(row(0, "5", "file-exists", true, 1, 1));
});

test("gradeAssertion: a tool that throws fails its line and grading goes on", async () => {
  const handlers = HANDLERS as Record<string, GradeHandler>;
  const original = handlers["red-green"]!;
  handlers["red-green"] = async () => {
    throw new Error("EIO: i/o error");
  };
  try {
    const ctx: GradeContext = { outDir: "/nonexistent-out", repoRoot: REPO, cwd: "/" };
    expect(await gradeAssertion({ tool: "red-green", file: "OUT/x", label: "l" }, 0, ctx)).toEqual(
      row(0, "l", "red-green", false, 0, null, "grading tool failed: EIO: i/o error"),
    );
  } finally {
    handlers["red-green"] = original;
  }
});

// issue 26: a general check's verdict says what it wanted and got, in one line; a check that fails as
// expect_exit asks prints nothing beside its ✓ (its excerpt lines printed like a failure's).
test.each<{
  name: string;
  a: Record<string, unknown> & { tool: string };
  want: Pick<AssertionResult, "ok" | "want" | "got" | "reason" | "output">;
}>([
  {
    name: "holds as wanted",
    a: { tool: "file-contains", file: "OUT/r.md", text: "done", label: "l" },
    want: { ok: true, want: 0, got: 0, reason: null, output: [] },
  },
  {
    name: "does not hold",
    a: { tool: "file-contains", file: "OUT/r.md", text: "nope", label: "l" },
    want: {
      ok: false,
      want: 0,
      got: 1,
      reason: 'OUT/r.md: want at least 1 match of "nope", got 0',
      output: [],
    },
  },
  {
    name: "a negative check that passes: no lines",
    a: { tool: "file-not-contains", file: "OUT/r.md", text: "TODO", expect_exit: 1, label: "l" },
    want: { ok: true, want: 1, got: 1, reason: null, output: [] },
  },
  {
    name: "a negative check that fails: what expect_exit 1 wanted",
    a: { tool: "file-contains", file: "OUT/r.md", text: "TODO", expect_exit: 1, label: "l" },
    want: {
      ok: false,
      want: 1,
      got: 0,
      reason: 'OUT/r.md: want no match of "TODO" (expect_exit 1), got 1 (first at line 2)',
      output: [],
    },
  },
  {
    name: "an expect_exit no check gives",
    a: { tool: "json-path", file: "OUT/r.json", path: "a", equals: 1, expect_exit: 2, label: "l" },
    want: {
      ok: false,
      want: 2,
      got: 0,
      reason:
        "OUT/r.json at a: expect_exit 2 never matches: this check gives 0 (it holds) or 1 (it does not)",
      output: [],
    },
  },
])("gradeAssertion, a general check: $name", async ({ a, want }) => {
  using tmp = tempDir("grade-check");
  writeFileSync(join(tmp.path, "r.md"), "done\nTODO x\n");
  writeFileSync(join(tmp.path, "r.json"), '{"a": 1}');
  const ctx: GradeContext = { outDir: tmp.path, repoRoot: REPO, cwd: tmp.path };
  expect(await gradeAssertion(a, 0, ctx)).toEqual({ index: 0, label: "l", tool: a.tool, ...want });
});

import { expect, test } from "bun:test";
import { CASE_TOOLS } from "../../lib/grade/case.ts";
import { GRADE_HANDLERS, isGradeTool } from "../../lib/grade/handlers.ts";

test("GRADE_HANDLERS has exactly the six grade.py tools (test-promotion T11)", () => {
  expect(Object.keys(GRADE_HANDLERS).sort()).toEqual([
    "file-exists",
    "gh-calls",
    "gi-runlog-echo",
    "idd-lint",
    "red-green",
    "shell",
  ]);
  expect(Object.keys(GRADE_HANDLERS)).toEqual([...CASE_TOOLS]);
});

test("isGradeTool knows only those names", () => {
  expect(["shell", "gh-calls", "toString", "__proto__", "bash", 1, null].map(isGradeTool)).toEqual([
    true,
    true,
    false,
    false,
    false,
    false,
    false,
  ]);
});

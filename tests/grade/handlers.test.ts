import { expect, test } from "bun:test";
import { CASE_TOOLS, IDD_TOOLS } from "../../lib/grade/case.ts";
import { GENERAL_HANDLERS, GRADE_HANDLERS, HANDLERS, isGradeTool } from "../../lib/grade/handlers.ts";

test("GRADE_HANDLERS has exactly the six grade.py tools (test-promotion T11)", () => {
  expect(Object.keys(GRADE_HANDLERS).sort()).toEqual([
    "file-exists",
    "gh-calls",
    "gi-runlog-echo",
    "idd-lint",
    "red-green",
    "shell",
  ]);
  expect(Object.keys(GRADE_HANDLERS)).toEqual([...IDD_TOOLS]);
});

test("the general tools sit beside the six; HANDLERS is every tool a case may name", () => {
  expect(Object.keys(GENERAL_HANDLERS)).toEqual([
    "file-contains",
    "file-not-contains",
    "file-equals",
    "json-path",
    "command",
  ]);
  expect(Object.keys(HANDLERS)).toEqual([...CASE_TOOLS]);
});

test("isGradeTool knows only those names", () => {
  expect(["shell", "gh-calls", "command", "toString", "__proto__", "bash", 1, null].map(isGradeTool)).toEqual(
    [true, true, true, false, false, false, false, false],
  );
});

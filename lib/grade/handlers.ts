// The grade tools by name: GRADE_HANDLERS is exactly grade.py's (the six IDD tools, test-promotion
// T11), GENERAL_HANDLERS the general tools beside them (lib/grade/general.ts, lib/grade/command.ts).
// The runner looks a tool up in both; anything else is an "unknown tool" failure line, not an error.

import { ghCallsTool } from "./calls.ts";
import type { CaseTool } from "./case.ts";
import { commandTool } from "./command.ts";
import { fileExistsTool, redGreenTool } from "./files.ts";
import { fileContainsTool, fileEqualsTool, fileNotContainsTool, jsonPathTool } from "./general.ts";
import { iddLintTool, shellTool } from "./idd.ts";
import { runlogEchoTool } from "./runlog.ts";
import type { GradeHandler } from "./types.ts";

/** grade.py's six tools, as they were. */
export const GRADE_HANDLERS = {
  "idd-lint": iddLintTool,
  "gi-runlog-echo": runlogEchoTool,
  "file-exists": fileExistsTool,
  "red-green": redGreenTool,
  shell: shellTool,
  "gh-calls": ghCallsTool,
} as const satisfies Record<string, GradeHandler>;

/** The general tools: what users check beyond the IDD rule pack. */
export const GENERAL_HANDLERS = {
  "file-contains": fileContainsTool,
  "file-not-contains": fileNotContainsTool,
  "file-equals": fileEqualsTool,
  "json-path": jsonPathTool,
  command: commandTool,
} as const satisfies Record<string, GradeHandler>;

/** Every tool a grade assertion may name. */
export const HANDLERS = { ...GRADE_HANDLERS, ...GENERAL_HANDLERS } as const satisfies Record<
  CaseTool,
  GradeHandler
>;

/** A tool name HANDLERS knows. */
export type GradeTool = keyof typeof HANDLERS;

/** True when `tool` names a grade tool (one of the six or a general one). */
export function isGradeTool(tool: unknown): tool is GradeTool {
  return typeof tool === "string" && Object.hasOwn(HANDLERS, tool);
}

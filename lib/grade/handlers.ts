// The grade tools by name: exactly grade.py's GRADE_HANDLERS. The runner looks a tool up here;
// anything else is an "unknown tool" failure line, not an error.

import { ghCallsTool } from "./calls.ts";
import type { CaseTool } from "./case.ts";
import { fileExistsTool, redGreenTool } from "./files.ts";
import { iddLintTool, shellTool } from "./idd.ts";
import { runlogEchoTool } from "./runlog.ts";
import type { GradeHandler } from "./types.ts";

/** The six tools a grade assertion may name. */
export const GRADE_HANDLERS = {
  "idd-lint": iddLintTool,
  "gi-runlog-echo": runlogEchoTool,
  "file-exists": fileExistsTool,
  "red-green": redGreenTool,
  shell: shellTool,
  "gh-calls": ghCallsTool,
} as const satisfies Record<CaseTool, GradeHandler>;

/** A tool name GRADE_HANDLERS knows. */
export type GradeTool = keyof typeof GRADE_HANDLERS;

/** True when `tool` names one of the six grade tools. */
export function isGradeTool(tool: unknown): tool is GradeTool {
  return typeof tool === "string" && Object.hasOwn(GRADE_HANDLERS, tool);
}

// The machine-readable result of `grade --json` and of `grade lint --json`: one zod schema each, with
// a version, so reports and CI can read a grade without parsing the text. The text form is
// lib/grade/render.ts; both are built from the same GradeResult.
import { z } from "zod";

/** One graded assertion. */
export const AssertionResult = z
  .object({
    index: z.number().int().min(0).describe("position in the case's grade list"),
    label: z.string().nullable().describe("the label printed; null for a non-object assertion"),
    tool: z.string().nullable().describe("the tool named, when it was a string"),
    ok: z.boolean(),
    want: z.number().int().nullable().describe("expect_exit after int(); null when it was not an integer"),
    got: z.number().int().nullable().describe("the tool's exit; null when it did not run or was refused"),
    reason: z.string().nullable().describe("why the assertion failed without a comparison"),
    output: z.array(z.string()).describe("up to 20 lines of tool output, shown when it exited non-zero"),
  })
  .strict();
export type AssertionResult = z.infer<typeof AssertionResult>;

/** The result of grading one case. */
export const GradeResult = z
  .object({
    version: z.literal(1),
    name: z.string().describe("case.name, else the case directory's name"),
    caseDir: z.string(),
    outDir: z.string(),
    passed: z.boolean(),
    counts: z.object({ passed: z.number().int().min(0), failed: z.number().int().min(0) }).strict(),
    assertions: z.array(AssertionResult),
  })
  .strict();
export type GradeResult = z.infer<typeof GradeResult>;

/** One finding of `grade lint`. */
export const LintFinding = z
  .object({
    file: z.string(),
    path: z.string().describe('the field, e.g. "grade[2].expect_exit"; "" for the whole case'),
    message: z.string().describe("what was expected"),
    runEval: z
      .enum(["refuses", "runs"])
      .describe("whether run-eval refuses the case for it, or runs it anyway (an authoring rule)"),
  })
  .strict();
export type LintFinding = z.infer<typeof LintFinding>;

/** The result of `grade lint CASE --json`. */
export const LintReport = z
  .object({ version: z.literal(1), file: z.string(), ok: z.boolean(), findings: z.array(LintFinding) })
  .strict();
export type LintReport = z.infer<typeof LintReport>;

/** The JSON Schema committed as schemas/grade-result.schema.json. */
export function gradeResultJsonSchema(): unknown {
  return z.toJSONSchema(GradeResult);
}

// The machine-readable result of `run-eval --json`: one zod schema with a version, so CI and reports
// read a run without parsing the text. Built from the same CaseOutcome list as the text summary.
import { z } from "zod";
import { ShardStamp } from "../core/shard-set.ts";
import { GradeResult } from "../grade/result.ts";
import { IsolationProofSchema } from "../isolation/sandbox/index.ts";
import type { CaseOutcome } from "./case-run.ts";

/** pass: exit 0; fail: an assertion failed (1); error: refused, unusable, isolation, or the subject's own code. */
export const CaseVerdict = z.enum(["pass", "fail", "error"]);
export type CaseVerdict = z.infer<typeof CaseVerdict>;

/** One case of a run. */
export const CaseRunResult = z
  .object({
    name: z.string().describe("case.name, else the case directory's name"),
    caseDir: z.string(),
    result: CaseVerdict,
    exitCode: z.number().int().describe("this case's run_eval.sh exit code"),
    stage: z
      .enum(["refused", "subject", "isolation", "grade", "done"])
      .describe("where the case stopped: refused before the subject, or in the subject, isolation, grade"),
    message: z.string().nullable().describe("why it did not pass (the ✗ line), null when it passed"),
    assertions: z
      .object({ passed: z.number().int().min(0), total: z.number().int().min(0) })
      .strict()
      .nullable()
      .describe("null when the case was not graded"),
    durationMs: z.number().min(0),
    subjectMs: z.number().min(0).nullable().describe("the subject's own run time; null when it never ran"),
    kept: z.string().nullable().describe("where --keep put OUT and the logs"),
    grade: GradeResult.nullable(),
    sandbox: IsolationProofSchema.nullable().describe("the isolation proof written to OUT/sandbox.json"),
    output: z.string().describe("the case's whole text output (stdout and stderr, in order)"),
  })
  .strict();
export type CaseRunResult = z.infer<typeof CaseRunResult>;

/** A whole run-eval invocation. */
export const RunResult = z
  .object({
    version: z.literal(1),
    ok: z.boolean().describe("every case passed"),
    exitCode: z.number().int().describe("0, else the highest case code"),
    jobs: z.number().int().min(1),
    mechanism: z.string().describe("the sandbox mechanism in force"),
    durationMs: z.number().min(0),
    counts: z
      .object({
        passed: z.number().int().min(0),
        failed: z.number().int().min(0),
        errors: z.number().int().min(0),
      })
      .strict(),
    cases: z.array(CaseRunResult),
    shard: ShardStamp.optional().describe("run-eval --shard K/N only: which part of the whole run this is"),
  })
  .strict();
export type RunResult = z.infer<typeof RunResult>;

/** The JSON Schema committed as schemas/run-result.schema.json. */
export function runResultJsonSchema(): unknown {
  return z.toJSONSchema(RunResult);
}

/** pass / fail / error for an exit code. */
export function verdictOf(code: number): CaseVerdict {
  return code === 0 ? "pass" : code === 1 ? "fail" : "error";
}

/** One case's result record. */
export function caseResult(o: CaseOutcome): CaseRunResult {
  return {
    name: o.name,
    caseDir: o.caseDir,
    result: verdictOf(o.exitCode),
    exitCode: o.exitCode,
    stage: o.stage,
    message: o.message,
    assertions: o.grade
      ? { passed: o.grade.counts.passed, total: o.grade.counts.passed + o.grade.counts.failed }
      : null,
    durationMs: o.durationMs,
    subjectMs: o.subjectMs,
    kept: o.kept,
    grade: o.grade,
    sandbox: o.sandbox,
    output: o.chunks.map((c) => c.text).join(""),
  };
}

/** What a run's record says beside its cases. */
export interface RunFacts {
  jobs: number;
  mechanism: string;
  durationMs: number;
  exitCode: number;
}

/** The whole run's result record. */
export function runResult(outcomes: readonly CaseOutcome[], opts: RunFacts): RunResult {
  return resultOfCases(outcomes.map(caseResult), opts);
}

/** A run's record from its case records (a run's, or a merge's of its shards'). */
export function resultOfCases(cases: CaseRunResult[], opts: RunFacts): RunResult {
  const count = (v: CaseVerdict) => cases.filter((c) => c.result === v).length;
  return {
    version: 1,
    ok: opts.exitCode === 0,
    exitCode: opts.exitCode,
    jobs: opts.jobs,
    mechanism: opts.mechanism,
    durationMs: opts.durationMs,
    counts: { passed: count("pass"), failed: count("fail"), errors: count("error") },
    cases,
  };
}

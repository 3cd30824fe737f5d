// The run-log record format (`.gitissue/runs.jsonl`, written by gi-runlog.py) and its validator:
// the zod schema for documentation and the JSON Schema, plus re-exports of the exact-behaviour
// port in lib/grade/runlog/*. Validation that must match the original's messages is normalizeRecord,
// not the schema (zod cannot report `unknown key(s): a, b` in the original's order and words).
import { z } from "zod";

export { PyJsonError, parsePyJson } from "../../compat/py/json.ts";
export { PyFloat, pyEquals } from "../../compat/py/value.ts";
export { decodeUtf8, type RunlogRun, runRunlog } from "./cli.ts";
export {
  appendLine,
  appendOnce,
  countFailureStreak,
  DEFAULT_POLICY,
  type LogPolicy,
  readLogLines,
  rotateLog,
  rotationDue,
  segmentPaths,
} from "./log.ts";
export {
  AGENT_OVERRIDES,
  COMPLEXITY_COLLAPSE,
  KEY_ORDER,
  type NormalizeResult,
  normalizeRecord,
  OUTCOMES_BY_SKILL,
  PROFILES,
  policyCeiling,
} from "./record.ts";

const int = z.int();

/** One normalized run-log line (the shape normalizeRecord emits; strict: no other keys). */
export const RunlogRecord = z
  .object({
    ts: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      .describe("UTC instant, filled from the clock when absent"),
    event_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
      .optional(),
    issue: int,
    mode: z.string().min(1),
    skill: z.enum(["issue-resolver", "auto-pilot"]),
    complexity: z
      .enum(["low", "medium", "high"])
      .optional()
      .describe("trivial→low and complex→high on input"),
    profile: z.enum(["light", "full"]).optional(),
    agent_overrides: z.enum(["applied", "partial", "fallback"]).optional(),
    qa_cycles: int.min(0).optional(),
    ceiling: int.min(1).optional().describe("default: light 1, high 5, else 2"),
    breach_reason: z.string().optional().describe("required (non-blank) when qa_cycles exceeds the ceiling"),
    outcome: z.enum([
      "success",
      "already_resolved",
      "failed",
      "merged",
      "left_open",
      "partial_followup",
      "blocked_by_dependency",
      "skipped",
    ]),
    pr: int.nullable(),
    duration_s: int.optional(),
    phases: z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/), int.min(0)).optional(),
    skipped_reason: z.string().optional(),
  })
  .strict();
export type RunlogRecord = z.infer<typeof RunlogRecord>;

/** The JSON Schema committed as schemas/runlog-record.schema.json. */
export function runlogRecordJsonSchema(): unknown {
  return z.toJSONSchema(RunlogRecord);
}

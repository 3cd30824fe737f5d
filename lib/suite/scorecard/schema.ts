// The task-suite file formats: a Trial (one JSONL line per finished trial) and the Scorecard JSON.
// Both are supersets of the original halo eval's (originals.md §6.3, §6.6): its field names kept, in
// its order, so a scorecard it wrote parses unchanged; fields the rich original adds, and any we do
// not know, are kept as they are (loose objects). Ours are optional and follow the original's.
import { z } from "zod";
import { ConfigError } from "../../core/errors.ts";
import { firstIssue, parseJsonl } from "../../core/jsonl.ts";
import { DATA, readInput } from "../input.ts";
import { Metered, Mismatch } from "../meter/format.ts";

const count = z.number().int().min(0);
const rate = z.number().min(0).max(1);

/** Why a trial failed outside the agent: such a trial is counted and shown, never scored. */
export const INFRA_KINDS = ["image", "start", "copy", "setup", "cleanup", "cancelled", "other"] as const;
export type InfraKind = (typeof INFRA_KINDS)[number];

/** Metrics a harness CLI may not report (Codex and Gemini report no cost). */
export const METRICS = ["cost", "turns", "tokens", "toolCalls", "toolErrors"] as const;

/**
 * One grader's outcome on one trial (the rich original's Grade): `error` means the grader could not
 * give a verdict (a missing judge, an unreadable snapshot), which is never a pass and is counted apart
 * from a failure; `score` is the judge's weighted score in [0, 1].
 */
export const Grade = z.looseObject({
  grader: z
    .string()
    .optional()
    .describe("the type, then :path (file) or :rubric id@version (judge); always written, read leniently"),
  pass: z.boolean(),
  score: rate.optional(),
  rubric: z.string().optional(),
  detail: z.string().optional(),
  error: z.string().optional(),
  order: z
    .object({ criteria: z.array(z.string()), files: z.array(z.string()) })
    .optional()
    .describe("a judge's seeded answer order: the rubric's criteria and the changed files as shown"),
  shown: z
    .object({
      changed: count,
      files: count,
      truncated: z.array(z.string()),
      omitted: count,
      omittedPaths: z.array(z.string()),
    })
    .optional()
    .describe(
      "what a judge was shown: paths changed, paths shown (those truncated named), paths omitted (the first 100 named)",
    ),
});
export type Grade = z.infer<typeof Grade>;

/**
 * One finished trial: the original's fields, then ours. A tampered trial is a fail on the agent's
 * merits: one that says it passed, or that it failed outside the agent (`infra`, left out of every
 * rate and re-run by --resume), is refused, so every reader scores it alike.
 */
export const Trial = z
  .looseObject({
    task: z.string().min(1),
    variant: z.string().min(1),
    repeat: count.describe("the repeat index within task x variant"),
    pass: z.boolean().describe("the check exited 0 and nothing failed to execute"),
    costUSD: z.number().min(0),
    turns: count,
    wallMs: z.number().min(0).describe("agent wall time in milliseconds"),
    tokens: count,
    toolErrors: count,
    error: z.string().optional().describe("the first failure of the trial, if any"),
    toolCalls: count.optional(),
    seed: z
      .number()
      .min(0)
      .optional()
      .describe(
        "the newer original's per-trial seed (a uint64: FNV-1a of the suite seed, task and repeat); read, never written",
      ),
    grades: z.array(Grade).optional().describe("the task's and suite's graders' results, in order"),
    graderError: z
      .string()
      .optional()
      .describe("the first grader that gave no verdict, `<grader>: <why>`; the trial does not pass"),
    version: z.literal(1).optional(),
    setupFailed: z
      .literal(true)
      .optional()
      .describe("a task setup command failed: the trial is scored as a fail (the original's semantics)"),
    infra: z
      .enum(INFRA_KINDS)
      .optional()
      .describe("set when the trial failed outside the agent: counted and shown, left out of every rate"),
    log: z
      .string()
      .optional()
      .describe(
        "the trial's log (each phase's exit, stdout and stderr), relative to the trials file's directory",
      ),
    unreported: z
      .array(z.enum(METRICS))
      .optional()
      .describe("metrics the harness CLI did not report (their values are 0, not measured)"),
    meter: Metered.optional().describe(
      "what the model bridge forwarded, counted on the host: the source of costUSD, tokens and turns when present",
    ),
    mismatch: z
      .array(Mismatch)
      .min(1)
      .optional()
      .describe("figures the agent's own output reported that differ from the bridge's count"),
    transcript: z
      .string()
      .optional()
      .describe("the trial's transcript (JSON; its page beside it as .html), relative like `log`"),
    reward: z
      .number()
      .optional()
      .describe("Harbor tasks: the verifier's reward (reward.txt, or reward.json's), non-binary values kept"),
    rewards: z
      .record(z.string(), z.number())
      .optional()
      .describe("Harbor tasks: every number of reward.json"),
    tampered: z
      .array(z.string())
      .min(1)
      .optional()
      .describe(
        "Harbor tasks: what the agent changed that the verifier relies on (`K /path: why`, K from docker diff); the trial fails, scored, counted apart",
      ),
  })
  .superRefine((t, ctx) => {
    if (t.tampered === undefined) return;
    if (t.pass) ctx.addIssue({ code: "custom", message: "a tampered trial cannot pass", path: ["pass"] });
    if (t.infra !== undefined)
      ctx.addIssue({
        code: "custom",
        message: "a tampered trial is the agent's fail, not an infrastructure failure",
        path: ["infra"],
      });
  });
export type Trial = z.infer<typeof Trial>;

/** The original's verdict words, and ours when the evidence is too thin for any (scorecard/verdict.ts). */
export const Verdict = z.enum(["better", "worse", "no_significant_difference", "insufficient"]);

/** One variant's row: the original's fields, the rich original's, then ours. */
export const VariantScore = z.looseObject({
  name: z.string().min(1),
  trials: count.describe("every trial of the variant, infrastructure failures included"),
  pass1: rate,
  pass1CILo: rate,
  pass1CIHi: rate,
  costPerTaskUSD: z.number().min(0).describe("mean cost over (scored) trials"),
  wallP50Ms: z.number().min(0),
  wallP95Ms: z.number().min(0),
  tokens: count,
  toolErrors: count,
  errors: count.describe("trials with a non-empty error (infrastructure failures not included)"),
  harness: z.string().optional(),
  version: z.string().optional().describe("rich original: the harness version, not a format version"),
  model: z.string().optional(),
  provider: z.string().optional(),
  k: count.optional(),
  passAtK: rate.optional(),
  passHatK: rate.optional(),
  toolCalls: count.optional(),
  gradeErrors: count.optional().describe("trials with a graderError (present when the run had graders)"),
  judgeScore: rate.optional().describe("mean judge score over the variant's judged grades"),
  meanReward: z
    .number()
    .optional()
    .describe("Harbor tasks: the mean reward over scored trials (one without a reward counts 0)"),
  tasks: count.optional().describe("tasks with at least one scored trial"),
  meanTurns: z.number().min(0).optional(),
  infraFailures: count.optional(),
  tampered: count
    .optional()
    .describe(
      "Harbor tasks: trials whose agent changed what the verifier relies on, each a fail in pass@1 (never an infrastructure failure); absent when none",
    ),
  setupFailures: count.optional().describe("scored trials whose task setup failed (each also a fail)"),
  pass1TaskCILo: rate.optional().describe("pass@1 interval resampling tasks, not trials"),
  pass1TaskCIHi: rate.optional(),
  costCILo: z
    .number()
    .min(0)
    .optional()
    .describe("Cost/task (the mean cost of one trial) interval resampling tasks"),
  costCIHi: z.number().min(0).optional(),
  wallMeanMs: z.number().min(0).optional(),
  wallMeanCILo: z.number().min(0).optional().describe("mean wall time interval resampling tasks"),
  wallMeanCIHi: z.number().min(0).optional(),
  scored: count
    .optional()
    .describe(
      "trials with a scored result (scorecard/evidence.ts): no infrastructure or setup failure, no grader error, an agent that ran",
    ),
  failureReasons: z
    .array(z.object({ reason: z.string(), count: count }))
    .optional()
    .describe("the most common reasons its trials did not pass, most first (at most 5)"),
  unreported: z
    .array(z.enum(METRICS))
    .optional()
    .describe("metrics none of its scored trials reported: shown as not measured, their 0 is no figure"),
});
export type VariantScore = z.infer<typeof VariantScore>;

/** A paired (by task) bootstrap estimate of candidate - control for one gate metric (lib/suite/gate.ts). */
export const MetricDelta = z.looseObject({
  mean: z.number(),
  ciLo: z.number(),
  ciHi: z.number(),
  baseline: z.number().describe("the control's mean per-task value over the gated tasks"),
});
export type MetricDelta = z.infer<typeof MetricDelta>;

/** One task's per-arm pass rates in a gate. */
export const TaskDiff = z.looseObject({
  task: z.string().min(1),
  baseline: rate,
  candidate: rate,
  status: z.enum(["regressed", "improved", "same", "flaky"]),
  reason: z.string().optional(),
});
export type TaskDiff = z.infer<typeof TaskDiff>;

/** The release gate of one comparison, or on the scorecard the worst over all (the rich original's). */
export const GateResult = z.looseObject({
  verdict: z.enum(["ship", "hold", "block"]),
  reasons: z.array(z.string()).nullable(),
  flaky: z.array(TaskDiff).optional(),
  regressed: z.array(TaskDiff).optional(),
  tasks: z.array(TaskDiff).optional(),
});
export type GateResult = z.infer<typeof GateResult>;

/** What graded a run (the original's JudgeInfo): the suite's judge model and wire, the rubrics used. */
export const JudgeInfo = z.looseObject({
  model: z.string(),
  wire: z.string().optional(),
  rubrics: z.array(z.string()),
});
export type JudgeInfo = z.infer<typeof JudgeInfo>;

/** How a verdict was reached: the exact sign-flip test over tasks, or a sequential run's confidence sequence. */
export const TestInfo = z.looseObject({
  method: z.enum(["sign-flip", "confidence-sequence"]),
  alpha: z.number().min(0).max(1),
  p: z.number().min(0).max(1).optional().describe("sign-flip: the two-sided p over the paired tasks"),
  n: count.optional().describe("sign-flip: paired tasks whose difference is not 0"),
  exact: z.boolean().optional().describe("sign-flip: false when seeded Monte Carlo stood in for enumeration"),
  draws: count.optional(),
  rounds: count.optional().describe("confidence-sequence: complete rounds up to the decision"),
  lo: z.number().min(-1).max(1).optional().describe("confidence-sequence: its bounds on the mean difference"),
  hi: z.number().min(-1).max(1).optional(),
  decision: z.enum(["better", "worse", "non-inferior"]).optional(),
});
export type TestInfo = z.infer<typeof TestInfo>;

/** A non-control variant paired by task with the control. */
export const Comparison = z.looseObject({
  variant: z.string().min(1),
  control: z.string().min(1),
  tasks: count,
  delta: z.number().min(-1).max(1),
  ciLo: z.number().min(-1).max(1),
  ciHi: z.number().min(-1).max(1),
  verdict: Verdict,
  reason: z
    .string()
    .optional()
    .describe("why the verdict is insufficient (too few tasks for the exact test, or no evidence)"),
  test: TestInfo.optional().describe(
    "how the verdict was reached (the interval is the bootstrap's, for display)",
  ),
  deltas: z
    .record(z.string(), MetricDelta)
    .optional()
    .describe("per gate metric: pass_rate, cost_usd, tokens, wall_ms, tool_calls"),
  gate: GateResult.optional(),
});
export type Comparison = z.infer<typeof Comparison>;

/** A task the run went without (a Harbor task that cannot load or run here) and why, in one line. */
export const SkippedTask = z.looseObject({
  task: z.string().min(1),
  reason: z.string().min(1),
});
export type SkippedTask = z.infer<typeof SkippedTask>;

/** The one decision a scorecard leads with (scorecard/headline.ts), printed first by every output. */
export const Headline = z.looseObject({
  decision: z.string(),
  source: z.enum(["gate", "comparison", "none"]),
  text: z.string(),
});
export type Headline = z.infer<typeof Headline>;

/** A scorecard. The original writes `null` for an empty Go slice, so comparisons and trials may be null. */
export const Scorecard = z.looseObject({
  headline: Headline.optional(),
  suite: z.string(),
  control: z.string().min(1),
  variants: z.array(VariantScore).min(1),
  comparisons: z.array(Comparison).nullable(),
  trials: z.array(Trial).nullable(),
  version: z.literal(1).optional(),
  seed: z.number().int().optional(),
  k: count.optional(),
  runner: z
    .enum(["docker", "local"])
    .optional()
    .describe("local: the trials ran on the host without isolation (--local, testing only)"),
  gate: GateResult.optional().describe("the worst comparison's gate, reasons prefixed by variant"),
  thresholds: z.looseObject({}).optional().describe("the gate's thresholds, defaults applied"),
  judge: JudgeInfo.nullable() // Go writes a nil judge as null
    .optional()
    .describe("what graded the run: the suite's judge model and wire, every rubric id@version used"),
  shard: z
    .string()
    .regex(/^\d+\/\d+$/)
    .optional()
    .describe(
      "one shard's own scorecard (agent-eval suite --shard K/N): K/N; a merged or whole run has none",
    ),
  digest: z
    .string()
    .optional()
    .describe("with shard: the suite's digest (sha256:...), as the shard header has it"),
  skipped: z
    .array(SkippedTask)
    .optional()
    .describe(
      "tasks of a Harbor dataset the run went without, each with its one-line reason; absent when none",
    ),
  sequential: z
    .looseObject({
      alpha: z.number(),
      margin: z.number().optional(),
      rounds: count,
      stopped: z.enum(["decided", "max-trials", "max-cost"]),
    })
    .optional()
    .describe("agent-eval suite --until-decided: rounds run and why the run stopped"),
});
export type Scorecard = z.infer<typeof Scorecard>;

/** The JSON Schema committed as schemas/trial.schema.json. */
export function trialJsonSchema(): unknown {
  return z.toJSONSchema(Trial);
}

/** The JSON Schema committed as schemas/scorecard.schema.json. */
export function scorecardJsonSchema(): unknown {
  return z.toJSONSchema(Scorecard);
}

/** A scorecard or trials file some run wrote: regular, capped, not a link (../input.ts). */
function readText(path: string, what: string): string {
  return readInput(path, what, DATA);
}

/** Reads a scorecard JSON file; ConfigError naming the file and the field when it is not one. */
export function loadScorecard(path: string): Scorecard {
  const text = readText(path, "scorecard");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Cannot parse scorecard "${path}": ${(error as Error).message}`);
  }
  const result = Scorecard.safeParse(data);
  if (!result.success) throw new ConfigError(`Cannot load scorecard "${path}": ${firstIssue(result.error)}`);
  return data as Scorecard; // the input itself: nothing is defaulted, and its key order is kept
}

/** Parses trials JSONL text (blank lines skipped); ConfigError naming the file, line and field. */
export function parseTrials(text: string, path: string): Trial[] {
  return parseJsonl<Trial>(text, path, Trial, "trials");
}

/** Reads a trials JSONL file (one finished trial a line). */
export function loadTrials(path: string): Trial[] {
  return parseTrials(readText(path, "trials"), path);
}

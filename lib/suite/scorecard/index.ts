// The task-suite scorecard (originals.md §6.6, issue 5): per variant pass@1 with its percentile
// bootstrap interval over trials, Cost/task (the mean cost of one trial), wall p50/p95, token and
// error sums; every non-control variant paired by task with the control (delta, interval, verdict).
// Ours on top: mean turns, pass@k and pass^k, intervals that resample tasks (clusters) for pass rate,
// cost and mean latency, and infrastructure failures counted and shown but left out of every rate. A tampered
// Harbor trial (the agent changed what its verifier relies on) is the opposite: the agent's own fail,
// scored in every rate like any fail and counted apart, never an infrastructure failure (which would
// take it out of the rates and let --resume run it again). Harbor tasks the run went without are
// listed with their reasons. Each comparison's verdict is the exact paired test's (scorecard/paired.ts,
// verdict.ts; a run that stopped when decided, its confidence sequence's), each variant says how many
// of its trials were scored and why the others failed (evidence.ts), and the scorecard leads with one
// headline decision (headline.ts). Pure: same trials and seed, same scorecard. Formats in
// scorecard/schema.ts, Markdown in scorecard/markdown.ts.
import { ConfigError } from "../../core/errors.ts";
import { mdCell } from "../../report/markdown.ts";
import { bootstrapMean, bootstrapRatio, quantiles, suitePassK } from "../../stats/index.ts";
import { evidenceFields, failureReasonsMarkdown } from "./evidence.ts";
import { renderGatedMarkdown } from "./gated.ts";
import { type GradingScope, gradingFields, gradingScope } from "./grading.ts";
import { withHeadline } from "./headline.ts";
import { renderMarkdown as renderPlainMarkdown, taskTable } from "./markdown.ts";
import { compareArms } from "./paired.ts";
import type { Scorecard, SkippedTask, Trial, VariantScore } from "./schema.ts";
import type { SequentialOptions } from "./sequential.ts";

/**
 * The Markdown scorecard: the newer original's layout when it carries a gate, else the original's;
 * the headline decision under the title, then at the end the per-task table and each variant's most
 * common failure reasons.
 */
export function renderMarkdown(sc: Scorecard): string {
  const body = sc.gate === undefined ? renderPlainMarkdown(sc) : renderGatedMarkdown(sc);
  // A scorecard the original wrote has no headline: it renders as the original did.
  if (sc.headline === undefined) return body + failureReasonsMarkdown(sc);
  const title = body.indexOf("\n\n") + 2;
  return `${body.slice(0, title)}${mdCell(sc.headline.text)}\n\n${body.slice(title)}${taskTable(sc)}${failureReasonsMarkdown(sc)}`;
}
export {
  Comparison,
  INFRA_KINDS,
  type InfraKind,
  loadScorecard,
  loadTrials,
  parseTrials,
  Scorecard,
  SkippedTask,
  scorecardJsonSchema,
  Trial,
  trialJsonSchema,
  VariantScore,
  Verdict,
} from "./schema.ts";
export { ALPHA, insufficiency, MIN_VERDICT_TASKS, verdictFor } from "./verdict.ts";

/**
 * Bootstrap seed (1), iterations (2000) and k for pass@k / pass^k (default: most trials of a task);
 * `skipped`: the tasks the run went without, kept as `{task, reason}` in the scorecard's order.
 */
export interface ScorecardOptions {
  seed?: number;
  iterations?: number;
  k?: number;
  skipped?: readonly SkippedTask[];
  /** The run stopped when decided (--until-decided): verdicts from its confidence sequences. */
  sequential?: SequentialOptions;
}

/** The options scoring resolves, defaults applied. */
type Bootstrap = Required<Pick<ScorecardOptions, "seed" | "iterations" | "k">>;

/** Trials of one variant grouped by task, tasks in code-point order. */
function byTask(trials: readonly Trial[]): Trial[][] {
  const groups = new Map<string, Trial[]>();
  for (const t of trials) {
    const list = groups.get(t.task);
    if (list) list.push(t);
    else groups.set(t.task, [t]);
  }
  return [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((k) => groups.get(k)!);
}

function sumOf(trials: readonly Trial[], field: (t: Trial) => number): number {
  let total = 0;
  for (const t of trials) total += field(t);
  return total;
}

/** `{[key]: mean of field}` over the trials whose CLI reported it (Gemini reports no turns); {} if none did. */
function meanOfReported(trials: readonly Trial[], field: "turns", key: "meanTurns"): Partial<VariantScore> {
  const reported = trials.filter((t) => !t.unreported?.includes(field));
  return reported.length === 0 ? {} : { [key]: sumOf(reported, (t) => t[field]) / reported.length };
}

/** `{meanReward}` when any trial carries a reward (Harbor tasks): a trial without one counts 0; {} if none does. */
function meanReward(trials: readonly Trial[]): Partial<VariantScore> {
  if (!trials.some((t) => typeof t.reward === "number")) return {};
  return { meanReward: sumOf(trials, (t) => t.reward ?? 0) / trials.length };
}

function score(
  name: string,
  all: readonly Trial[],
  k: number,
  opts: Bootstrap,
  grading: GradingScope,
): VariantScore {
  const scored = all.filter((t) => t.infra === undefined);
  const setupFailures = all.filter((t) => t.setupFailed === true).length;
  const tampered = scored.filter((t) => t.tampered !== undefined).length;
  if (scored.length === 0)
    throw new ConfigError(
      `scorecard: no scored trials for variant "${name}" (${all.length} infrastructure failures)`,
    );
  const boot = { seed: opts.seed, iterations: opts.iterations };
  const pass1 = bootstrapMean(
    scored.map((t) => (t.pass ? 1 : 0)),
    boot,
  );
  const [p50, p95] = quantiles(
    scored.map((t) => t.wallMs),
    [0.5, 0.95],
  );
  const tasks = byTask(scored);
  const ratio = (field: (t: Trial) => number) =>
    bootstrapRatio(
      tasks.map((ts) => ({ num: sumOf(ts, field), den: ts.length })),
      boot,
    );
  const taskPass = ratio((t) => (t.pass ? 1 : 0));
  const cost = ratio((t) => t.costUSD);
  const wall = ratio((t) => t.wallMs);
  const passK = suitePassK(
    tasks.map((ts) => ({ task: ts[0]!.task, trials: ts.length, passes: ts.filter((t) => t.pass).length })),
    k,
  );
  return {
    name,
    trials: all.length,
    pass1: pass1.estimate,
    pass1CILo: pass1.lo,
    pass1CIHi: pass1.hi,
    costPerTaskUSD: sumOf(scored, (t) => t.costUSD) / scored.length,
    wallP50Ms: p50!,
    wallP95Ms: p95!,
    tokens: sumOf(all, (t) => t.tokens),
    toolErrors: sumOf(all, (t) => t.toolErrors),
    errors: scored.filter((t) => (t.error ?? "") !== "").length,
    k,
    passAtK: passK.passAtK,
    passHatK: passK.passHatK,
    ...gradingFields(all, grading),
    tasks: tasks.length,
    ...meanOfReported(scored, "turns", "meanTurns"),
    ...meanReward(scored),
    infraFailures: all.length - scored.length,
    ...(tampered > 0 ? { tampered } : {}),
    ...(setupFailures > 0 ? { setupFailures } : {}),
    pass1TaskCILo: taskPass.lo,
    pass1TaskCIHi: taskPass.hi,
    costCILo: cost.lo,
    costCIHi: cost.hi,
    wallMeanMs: wall.estimate,
    wallMeanCILo: wall.lo,
    wallMeanCIHi: wall.hi,
    ...evidenceFields(all),
  };
}

/**
 * Builds the scorecard of `trials` for `variants` (suite order; `control` among them). Throws
 * ConfigError `scorecard: trial for unknown variant "<v>"`, `scorecard: no trials for variant "<v>"`,
 * and for a missing control, a duplicate variant, a bad k, or a variant with nothing scored.
 */
export function buildScorecard(
  suite: string,
  control: string,
  variants: readonly string[],
  trials: readonly Trial[],
  options: ScorecardOptions = {},
): Scorecard {
  const byVariant = new Map<string, Trial[]>();
  for (const v of variants) {
    if (byVariant.has(v)) throw new ConfigError(`scorecard: duplicate variant "${v}"`);
    byVariant.set(v, []);
  }
  if (!byVariant.has(control)) throw new ConfigError(`scorecard: control "${control}" is not a variant`);
  for (const t of trials) {
    const list = byVariant.get(t.variant);
    if (!list) throw new ConfigError(`scorecard: trial for unknown variant "${t.variant}"`);
    list.push(t);
  }
  for (const [v, list] of byVariant)
    if (list.length === 0) throw new ConfigError(`scorecard: no trials for variant "${v}"`);
  let most = 1;
  for (const list of byVariant.values())
    for (const ts of byTask(list.filter((t) => t.infra === undefined))) most = Math.max(most, ts.length);
  const k = options.k ?? most;
  if (!Number.isSafeInteger(k) || k < 1) throw new ConfigError(`scorecard: k must be at least 1, got ${k}`);
  const opts = { seed: options.seed ?? 1, iterations: options.iterations ?? 2000, k };
  const grading = gradingScope(trials);
  const scores = variants.map((v) => score(v, byVariant.get(v)!, k, opts, grading));
  // The original leaves its comparisons slice nil with one variant: JSON null, not [].
  const paired = { ...opts, ...(options.sequential ? { sequential: options.sequential } : {}) };
  const comparisons = variants
    .filter((v) => v !== control)
    .map((v) => compareArms(v, control, byVariant, paired));
  return withHeadline({
    suite,
    control,
    variants: scores,
    comparisons: comparisons.length > 0 ? comparisons : null,
    trials: [...trials],
    version: 1,
    seed: opts.seed,
    k,
    ...skippedField(options.skipped),
  });
}

/** `{skipped}` as the scorecard keeps it (each `{task, reason}`, nothing more), or {} for none. */
export function skippedField(list: readonly SkippedTask[] = []): Pick<Scorecard, "skipped"> {
  return list.length === 0 ? {} : { skipped: list.map(({ task, reason }) => ({ task, reason })) };
}

const GO_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** The scorecard as the original writes it: Go's MarshalIndent (two spaces, <>& escaped) and a newline. */
export function scorecardJson(scorecard: Scorecard): string {
  const text = JSON.stringify(scorecard, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!);
  return `${text}\n`;
}

// The step-suite scorecard: one row per case (the matcher's reading, the answer's tool names, the
// error if the call failed, an optional judge score) and the spec's rates (PASS, SAME TOOLS, SAME
// CALLS, VALID CALLS, PREMATURE STOP) with 95% percentile-bootstrap intervals that resample sessions
// (lib/stats: a cluster bootstrap of per-session sums), so many steps of one long session do not narrow an interval. The zod
// format is what `--output json`, `--scorecard FILE`, eval_scorecard and the HTML report read.
// The suite lane's rule for thin evidence holds here too: a row whose interval rests on fewer than 6
// sessions (the fewest on which any exact test at 5% can reject), or has zero width because every
// session agrees, carries a note saying so, and for sessions that all pass (or all fail) the exact
// 95% Clopper-Pearson interval with each session as one unit, (alpha/2)^(1/sessions) to 100%.
import { z } from "zod";
import { shardLabel } from "../core/shard.ts";
import { ShardStamp } from "../core/shard-set.ts";
import { bootstrapRatio, minUnits } from "../stats/index.ts";
import { STEP_PROTOCOLS } from "./case.ts";

const rate = z.number().min(0).max(1);

/** One replayed case. */
export const StepResult = z.strictObject({
  id: z.string(),
  session: z.string().describe("the case's hashed session (the resampling cluster)"),
  depth: z.number().int().min(0),
  protocol: z.enum(STEP_PROTOCOLS),
  pass: z.boolean(),
  sameTools: z.boolean(),
  sameCalls: z.boolean(),
  valid: z.boolean(),
  prematureStop: z.boolean().nullable().describe("null when production ended its turn too (not applicable)"),
  problems: z.array(z.string()).describe("why the answer is not a valid call"),
  tools: z.array(z.string()).describe("the tool names the answer called, in order"),
  latencyMs: z.number().min(0),
  error: z.string().optional().describe("why the call failed; an errored case fails"),
  judge: z
    .strictObject({ score: rate.optional(), reason: z.string().optional(), error: z.string().optional() })
    .optional()
    .describe("secondary reading with --rubric: never changes pass"),
});
export type StepResult = z.infer<typeof StepResult>;

/** A rate with its interval; all null when no case applies. */
export const Rate = z.strictObject({
  n: z.number().int().min(0),
  rate: rate.nullable(),
  lo: rate.nullable(),
  hi: rate.nullable(),
  note: z
    .string()
    .optional()
    .describe("why the interval cannot be trusted: too few sessions, or every session alike"),
});
export type Rate = z.infer<typeof Rate>;

/** The step scorecard. */
export const StepScorecard = z.strictObject({
  version: z.literal(1),
  suite: z.string(),
  model: z.string(),
  cases: z.number().int().min(0),
  sessions: z.number().int().min(0),
  errors: z.number().int().min(0).describe("cases whose call failed (they count as failed)"),
  seed: z.number().int(),
  iterations: z.number().int().min(1),
  pass: Rate,
  sameTools: Rate,
  sameCalls: Rate,
  validCalls: Rate,
  prematureStop: Rate.describe("over cases where production kept working and the call did not fail"),
  judge: z
    .strictObject({
      model: z.string(),
      rubric: z.string().describe("sha256:<hex> of the rubric text"),
      n: z.number().int().min(0),
      errors: z.number().int().min(0),
      mean: rate.nullable(),
      lo: rate.nullable(),
      hi: rate.nullable(),
    })
    .optional(),
  results: z.array(StepResult),
  shard: ShardStamp.optional().describe(
    "eval-steps run --shard K/N only: this part's steps (whole sessions) and where they sit in the suite; its rates are over this part alone",
  ),
});
export type StepScorecard = z.infer<typeof StepScorecard>;

/** The JSON Schema committed as schemas/step-scorecard.schema.json. */
export function stepScorecardJsonSchema(): unknown {
  return z.toJSONSchema(StepScorecard);
}

/** Bootstrap settings of a scorecard. */
export interface StepScorecardOptions {
  seed?: number;
  iterations?: number;
  judge?: { model: string; rubric: string };
}

/** The mean of `value` over the results it applies to, with a session-resampled interval. */
function rateOf(
  results: readonly StepResult[],
  value: (r: StepResult) => number | null,
  boot: { seed: number; iterations: number },
): Rate {
  const bySession = new Map<string, number[]>();
  for (const r of results) {
    const v = value(r);
    if (v === null) continue;
    const list = bySession.get(r.session);
    if (list) list.push(v);
    else bySession.set(r.session, [v]);
  }
  // The pooled mean of resampled sessions is Σ sums / Σ counts over them: a ratio of per-session sums,
  // which bootstraps in O(sessions) per resample instead of O(steps).
  const clusters = [...bySession.keys()]
    .sort()
    .map((k) => bySession.get(k)!)
    .map((vs) => ({ num: vs.reduce((a, b) => a + b, 0), den: vs.length }));
  const n = clusters.reduce((t, c) => t + c.den, 0);
  if (n === 0) return { n: 0, rate: null, lo: null, hi: null };
  const ci = bootstrapRatio(clusters, boot);
  const note = thinNote(clusters, ci);
  return { n, rate: ci.estimate, lo: ci.lo, hi: ci.hi, ...(note ? { note } : {}) };
}

/** The fewest sessions an interval over sessions needs: 6, as a suite verdict needs tasks. */
export const MIN_SESSIONS = minUnits(0.05);

/** The note of a rate whose interval cannot be trusted (see the header), else undefined. */
function thinNote(
  clusters: readonly { num: number; den: number }[],
  ci: { lo: number; hi: number },
): string | undefined {
  const s = clusters.length;
  const sessions = `${s} session${s === 1 ? "" : "s"}`;
  if (ci.lo === ci.hi) {
    const all = clusters.every((c) => c.num === c.den)
      ? 1
      : clusters.every((c) => c.num === 0)
        ? 0
        : undefined;
    if (all === undefined) return `${sessions}, all alike: the interval cannot measure uncertainty`;
    // Clopper-Pearson with s of s sessions (or 0 of s) as the units: (alpha/2)^(1/s).
    const edge = 0.025 ** (1 / s);
    const [lo, hi] = all === 1 ? [edge, 1] : [0, 1 - edge];
    return `${sessions}, all alike: the interval cannot measure uncertainty (exact 95% over sessions: ${pct(lo)}..${pct(hi)})`;
  }
  if (s < MIN_SESSIONS) return `only ${sessions}: too few for the interval (at least ${MIN_SESSIONS})`;
  return undefined;
}

const bit = (b: boolean) => (b ? 1 : 0);

/** Builds the scorecard of replayed results; pure: same results and seed, same scorecard. */
export function buildStepScorecard(
  suite: string,
  model: string,
  results: readonly StepResult[],
  opts: StepScorecardOptions = {},
): StepScorecard {
  const boot = { seed: opts.seed ?? 1, iterations: opts.iterations ?? 2000 };
  let judge: StepScorecard["judge"];
  if (opts.judge) {
    const j = rateOf(results, (r) => r.judge?.score ?? null, boot);
    const errors = results.filter((r) => r.judge?.error !== undefined).length;
    judge = { ...opts.judge, n: j.n, errors, mean: j.rate, lo: j.lo, hi: j.hi };
  }
  return {
    version: 1,
    suite,
    model,
    cases: results.length,
    sessions: new Set(results.map((r) => r.session)).size,
    errors: results.filter((r) => r.error !== undefined).length,
    ...boot,
    pass: rateOf(results, (r) => bit(r.pass), boot),
    sameTools: rateOf(results, (r) => bit(r.sameTools), boot),
    sameCalls: rateOf(results, (r) => bit(r.sameCalls), boot),
    validCalls: rateOf(results, (r) => bit(r.valid), boot),
    prematureStop: rateOf(results, (r) => (r.prematureStop === null ? null : bit(r.prematureStop)), boot),
    ...(judge ? { judge } : {}),
    results: [...results],
  };
}

function pct(x: number): string {
  return `${Math.round(x * 100)}`;
}

function row(label: string, r: Rate): string {
  const value = r.rate === null ? "-" : `${pct(r.rate)}% (${pct(r.lo!)}..${pct(r.hi!)})`;
  return `${label.padEnd(18)}${value} n=${r.n}${r.note ? `  note: ${r.note}` : ""}`;
}

/** The text scorecard of the spec: a header line, then one line per rate. */
export function renderStepScorecard(sc: StepScorecard): string {
  const lines = [
    `suite ${sc.suite}  model ${sc.model}  cases ${sc.cases}  sessions ${sc.sessions}  errors ${sc.errors}${sc.shard ? `  shard ${shardLabel(sc.shard)}` : ""}`,
    "",
    row("PASS", sc.pass),
    row("SAME TOOLS", sc.sameTools),
    row("SAME CALLS", sc.sameCalls),
    row("VALID CALLS", sc.validCalls),
    row("PREMATURE STOP", sc.prematureStop),
  ];
  if (sc.judge) {
    const j = sc.judge;
    const value = j.mean === null ? "-" : `${j.mean.toFixed(2)} (${j.lo!.toFixed(2)}..${j.hi!.toFixed(2)})`;
    lines.push(
      `${"JUDGE".padEnd(18)}${value} n=${j.n}${j.errors ? ` errors=${j.errors}` : ""}  (secondary: never changes pass)`,
    );
  }
  return `${lines.join("\n")}\n`;
}

// `eval-steps compare BASE.json HEAD.json`: two step scorecards of one suite (e.g. two models, or a
// model before and after a change) side by side. Cases are paired by id; each rate's change is tested
// with the exact paired sign-flip test over sessions (lib/stats: each session's sum of HEAD minus BASE
// over its paired cases, the session being the unit the scorecard's intervals resample), so a verdict
// is `better`, `worse`, `no significant difference` or `insufficient` (fewer sessions than any test at
// 5% can reject on, lib/stats minUnits), and the cases whose pass flipped are listed. Text or JSON on
// stdout; exit 0 nothing got worse, 1 a rate got worse, 2 usage or no case in common, 3 a file that is
// not a step scorecard (merge.ts's loader).
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { minUnits, signFlipTest } from "../stats/index.ts";
import { outputOf } from "./cmd.ts";
import { loadStepScorecard } from "./merge.ts";
import type { StepResult, StepScorecard } from "./scorecard.ts";

/** The flags of `eval-steps compare`. */
export const COMPARE_ARGS = {
  scorecards: {
    type: "positional",
    required: false,
    description: "BASE.json HEAD.json (eval-steps run --scorecard)",
  },
  output: { type: "string", description: "text (default) or json" },
} as const satisfies ArgsDef;

/** The rates compared, with the case field each reads and whether higher is better. */
const METRICS = [
  { name: "PASS", key: "pass", up: true },
  { name: "SAME TOOLS", key: "sameTools", up: true },
  { name: "SAME CALLS", key: "sameCalls", up: true },
  { name: "VALID CALLS", key: "valid", up: true },
  { name: "PREMATURE STOP", key: "prematureStop", up: false },
] as const;

const ALPHA = 0.05;

/** One rate's comparison over the paired cases. */
export interface MetricChange {
  name: string;
  n: number;
  base: number | null;
  head: number | null;
  sessions: number;
  p: number | null;
  verdict: "better" | "worse" | "no significant difference" | "insufficient";
}

/** The whole comparison. */
export interface StepComparison {
  base: { model: string; cases: number };
  head: { model: string; cases: number };
  paired: number;
  onlyBase: number;
  onlyHead: number;
  metrics: MetricChange[];
  /** Cases whose pass flipped, by id: fail -> pass (better) and pass -> fail (worse). */
  better: string[];
  worse: string[];
  exitCode: number;
}

const reading = (r: StepResult, key: (typeof METRICS)[number]["key"]): number | null => {
  const v = r[key];
  return v === null ? null : v ? 1 : 0;
};

/** Compares HEAD against BASE, paired by case id. Pure. */
export function compareSteps(base: StepScorecard, head: StepScorecard): StepComparison {
  const b = new Map(base.results.map((r) => [r.id, r]));
  const pairs = head.results.filter((r) => b.has(r.id)).map((h) => ({ b: b.get(h.id) as StepResult, h }));
  if (pairs.length === 0)
    throw new UsageError(
      "Cannot compare: the scorecards share no case id (are they of the same step suite?)",
    );
  const metrics = METRICS.map(({ name, key, up }): MetricChange => {
    const both = pairs.flatMap((p) => {
      const [x, y] = [reading(p.b, key), reading(p.h, key)];
      return x === null || y === null ? [] : [{ session: p.h.session, x, y }];
    });
    const bySession = new Map<string, number>();
    for (const q of both) bySession.set(q.session, (bySession.get(q.session) ?? 0) + q.y - q.x);
    const diffs = [...bySession.values()];
    const mean = (f: (q: { x: number; y: number }) => number) =>
      both.length === 0 ? null : both.reduce((s, q) => s + f(q), 0) / both.length;
    const test = diffs.some((d) => d !== 0) ? signFlipTest(diffs) : undefined;
    const enough = diffs.length >= minUnits(ALPHA);
    const moved = test !== undefined && test.p < ALPHA;
    const sum = diffs.reduce((s, d) => s + d, 0);
    const verdict = moved
      ? sum > 0 === up
        ? "better"
        : "worse"
      : enough
        ? "no significant difference"
        : "insufficient";
    return {
      name,
      n: both.length,
      base: mean((q) => q.x),
      head: mean((q) => q.y),
      sessions: diffs.length,
      p: test?.p ?? null,
      verdict,
    };
  });
  const flipped = (from: boolean) =>
    pairs.filter((p) => p.b.pass === from && p.h.pass !== from).map((p) => p.h.id);
  return {
    base: { model: base.model, cases: base.results.length },
    head: { model: head.model, cases: head.results.length },
    paired: pairs.length,
    onlyBase: base.results.length - pairs.length,
    onlyHead: head.results.length - pairs.length,
    metrics,
    better: flipped(false),
    worse: flipped(true),
    exitCode: metrics.some((m) => m.verdict === "worse") ? 1 : 0,
  };
}

const pct = (v: number | null) => (v === null ? "-" : `${Math.round(v * 100)}%`);
const LISTED = 20;

/** The comparison as text: one line per rate, then the cases whose pass flipped. */
export function renderStepComparison(c: StepComparison): string {
  const lines = [
    `base ${c.base.model} (${c.base.cases} cases)  head ${c.head.model} (${c.head.cases} cases)  paired ${c.paired}${c.onlyBase + c.onlyHead > 0 ? `  (${c.onlyBase} only in base, ${c.onlyHead} only in head)` : ""}`,
    "",
  ];
  for (const m of c.metrics) {
    const p = m.p === null ? "" : `, p=${m.p < 0.001 ? "<0.001" : m.p.toFixed(3)}`;
    const why =
      m.verdict === "insufficient" ? ` (${m.sessions} session(s): too few for any test at 5% to decide)` : "";
    lines.push(`${m.name.padEnd(16)}  ${pct(m.base)} -> ${pct(m.head)}  n=${m.n}  ${m.verdict}${p}${why}`);
  }
  for (const [what, ids] of [
    ["worse (passed, now fails)", c.worse],
    ["better (failed, now passes)", c.better],
  ] as const) {
    if (ids.length === 0) continue;
    lines.push("", `${what}: ${ids.length}`);
    for (const id of ids.slice(0, LISTED)) lines.push(`  ${id}`);
    if (ids.length > LISTED) lines.push(`  ... ${ids.length - LISTED} more (--output json lists them all)`);
  }
  return `${lines.join("\n")}\n`;
}

/** `eval-steps compare BASE HEAD`: text or JSON on stdout; exit 0, 1 (a rate got worse), 2 or 3. */
export function compareCmd(args: ParsedArgs<typeof COMPARE_ARGS>): number {
  const output = outputOf(args.output);
  const files = (args._ as string[]).filter((a) => a !== "");
  if (files.length !== 2)
    throw new UsageError(`eval-steps compare takes BASE.json HEAD.json, got ${files.length} file(s)`);
  const [base, head] = files.map(loadStepScorecard) as [StepScorecard, StepScorecard];
  const c = compareSteps(base, head);
  process.stdout.write(output === "json" ? `${JSON.stringify(c, null, 2)}\n` : renderStepComparison(c));
  return c.exitCode;
}

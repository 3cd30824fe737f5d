// `agent-eval compare BASE.json HEAD.json`: what changed between two suite scorecards, for a pull
// request. Per variant (matched by name): pass@1 and its interval on each side, and "better"/"worse"
// by the scorecard's own exact test: the sign-flip test over the tasks both sides scored, each task's
// difference head - base pass rate, two-sided at 5% (scorecard/verdict.ts), else "same". Only when a
// side carries no trials (the original may write null) does it fall back to "the two 95% intervals
// do not overlap". Per variant x task (from the scorecards'
// trials, infrastructure failures left out): the pass count on each side, "better"/"worse" when the
// pass rate moved, "flaky" when it did not and HEAD both passed and failed, else "same". Markdown
// here; the HTML form is compare-report.ts. Pure: the same two scorecards, the same bytes.
import { goFixed } from "../compat/go.ts";
import { pct, pp } from "../report/format.ts";
import { mdCell } from "../report/markdown.ts";
import { signFlipTest } from "../stats/index.ts";
import {
  ALPHA,
  MIN_VERDICT_TASKS,
  type Scorecard,
  type Trial,
  type VariantScore,
} from "./scorecard/index.ts";
import { pText } from "./scorecard/verdict.ts";

/** A side's pass@1 of one variant. */
export interface VariantSide {
  trials: number;
  pass1: number;
  lo: number;
  hi: number;
}

/** One variant across the two scorecards. */
export interface VariantChange {
  variant: string;
  base?: VariantSide;
  head?: VariantSide;
  change: "better" | "worse" | "same" | "added" | "removed";
  /** The exact paired test behind the change: tasks both sides scored, and its two-sided p. */
  test?: { tasks: number; p: number };
}

/** A side's scored trials of one task under one variant. */
export interface TaskSide {
  passes: number;
  scored: number;
}

/** One task of one variant across the two scorecards. */
export interface TaskChange {
  variant: string;
  task: string;
  base?: TaskSide;
  head?: TaskSide;
  change: "better" | "worse" | "flaky" | "same" | "added" | "removed";
}

/** The whole comparison. */
export interface SuiteComparison {
  base: { suite: string; trials: number | null };
  head: { suite: string; trials: number | null };
  variants: VariantChange[];
  /** Empty when either scorecard carries no trials (the original may write null). */
  tasks: TaskChange[];
}

const side = (v: VariantScore): VariantSide => ({
  trials: v.trials,
  pass1: v.pass1,
  lo: v.pass1CILo,
  hi: v.pass1CIHi,
});

function variantChange(
  variant: string,
  b: VariantScore | undefined,
  h: VariantScore | undefined,
  trials: { base: Map<string, TaskSide>; head: Map<string, TaskSide> } | undefined,
): VariantChange {
  if (!b) return { variant, head: side(h!), change: "added" };
  if (!h) return { variant, base: side(b), change: "removed" };
  if (trials === undefined) {
    const change = h.pass1CILo > b.pass1CIHi ? "better" : h.pass1CIHi < b.pass1CILo ? "worse" : "same";
    return { variant, base: side(b), head: side(h), change };
  }
  const diffs: number[] = [];
  for (const [key, bs] of trials.base) {
    const hs = trials.head.get(key);
    if (!key.startsWith(`${variant}\u0000`) || hs === undefined || bs.scored === 0 || hs.scored === 0)
      continue;
    diffs.push(hs.passes / hs.scored - bs.passes / bs.scored);
  }
  const t = signFlipTest(diffs);
  const mean = diffs.reduce((a, x) => a + x, 0);
  const change = diffs.length >= MIN_VERDICT_TASKS && t.p <= ALPHA ? (mean > 0 ? "better" : "worse") : "same";
  return { variant, base: side(b), head: side(h), change, test: { tasks: diffs.length, p: t.p } };
}

/** Scored trials per `variant\0task`: pass count and trial count. */
function tally(trials: readonly Trial[]): Map<string, TaskSide> {
  const out = new Map<string, TaskSide>();
  for (const t of trials) {
    if (t.infra !== undefined) continue;
    const key = `${t.variant}\u0000${t.task}`;
    const s = out.get(key) ?? { passes: 0, scored: 0 };
    s.scored++;
    if (t.pass) s.passes++;
    out.set(key, s);
  }
  return out;
}

function taskChange(b?: TaskSide, h?: TaskSide): TaskChange["change"] {
  if (!b) return "added";
  if (!h) return "removed";
  const d = h.passes * b.scored - b.passes * h.scored; // rate difference, exact in integers
  if (d > 0) return "better";
  if (d < 0) return "worse";
  return h.passes > 0 && h.passes < h.scored ? "flaky" : "same";
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Compares `head` against `base`: variants in base's order then head's new ones; tasks sorted. */
export function compareScorecards(base: Scorecard, head: Scorecard): SuiteComparison {
  const names = [...new Set([...base.variants, ...head.variants].map((v) => v.name))];
  const find = (sc: Scorecard, n: string) => sc.variants.find((v) => v.name === n);
  const sides =
    base.trials && head.trials ? { base: tally(base.trials), head: tally(head.trials) } : undefined;
  const variants = names.map((n) => variantChange(n, find(base, n), find(head, n), sides));
  const tasks: TaskChange[] = [];
  if (base.trials && head.trials) {
    const b = tally(base.trials);
    const h = tally(head.trials);
    const keys = [...new Set([...b.keys(), ...h.keys()])].sort(byName);
    for (const key of keys) {
      const [variant, task] = key.split("\u0000") as [string, string];
      const bs = b.get(key);
      const hs = h.get(key);
      tasks.push({
        variant,
        task,
        ...(bs ? { base: bs } : {}),
        ...(hs ? { head: hs } : {}),
        change: taskChange(bs, hs),
      });
    }
  }
  const count = (sc: Scorecard) => ({ suite: sc.suite, trials: sc.trials ? sc.trials.length : null });
  return { base: count(base), head: count(head), variants, tasks };
}

const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |\n`;
const cell = (s?: VariantSide) =>
  s ? `${pct(s.pass1)} (${goFixed(100 * s.lo, 1)}-${goFixed(100 * s.hi, 1)})` : "-";
const ratio = (s?: TaskSide) => (s ? `${s.passes}/${s.scored}` : "-");

/** The task sections in the order a reviewer reads them. */
export const TASK_SECTIONS = [
  ["worse", "Worse"],
  ["better", "Better"],
  ["flaky", "Flaky"],
  ["added", "New"],
  ["removed", "Gone"],
] as const;

/**
 * The comparison as Markdown (GitHub-flavoured: a job summary or a pull-request comment). Every name
 * the scorecards carry (suite, variant, task) goes through mdCell: a task id cannot add a line, a
 * heading, a link or a mention to the comment.
 */
export function renderComparisonMarkdown(c: SuiteComparison): string {
  const title =
    c.base.suite === c.head.suite
      ? mdCell(c.head.suite)
      : `${mdCell(c.base.suite)} -> ${mdCell(c.head.suite)}`;
  let out = `# Suite comparison: ${title}\n\n`;
  out += row(["Variant", "Base pass@1 (95% CI)", "Head pass@1 (95% CI)", "Delta", "Change"]);
  out += `|${"---|".repeat(5)}\n`;
  for (const v of c.variants) {
    const delta = v.base && v.head ? pp(v.head.pass1 - v.base.pass1) : "-";
    const change = v.test ? `${v.change} (p ${pText(v.test.p)}, ${v.test.tasks} tasks)` : v.change;
    out += row([mdCell(v.variant), cell(v.base), cell(v.head), delta, change]);
  }
  if (c.base.trials === null || c.head.trials === null) {
    out += `\nNo per-task comparison: the ${c.base.trials === null ? "base" : "head"} scorecard carries no trials.\n`;
    return out;
  }
  for (const [word, heading] of TASK_SECTIONS) {
    const rows = c.tasks.filter((t) => t.change === word);
    if (rows.length === 0) continue;
    out += `\n## ${heading} (${rows.length})\n\n${row(["Variant", "Task", "Base passed", "Head passed"])}|---|---|---|---|\n`;
    for (const t of rows) out += row([mdCell(t.variant), mdCell(t.task), ratio(t.base), ratio(t.head)]);
  }
  const same = c.tasks.filter((t) => t.change === "same").length;
  out += `\n${same} of ${c.tasks.length} variant x task pairs unchanged.\n`;
  return out;
}

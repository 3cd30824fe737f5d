// The text scorecard, byte for byte the original halo eval's Markdown (originals.md §6.6) for the
// original's fields; our columns (mean turns, pass@k, pass^k, task-resampled intervals, grade errors,
// judge score, tampered trials, infra and setup failures) are appended only when the scorecard
// carries them, and infrastructure failures, failed task setups and tampered trials (both scored as
// fails) and skipped Harbor tasks get lists of their own. Numbers are printed as Go's fmt does (%.1f
// rounds an exact tie to even). Every name and error goes through lib/report/markdown.ts (mdCell,
// mdCode): plain names keep the original's bytes, and no name can add a line, a link or a mention.
import { goFixed } from "../../compat/go.ts";
import { mdCell, mdCode } from "../../report/markdown.ts";
import { measured, NOT_MEASURED } from "./evidence.ts";
import type { Comparison, Scorecard, Trial, VariantScore } from "./schema.ts";

const pct = (x: number) => goFixed(100 * x, 1);
const secs = (ms: number) => goFixed(ms / 1000, 1);

/** An optional column: its header, and its cell (present when `has` holds for some variant). */
interface Extra {
  header: string;
  has: (v: VariantScore) => boolean;
  cell: (v: VariantScore) => string;
}

/** True when no variant ran a task more than once (repeats: 1): resampling trials is resampling tasks. */
export function oneTrialPerTask(sc: Scorecard): boolean {
  if (!sc.trials) return false;
  const seen = new Set<string>();
  for (const t of sc.trials) {
    const key = JSON.stringify([t.variant, t.task]);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

function extras(sc: Scorecard): Extra[] {
  const k = sc.k ?? sc.variants.find((v) => v.k !== undefined)?.k;
  const at = k === undefined ? "k" : String(k);
  // At k = 1 pass@1 and pass^1 are pass@1 again, and with one trial per task the task-resampled
  // interval is the pass@1 interval: columns that would only repeat one are left out.
  const once = oneTrialPerTask(sc);
  const columns: Extra[] = [
    {
      header: "Mean turns",
      has: (v) => v.meanTurns !== undefined,
      cell: (v) => (v.meanTurns === undefined ? NOT_MEASURED : goFixed(v.meanTurns, 1)),
    },
    {
      header: `pass@${at}`,
      has: (v) => v.passAtK !== undefined && k !== 1,
      cell: (v) => `${pct(v.passAtK!)}%`,
    },
    {
      header: `pass^${at}`,
      has: (v) => v.passHatK !== undefined && k !== 1,
      cell: (v) => `${pct(v.passHatK!)}%`,
    },
    {
      header: "pass@1 (task CI)",
      has: (v) => v.pass1TaskCILo !== undefined && v.pass1TaskCIHi !== undefined && !once,
      cell: (v) => `${pct(v.pass1TaskCILo!)}-${pct(v.pass1TaskCIHi!)}%`,
    },
    {
      header: "Cost/task (task CI)",
      has: (v) => v.costCILo !== undefined && v.costCIHi !== undefined,
      cell: (v) =>
        measured(v, "cost") ? `$${goFixed(v.costCILo!, 4)}-$${goFixed(v.costCIHi!, 4)}` : NOT_MEASURED,
    },
    {
      header: "Wall mean (task CI)",
      has: (v) => v.wallMeanMs !== undefined && v.wallMeanCILo !== undefined && v.wallMeanCIHi !== undefined,
      cell: (v) => `${secs(v.wallMeanMs!)}s (${secs(v.wallMeanCILo!)}-${secs(v.wallMeanCIHi!)})`,
    },
    { header: "Grade errors", has: (v) => v.gradeErrors !== undefined, cell: (v) => `${v.gradeErrors ?? 0}` },
    {
      header: "Judge score",
      has: (v) => v.judgeScore !== undefined,
      cell: (v) => (v.judgeScore === undefined ? "-" : goFixed(v.judgeScore, 2)),
    },
    {
      header: "Mean reward",
      has: (v) => v.meanReward !== undefined,
      cell: (v) => (v.meanReward === undefined ? "-" : goFixed(v.meanReward, 3)),
    },
    {
      header: "Tampered",
      has: (v) => (v.tampered ?? 0) > 0,
      cell: (v) => `${v.tampered ?? 0}`,
    },
    {
      header: "Setup failures",
      has: (v) => (v.setupFailures ?? 0) > 0,
      cell: (v) => `${v.setupFailures ?? 0}`,
    },
    {
      header: "Infra failures",
      has: (v) => (v.infraFailures ?? 0) > 0,
      cell: (v) => `${v.infraFailures ?? 0}`,
    },
  ];
  return columns.filter((c) => sc.variants.some(c.has));
}

const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |\n`;
const rule = (n: number) => `|${"---|".repeat(n)}\n`;

/** Our addition under the comparison table: why each `insufficient` verdict is one ("" when none is). */
export function insufficientList(comparisons: readonly Comparison[]): string {
  const thin = comparisons.filter((c) => c.reason !== undefined);
  if (thin.length === 0) return "";
  return `\nInsufficient evidence (no verdict):\n\n${thin.map((c) => `- ${mdCode(c.variant)}: ${mdCell(c.reason ?? "")}\n`).join("")}`;
}

/** The line a --local scorecard carries under its title: no isolation, testing only. */
export const LOCAL_MARK = "**LOCAL RUN: no isolation, testing only (--local); not a result to compare**";

/** The Markdown scorecard. */
export function renderMarkdown(sc: Scorecard): string {
  const more = extras(sc);
  const head = ["Variant", "Trials", "pass@1 (95% CI)", "Cost/task", "Wall p50", "Wall p95", "Tool errors"];
  let out = `# Eval scorecard: ${mdCell(sc.suite)}\n\n`;
  if (sc.runner === "local") out += `${LOCAL_MARK}\n\n`;
  out += `Control: ${mdCode(sc.control)}\n\n`;
  out += row([...head, "Errors", ...more.map((c) => c.header)]) + rule(head.length + 1 + more.length);
  for (const v of sc.variants) {
    out += row([
      mdCell(v.name),
      `${v.trials}`,
      `${pct(v.pass1)}% (${pct(v.pass1CILo)}-${pct(v.pass1CIHi)})`,
      measured(v, "cost") ? `$${goFixed(v.costPerTaskUSD, 4)}` : NOT_MEASURED,
      `${secs(v.wallP50Ms)}s`,
      `${secs(v.wallP95Ms)}s`,
      measured(v, "toolErrors") ? `${v.toolErrors}` : NOT_MEASURED,
      `${v.errors}`,
      ...more.map((c) => c.cell(v)),
    ]);
  }
  const comparisons = sc.comparisons ?? [];
  if (comparisons.length > 0) {
    out += "\n## Paired comparison vs control\n\n";
    out += row(["Variant", "Tasks", "Delta pass rate (95% CI)", "Verdict"]) + rule(4);
    for (const c of comparisons) {
      const delta = goFixed(100 * c.delta, 1, true);
      const range = `${goFixed(100 * c.ciLo, 1, true)} to ${goFixed(100 * c.ciHi, 1, true)}`;
      out += row([mdCell(c.variant), `${c.tasks}`, `${delta} pp (${range})`, c.verdict]);
    }
    out += insufficientList(comparisons);
  }
  return out + infraList(sc) + setupList(sc) + tamperedList(sc) + skippedList(sc);
}

/**
 * Our per-task table: a row per task, a column per variant, each cell the trials that passed of those
 * scored (`2/3`), infrastructure failures counted beside (`1/2 +1 infra`), `-` where the variant ran
 * none ("" without trials). It says which tasks a pass rate is made of, as the report's matrix does.
 */
export function taskTable(sc: Scorecard): string {
  const trials = sc.trials ?? [];
  if (trials.length === 0) return "";
  const names = sc.variants.map((v) => v.name);
  const tasks = [...new Set(trials.map((t) => t.task))];
  const cells = new Map<string, { passed: number; scored: number; infra: number }>();
  for (const t of trials) {
    const key = JSON.stringify([t.task, t.variant]);
    const c = cells.get(key) ?? { passed: 0, scored: 0, infra: 0 };
    if (t.infra !== undefined) c.infra++;
    else {
      c.scored++;
      if (t.pass) c.passed++;
    }
    cells.set(key, c);
  }
  const cell = (task: string, variant: string) => {
    const c = cells.get(JSON.stringify([task, variant]));
    if (!c) return "-";
    return `${c.passed}/${c.scored}${c.infra > 0 ? ` +${c.infra} infra` : ""}`;
  };
  let out = "\n## Per task (passed/scored trials)\n\n";
  out += row(["Task", ...names.map(mdCell)]) + rule(names.length + 1);
  for (const task of tasks) out += row([mdCell(task), ...names.map((v) => cell(task, v))]);
  return out;
}

/** Our list of trials whose task setup failed, each scored as a fail ("" when none). */
export function setupList(sc: Scorecard): string {
  const failed = (sc.trials ?? []).filter((t: Trial) => t.setupFailed === true);
  if (failed.length === 0) return "";
  let out = "\n## Task setup failed (scored as fails)\n\n";
  out += row(["Variant", "Task", "Repeat", "Error"]) + rule(4);
  for (const t of failed)
    out += row([mdCell(t.variant), mdCell(t.task), `${t.repeat}`, mdCell(t.error ?? "")]);
  return out;
}

/** Our list of infrastructure failures at the end ("" when none). */
export function infraList(sc: Scorecard): string {
  const infra = (sc.trials ?? []).filter((t: Trial) => t.infra !== undefined);
  if (infra.length === 0) return "";
  let out = "\n## Infrastructure failures (not scored)\n\n";
  out += row(["Variant", "Task", "Repeat", "Kind", "Error"]) + rule(5);
  for (const t of infra)
    out += row([mdCell(t.variant), mdCell(t.task), `${t.repeat}`, t.infra!, mdCell(t.error ?? "")]);
  return out;
}

/** Our list of tampered trials, each scored as a fail, with every path the agent changed ("" when none). */
export function tamperedList(sc: Scorecard): string {
  const tampered = (sc.trials ?? []).filter((t: Trial) => t.tampered !== undefined);
  if (tampered.length === 0) return "";
  let out = "\n## Tampered trials (scored as fails)\n\n";
  out += row(["Variant", "Task", "Repeat", "What the agent changed that the verifier relies on"]) + rule(4);
  for (const t of tampered)
    out += row([mdCell(t.variant), mdCell(t.task), `${t.repeat}`, t.tampered!.map(mdCell).join("; ")]);
  return out;
}

/** Our list of the tasks the run went without, each with its reason ("" when none). */
export function skippedList(sc: Scorecard): string {
  const skipped = sc.skipped ?? [];
  if (skipped.length === 0) return "";
  return `\n## Skipped tasks (not run)\n\n${skipped.map((s) => `- ${mdCell(s.task)}: ${mdCell(s.reason)}\n`).join("")}`;
}

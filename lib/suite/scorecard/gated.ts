// The Markdown of a gated scorecard, byte for byte the newer original halo eval's layout (pass@k,
// pass^k and tool-call columns, the gate's verdict on top, a section per comparison with its reasons,
// metric deltas, regressed and flaky tasks), plus ours only where present: the --local mark, why a
// comparison is `insufficient`, infrastructure failures, tampered trials, skipped tasks. Numbers as
// Go's fmt prints them; names, reasons and errors through lib/report/markdown.ts, as markdown.ts does.
import { goFixed } from "../../compat/go.ts";
import { mdCell, mdCode } from "../../report/markdown.ts";
import { measured, NOT_MEASURED } from "./evidence.ts";
import { infraList, insufficientList, LOCAL_MARK, skippedList, tamperedList } from "./markdown.ts";
import type { Comparison, Scorecard } from "./schema.ts";

const pct = (x: number) => goFixed(100 * x, 1);
const signed = (x: number, digits: number) => goFixed(x, digits, true);
const secs = (ms: number) => goFixed(ms / 1000, 1);

/** Digits of each gate metric's baseline and delta (pass_rate is in points, apart). */
const DIGITS: Record<string, number> = { cost_usd: 4, tokens: 0, wall_ms: 0, tool_calls: 1 };
const METRICS = ["pass_rate", "cost_usd", "tokens", "wall_ms", "tool_calls"];
/** The trial metric behind a gate metric a harness may not report. */
const REPORTED: Record<string, "cost" | "tokens" | "toolCalls"> = {
  cost_usd: "cost",
  tokens: "tokens",
  tool_calls: "toolCalls",
};

function gateSection(c: Comparison, sc: Scorecard): string {
  const gate = c.gate!;
  let out = `\n## ${mdCell(c.variant)} vs ${mdCell(c.control)}: ${gate.verdict.toUpperCase()}\n\n`;
  for (const r of gate.reasons ?? []) out += `- ${mdCell(r)}\n`;
  const deltas = c.deltas ?? {};
  if (Object.keys(deltas).length > 0) {
    out += "\n| Metric | Baseline | Delta (95% CI) |\n|---|---|---|\n";
    for (const m of METRICS) {
      const d = deltas[m] ?? { mean: 0, ciLo: 0, ciHi: 0, baseline: 0 };
      if (m === "pass_rate") {
        out += `| ${m} | ${pct(d.baseline)}% | ${signed(100 * d.mean, 1)} pp (${signed(100 * d.ciLo, 1)} to ${signed(100 * d.ciHi, 1)}) |\n`;
        continue;
      }
      const n = DIGITS[m]!;
      // A delta is measured only where both arms' harnesses report the metric.
      const arm = (name: string) => sc.variants.find((v) => v.name === name);
      const has = (name: string) => !REPORTED[m] || measured(arm(name) ?? {}, REPORTED[m]!);
      if (!has(c.variant) || !has(c.control)) {
        out += `| ${m} | ${has(c.control) ? goFixed(d.baseline, n) : NOT_MEASURED} | ${NOT_MEASURED} |\n`;
        continue;
      }
      out += `| ${m} | ${goFixed(d.baseline, n)} | ${signed(d.mean, n)} (${signed(d.ciLo, n)} to ${signed(d.ciHi, n)}) |\n`;
    }
  }
  if ((gate.regressed ?? []).length > 0) {
    out += "\nRegressed tasks:\n\n";
    for (const t of gate.regressed!)
      out += `- ${mdCode(t.task)}: ${goFixed(100 * t.baseline, 0)}% -> ${goFixed(100 * t.candidate, 0)}%\n`;
  }
  if ((gate.flaky ?? []).length > 0) {
    out += "\nFlaky tasks (excluded from the gate):\n\n";
    for (const t of gate.flaky!) out += `- ${mdCode(t.task)}: ${mdCell(t.reason ?? "")}\n`;
  }
  return out;
}

/** The Markdown of a scorecard that carries a gate. */
export function renderGatedMarkdown(sc: Scorecard): string {
  let out = `# Eval scorecard: ${mdCell(sc.suite)}\n\n`;
  if (sc.runner === "local") out += `${LOCAL_MARK}\n\n`;
  out += `Control: ${mdCode(sc.control)}\n`;
  if (sc.gate) out += `\n**Gate: ${sc.gate.verdict.toUpperCase()}**\n`;
  const judge = sc.judge;
  if (judge?.rubrics?.length)
    out += `\nJudge: ${mdCode(judge.model ?? "")}, rubrics: ${judge.rubrics.map(mdCode).join(", ")}\n`;
  const k = Math.max(sc.k ?? 0, 1);
  // At k = 1 pass@1 and pass^1 would repeat the pass@1 column: the original's two columns go.
  const atK = k > 1 ? ` pass@${k} | pass^${k} |` : "";
  out += `\n| Variant | Trials | pass@1 (95% CI) |${atK} Cost/task | Wall p50 | Wall p95 | Tool calls | Tool errors | Errors |\n`;
  out += `|${"---|".repeat(k > 1 ? 11 : 9)}\n`;
  for (const v of sc.variants)
    out += `| ${[
      mdCell(v.name),
      `${v.trials}`,
      `${pct(v.pass1)}% (${pct(v.pass1CILo)}-${pct(v.pass1CIHi)})`,
      ...(k > 1 ? [`${pct(v.passAtK ?? 0)}%`, `${pct(v.passHatK ?? 0)}%`] : []),
      measured(v, "cost") ? `$${goFixed(v.costPerTaskUSD, 4)}` : NOT_MEASURED,
      `${secs(v.wallP50Ms)}s`,
      `${secs(v.wallP95Ms)}s`,
      v.toolCalls === undefined ? NOT_MEASURED : `${v.toolCalls}`,
      measured(v, "toolErrors") ? `${v.toolErrors}` : NOT_MEASURED,
      `${v.errors + (v.gradeErrors ?? 0)}`,
    ].join(" | ")} |\n`;
  const comparisons = sc.comparisons ?? [];
  if (comparisons.length > 0) {
    out +=
      "\n## Paired comparison vs control\n\n| Variant | Tasks | Delta pass rate (95% CI) | Verdict |\n|---|---|---|---|\n";
    for (const c of comparisons)
      out += `| ${mdCell(c.variant)} | ${c.tasks} | ${signed(100 * c.delta, 1)} pp (${signed(100 * c.ciLo, 1)} to ${signed(100 * c.ciHi, 1)}) | ${c.verdict} |\n`;
    out += insufficientList(comparisons);
  }
  for (const c of comparisons) if (c.gate) out += gateSection(c, sc);
  return out + infraList(sc) + tamperedList(sc) + skippedList(sc);
}

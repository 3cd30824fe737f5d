// The end-of-run table (case, result, assertions passed/total, time) as terminal text and as the
// Markdown that goes to $GITHUB_STEP_SUMMARY, and the result word the progress lines share. Pure
// functions of the RunResult.
import { shardLabel } from "../core/shard.ts";
import type { CaseRunResult, RunResult } from "./result.ts";

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)}s`;
}

/** A case's result in a word or two: pass, fail, `exit N` (the subject's own code), `error N`. */
export function resultWord(c: Pick<CaseRunResult, "exitCode" | "stage">): string {
  if (c.exitCode === 0) return "pass";
  if (c.exitCode === 1) return "fail";
  return c.stage === "subject" ? `exit ${c.exitCode}` : `error ${c.exitCode}`;
}

/** Assertions passed/total (`4/5`), or `-` for a case that never reached grading. */
export function assertionsCell(c: CaseRunResult): string {
  return c.assertions ? `${c.assertions.passed}/${c.assertions.total}` : "-";
}

/** The closing line: `✓ 11 passed (11 cases, 3.20s)` or `✗ 9 passed, 1 failed, 1 error (...)`. */
export function totalsLine(r: RunResult): string {
  const n = r.cases.length;
  const time = seconds(r.durationMs);
  if (r.ok) return `✓ ${r.counts.passed} passed (${n} case${n === 1 ? "" : "s"}, ${time})`;
  return `✗ ${r.counts.passed} passed, ${r.counts.failed} failed, ${r.counts.errors} error${r.counts.errors === 1 ? "" : "s"} (${n} cases, ${time}, exit ${r.exitCode})`;
}

/** The text table, each line ending in a newline. */
export function renderSummary(r: RunResult): string {
  const rows = r.cases.map((c) => [c.name, resultWord(c), assertionsCell(c), seconds(c.durationMs)]);
  const head = ["case", "result", "assertions", "time"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const shard = r.shard ? `, shard ${shardLabel(r.shard)}` : "";
  const out = [`◆ run-eval summary (${r.mechanism}, -j ${r.jobs}${shard})`, "┄".repeat(20), line(head)];
  for (const row of rows) out.push(line(row));
  out.push("┄".repeat(20), totalsLine(r));
  return `${out.join("\n")}\n`;
}

/** A Markdown table cell: `|` escaped, newlines folded to spaces. */
export function mdCell(s: string): string {
  return s.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The Markdown table for $GITHUB_STEP_SUMMARY. */
export function renderMarkdown(r: RunResult): string {
  const icon = (c: CaseRunResult) => (c.result === "pass" ? "✅" : "❌");
  const lines = [
    `### run-eval: ${r.ok ? "all cases passed" : "cases failed"}${r.shard ? ` (shard ${shardLabel(r.shard)})` : ""}`,
    "",
    "| case | result | assertions | time |",
    "|---|---|---:|---:|",
    ...r.cases.map(
      (c) =>
        `| ${mdCell(c.name)} | ${icon(c)} ${resultWord(c)} | ${assertionsCell(c)} | ${seconds(c.durationMs)} |`,
    ),
    "",
    mdCell(totalsLine(r)),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

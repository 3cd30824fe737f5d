// grade.py's text report: `◆ grade <name>`, a 40-wide `┄` rule, per assertion one verdict line and
// under it the tool's detail lines (`    │ `), the rule again, and the summary. One change from
// grade.py, which printed a tool's output before its verdict (so it read as the previous assertion's):
// the details follow the verdict they explain (issue 15). Takes a GradeResult; does no I/O.
import type { AssertionResult, GradeResult } from "./result.ts";

const RULE = "┄".repeat(40);

/** The verdict line of one assertion. */
export function verdictLine(a: AssertionResult): string {
  if (a.label === null) return "  ✗ non-object grade assertion";
  if (a.ok) return `  ✓ ${a.label}`;
  if (a.reason !== null) return `  ✗ ${a.label} — ${a.reason}`;
  return `  ✗ ${a.label} (want exit ${a.want}, got ${a.got ?? "None"})`;
}

/** The whole report, each line ending in a newline. */
export function renderGrade(result: GradeResult): string {
  const lines = [`◆ grade ${result.name}`, RULE];
  for (const a of result.assertions) {
    lines.push(verdictLine(a));
    for (const line of a.output) lines.push(`    │ ${line}`);
  }
  lines.push(RULE);
  const { passed, failed } = result.counts;
  lines.push(
    failed ? `✗ grade failed: ${passed} passed, ${failed} failed` : `✓ grade passed: ${passed} assertions`,
  );
  return `${lines.join("\n")}\n`;
}

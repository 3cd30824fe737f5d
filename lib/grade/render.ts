// grade.py's text report, byte for byte: `◆ grade <name>`, a 40-wide `┄` rule, per assertion the
// tool's output lines (`    │ `), then its verdict line (grade.py's _run printed what the tool printed
// as it ran, and the verdict after it: a negative assertion's nested idd-lint or gi-runlog output
// comes first, the line that sums it up last), the rule again, and the summary. Takes a
// GradeResult; does no I/O.
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
    for (const line of a.output) lines.push(`    │ ${line}`);
    lines.push(verdictLine(a));
  }
  lines.push(RULE);
  const { passed, failed } = result.counts;
  lines.push(
    failed ? `✗ grade failed: ${passed} passed, ${failed} failed` : `✓ grade passed: ${passed} assertions`,
  );
  return `${lines.join("\n")}\n`;
}

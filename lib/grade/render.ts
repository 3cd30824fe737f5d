// grade.py's text report, byte for byte: `◆ grade <name>`, a 40-wide `┄` rule, per assertion the
// tool's output lines (`    │ `), then its verdict line (grade.py's _run printed what the tool printed
// as it ran, and the verdict after it: a negative assertion's nested idd-lint or gi-runlog output
// comes first, the line that sums it up last), the rule again, and the summary. The general checks
// beside grade.py's tools (file-contains, file-not-contains, file-equals, json-path) print their
// verdict first, `want ..., got ...`, and the excerpt that explains it under it. Takes a GradeResult;
// does no I/O.
import type { AssertionResult, GradeResult } from "./result.ts";

/** The general checks whose lines explain their verdict line, so follow it. */
const CHECK_TOOLS = ["file-contains", "file-not-contains", "file-equals", "json-path"] as const;

const RULE = "┄".repeat(40);

/** The verdict line of one assertion. */
export function verdictLine(a: AssertionResult): string {
  if (a.label === null) return "  ✗ non-object grade assertion";
  if (a.ok) return `  ✓ ${a.label}`;
  if (a.reason !== null) return `  ✗ ${a.label} — ${a.reason}`;
  return `  ✗ ${a.label} (want exit ${a.want}, got ${a.got ?? "None"})`;
}

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;

/**
 * The whole report, each line ending in a newline. With `color` (a terminal), a check that passed
 * because its tool failed as expect_exit asked shows that tool's output dimmed and says so on its ✓
 * line, so its nested `✗` lines do not read as a failure; without, grade.py's bytes.
 */
export function renderGrade(result: GradeResult, opts: { color?: boolean } = {}): string {
  const lines = [`◆ grade ${result.name}`, RULE];
  for (const a of result.assertions) {
    const expected = opts.color === true && a.ok && a.output.length > 0;
    if (expected) {
      lines.push(...a.output.map((line) => dim(`    │ ${line}`)));
      lines.push(`${verdictLine(a)}${dim(` (the tool failed as expected: exit ${a.got})`)}`);
      continue;
    }
    const shown = a.output.map((line) => `    │ ${line}`);
    // A general check's lines explain its verdict line (`want ..., got ...`): they follow it.
    if (a.tool !== null && (CHECK_TOOLS as readonly string[]).includes(a.tool))
      lines.push(verdictLine(a), ...shown);
    else lines.push(...shown, verdictLine(a));
  }
  lines.push(RULE);
  const { passed, failed } = result.counts;
  lines.push(
    failed ? `✗ grade failed: ${passed} passed, ${failed} failed` : `✓ grade passed: ${passed} assertions`,
  );
  return `${lines.join("\n")}\n`;
}

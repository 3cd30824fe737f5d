// Commit-subject rules C01–C05 (IDD Spec §3.2, level L2): the conventional grammar with a trailing
// `(#N)`, lowercase description, no final period, length, scope. The grammar is shared with the
// PR-title rule (P01). Pure: message in, findings out.
import { D, pyLen, pySlice, rstrip, splitlines, strip } from "../../compat/py/text.ts";
import { err, type Finding, info, ok, warn } from "./report.ts";

/** `<type>(<scope>): <description> (#N)`; groups: type, scope, description, issue. */
export const COMMIT_RE = new RegExp(
  `^(feat|fix|refactor|docs|test|chore|style|perf)(?:\\(([a-z0-9._-]+)\\))?: ([^\\n]+?) \\(#(${D}+)\\)\\n?$`,
  "u",
);
const COMMIT_TYPES = ["feat", "fix", "refactor", "docs", "test", "chore", "style", "perf"];

/** The subject idd-lint checks: the first line of the stripped message. */
export function commitSubject(message: string): string {
  const s = strip(message);
  return s ? (splitlines(s)[0] ?? "") : "";
}

/** Lints one commit message (its first line). */
export function lintCommit(message: string): Finding[] {
  const subject = commitSubject(message);
  const label = pyLen(subject) <= 60 ? subject : `${pySlice(subject, 57)}...`;
  if (subject.startsWith("Merge ") || subject.startsWith("Revert ")) {
    return [info("C01", `'${label}' — merge/revert commit, skipped (§3.2)`)];
  }
  const m = COMMIT_RE.exec(subject);
  if (!m) {
    return [
      err(
        "C01",
        `'${label}' does not match <type>(<scope>): <description> (#N) with type in ${COMMIT_TYPES.join("/")} (§3.2)`,
      ),
    ];
  }
  const [, type, scope, desc = "", issue] = m;
  const findings = [
    ok("C01", `'${label}' matches the commit grammar (type=${type}, issue=#${issue}) (§3.2)`),
  ];
  if (/^\p{Uppercase}/u.test(desc))
    findings.push(err("C02", `'${label}' — description must be lowercase (§3.2)`));
  if (rstrip(desc).endsWith(".")) {
    findings.push(err("C03", `'${label}' — description must not end with a period (§3.2)`));
  }
  const len = pyLen(subject);
  if (len > 72) findings.push(warn("C04", `'${label}' — first line is ${len} chars, keep under 72 (§3.2)`));
  if (!scope) findings.push(info("C05", `'${label}' — no scope; scope is optional but recommended (§3.2)`));
  return findings;
}

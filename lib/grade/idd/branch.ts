// Branch-name rules B01–B02 (IDD Spec §3.1, level L2): `<type>/<issue>-<slug>` or an exempt
// hotfix/release branch, and a length warning. Pure: name in, findings out.
import { D, pyLen } from "../../compat/py/text.ts";
import { err, type Finding, ok, warn } from "./report.ts";

// `\n?$`: Python's `$` also matches before one trailing newline.
const BRANCH_RE = new RegExp(`^(fix|feat|refactor|docs|test|chore)/(${D}+)((?:-[a-z0-9]+)+)\\n?$`, "u");
const BRANCH_EXEMPT_RE = /^(hotfix|release)\/[a-z0-9][a-z0-9.-]*\n?$/;
const BRANCH_TYPES = ["fix", "feat", "refactor", "docs", "test", "chore"];

/** Lints one branch name. */
export function lintBranch(name: string): Finding[] {
  const findings: Finding[] = [];
  if (BRANCH_EXEMPT_RE.test(name)) {
    findings.push(
      ok("B01", `'${name}' is a workflow-driven hotfix/release branch — issue number optional (§3.1)`),
    );
  } else if (BRANCH_RE.test(name)) {
    findings.push(ok("B01", `'${name}' matches <type>/<issue>-<description> (§3.1)`));
  } else {
    findings.push(
      err(
        "B01",
        `'${name}' does not match <type>/<issue-number>-<short-description> with type in ${BRANCH_TYPES.join("/")} — lowercase, hyphen-separated (§3.1)`,
      ),
    );
  }
  const len = pyLen(name);
  if (len > 50) findings.push(warn("B02", `branch name is ${len} chars — should stay under 50 (§3.1)`));
  return findings;
}

// Pull-request rules: P01–P03 at L2 (title grammar, `Closes #N` or a valid `Refs #N` partial
// delivery, the Acceptance Criteria Verification table) and P04–P06 at L3 (Decision Record fields,
// Reproduction for bug fixes, `Analyzed at:`). Pure: body and options in, findings out.
import { D, strip } from "../../compat/py/text.ts";
import { COMMIT_RE } from "./commit.ts";
import { checkPartialDelivery, refsIssue } from "./delivery.ts";
import { firstContentLine, splitSections, tableRows } from "./markdown.ts";
import { err, type Finding, info, type Level, ok, warn } from "./report.ts";

const CLOSES_RE = new RegExp(`^Closes #${D}+$`, "u");
const NO_AC_NOTE_RE = /no acceptance criteria defined/iu;
const AC_STATUSES = ["pass", "fail", "unverified"];
const DR_FIELDS = [
  "Root cause",
  "Options considered",
  "Options rejected",
  "Selected option",
  "Residual risk",
];

/** What lintPr needs besides the body. `type` is the linked issue's type (bug/feature/improvement). */
export interface PrOptions {
  title?: string;
  type?: string;
  level: Level;
}

/** Lints a PR body (and title) at the given level. */
export function lintPr(body: string, opts: PrOptions): Finding[] {
  const findings: Finding[] = [];
  const sections = splitSections(body);

  let prIsFix = false;
  if (opts.title === undefined)
    findings.push(info("P01", "no --title given — PR title check skipped (§3.3)"));
  else {
    const m = COMMIT_RE.exec(strip(opts.title));
    if (m) {
      prIsFix = m[1] === "fix";
      findings.push(ok("P01", "title matches <type>(<scope>): <description> (#N) (§3.3)"));
    } else {
      findings.push(
        err("P01", `title '${opts.title}' does not match <type>(<scope>): <description> (#N) (§3.3)`),
      );
    }
  }

  const acv = sections.get("Acceptance Criteria Verification");
  findings.push(closingLine(body, opts.title, acv));
  findings.push(acTable(body, acv));
  if (opts.level !== "L3") return findings;

  const dr = sections.get("Decision Record");
  if (dr === undefined) {
    findings.push(err("P04", "missing '## Decision Record' section (§4.1)"));
    return findings;
  }
  for (const field of DR_FIELDS) {
    if (dr.includes(`**${field}:**`))
      findings.push(ok("P04", `Decision Record field **${field}:** present (§4.1)`));
    else
      findings.push(
        err("P04", `Decision Record missing **${field}:** (§4.1 — labels are string-matched, do not rename)`),
      );
  }
  const isBug = opts.type === undefined ? prIsFix : opts.type.toLowerCase() === "bug";
  if (isBug) {
    if (dr.includes("**Reproduction:**"))
      findings.push(ok("P05", "Reproduction evidence present for bug fix (§4.1)"));
    else findings.push(err("P05", "bug fix without **Reproduction:** field in the Decision Record (§4.1)"));
  }
  if (/^Analyzed at:/mu.test(dr)) findings.push(ok("P06", "'Analyzed at:' line present (§4.1)"));
  else findings.push(warn("P06", "no 'Analyzed at: `<branch> @ <sha>` (<date>)' line (§4.1, SHOULD)"));
  return findings;
}

/** P02: `Closes #N` on the first line, or `Refs #N` that qualifies as intentional partial delivery. */
function closingLine(body: string, title: string | undefined, acv: string | undefined): Finding {
  const first = firstContentLine(body);
  if (CLOSES_RE.test(first)) return ok("P02", `body first line is '${first}' (§5.1)`);
  if (refsIssue(body) !== null) {
    const verdict = checkPartialDelivery(body, title, acv);
    if (verdict.ok) {
      return ok(
        "P02",
        `body first line is '${first}' — intentional partial delivery, ${verdict.deferred} of ${verdict.rows} criteria deferred (§5.1)`,
      );
    }
    return err(
      "P02",
      `'${first}' is not a valid partial delivery (${verdict.reason}) — body must start with 'Closes #N' on its first line (§3.3, §5.1)`,
    );
  }
  return err("P02", "body must start with 'Closes #N' on its first line (§3.3, §5.1)");
}

/** P03: the AC verification table, or the explicit no-criteria note. */
function acTable(body: string, acv: string | undefined): Finding {
  if (acv === undefined) {
    if (NO_AC_NOTE_RE.test(body)) return ok("P03", "explicit no-acceptance-criteria note present (§5.2)");
    return err(
      "P03",
      "missing '## Acceptance Criteria Verification' table (or explicit no-criteria note) (§5.2)",
    );
  }
  const rows = tableRows(acv);
  const data = rows.slice(1).filter((r) => r.length >= 3);
  if (data.length === 0) {
    if (NO_AC_NOTE_RE.test(acv)) return ok("P03", "explicit no-acceptance-criteria note present (§5.2)");
    return err("P03", "'## Acceptance Criteria Verification' has no data rows (§5.2)");
  }
  const bad = data.filter((r) => !AC_STATUSES.includes(r[1]!.toLowerCase()));
  const noEvidence = data.filter((r) => !r[2]);
  if (bad.length) {
    return err("P03", `AC verification rows with status outside pass/fail/unverified: ${bad.length} (§5.2)`);
  }
  if (noEvidence.length)
    return err("P03", `AC verification rows without evidence: ${noEvidence.length} (§5.2)`);
  return ok("P03", `AC verification table valid (${data.length} row${data.length !== 1 ? "s" : ""}) (§5.2)`);
}

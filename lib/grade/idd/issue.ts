// Issue-body rules I01–I09 (IDD Spec §1–§2, level L1): the normalization marker, the Type,
// Description, Acceptance Criteria and Metadata sections, the type-specific fields, the Reporter
// Context blockquote, and informational dependency/hierarchy markers. Pure: text in, findings out.
import { D, NS, S, splitlines, strip, W } from "../../compat/py/text.ts";
import { firstContentLine, splitSections } from "./markdown.ts";
import { err, type Finding, info, ok, warn } from "./report.ts";

/** The normalization marker `<!-- gitissue:normalized vN -->`. */
export const MARKER_RE = new RegExp(`<!--${S}*gitissue:normalized${S}+v(${D}+)${S}*-->`, "u");
const CONFIDENCE_RE = /\((?:high|medium) confidence\)|\(needs review\)/g;
const CHECKBOX_RE = new RegExp(`^${S}*[-*] \\[[ xX]\\] ${NS}`, "gmu");
const DEP_MARKER_RE = new RegExp(`(?<!${W})(?:depends on|blocked by)(?!${W})`, "iu");
const CROSS_REPO_TOKEN_RE = new RegExp(`${NS}+/${NS}+#${D}+`, "gu");
const BARE_ISSUE_RE = new RegExp(`(?<![\\p{L}\\p{N}_/])#(${D}+)`, "gu");
const PART_MARKER_RE = new RegExp(`(?<!${W})part of:?${S}*(#${D}+)`, "giu");

const ISSUE_TYPES = ["bug", "feature", "improvement"];
const REQUIRED_FIELDS: Record<string, readonly string[]> = {
  bug: ["**Current behavior:**", "**Expected behavior:**"],
  improvement: ["**Current state:**", "**Proposed change:**"],
};

/** Lints a structured issue body (L1). */
export function lintIssue(body: string): Finding[] {
  const findings: Finding[] = [];
  const sections = splitSections(body);

  const marker = MARKER_RE.exec(body);
  if (!marker) {
    findings.push(err("I01", "normalization marker '<!-- gitissue:normalized v1 -->' missing (§1.1)"));
  } else if (!MARKER_RE.test(firstContentLine(body))) {
    findings.push(warn("I01", "normalization marker present but not on the first line (§1.1)"));
  } else {
    findings.push(ok("I01", `normalization marker present (v${marker[1]}) (§1.1)`));
  }

  let issueType: string | undefined;
  const typeSection = sections.get("Type");
  if (typeSection === undefined) {
    findings.push(err("I02", "missing '## Type' section (§1.1)"));
  } else {
    const raw = strip(firstContentLine(typeSection).replace(CONFIDENCE_RE, ""));
    issueType = raw.toLowerCase();
    if (ISSUE_TYPES.includes(issueType)) findings.push(ok("I02", `type is '${raw}' (§1.1)`));
    else if (raw) {
      findings.push(
        warn(
          "I02",
          `type '${raw}' is not one of Bug/Feature/Improvement — allowed only as a documented implementation extension (§1.1)`,
        ),
      );
    } else findings.push(err("I02", "'## Type' section is empty (§1.1)"));
  }

  if (sections.has("Description")) findings.push(ok("I03", "description section present (§1.1)"));
  else findings.push(err("I03", "missing '## Description' section (§1.1)"));

  for (const field of REQUIRED_FIELDS[issueType ?? ""] ?? []) {
    if (body.includes(field)) findings.push(ok("I04", `${field} present (§1.1)`));
    else findings.push(err("I04", `${issueType} issue missing required field ${field} (§1.1)`));
  }

  if (body.includes("> **Reporter Context**"))
    findings.push(ok("I05", "Reporter Context blockquote present (§1.1)"));
  else {
    findings.push(
      warn(
        "I05",
        "no '> **Reporter Context**' blockquote — required when normalizing, recommended always (§1.1)",
      ),
    );
  }

  const ac = sections.get("Acceptance Criteria");
  const boxes = ac === undefined ? 0 : (ac.match(CHECKBOX_RE) ?? []).length;
  if (ac === undefined) findings.push(err("I06", "missing '## Acceptance Criteria' section (§1.1)"));
  else if (boxes === 0)
    findings.push(err("I06", "'## Acceptance Criteria' has no '- [ ]' checkbox items (§1.1)"));
  else
    findings.push(
      ok("I06", `acceptance criteria present (${boxes} checkbox${boxes !== 1 ? "es" : ""}) (§1.1)`),
    );

  const meta = sections.get("Metadata");
  if (meta === undefined) findings.push(err("I07", "missing '## Metadata' section (§1.1)"));
  else {
    for (const label of ["**Priority:**", "**Effort:**", "**Labels:**"]) {
      if (meta.includes(label)) findings.push(ok("I07", `metadata field ${label} present (§1.1)`));
      else findings.push(err("I07", `metadata missing ${label} line (§1.1)`));
    }
  }

  const deps = dependencyRefs(body);
  if (deps.length) findings.push(info("I08", `dependency markers found: ${deps.join(", ")} (§2)`));
  const parents = [...body.matchAll(PART_MARKER_RE)].map((m) => m[1]!);
  if (parents.length) findings.push(info("I09", `hierarchy marker: Part of ${parents.join(", ")} (§2.1)`));
  return findings;
}

/** Same-repo `#N` references on lines that say "depends on" / "blocked by", first-seen order. */
export function dependencyRefs(body: string): string[] {
  const deps: string[] = [];
  for (const line of splitlines(body)) {
    if (!DEP_MARKER_RE.test(line)) continue;
    for (const m of line.replace(CROSS_REPO_TOKEN_RE, "").matchAll(BARE_ISSUE_RE)) {
      const ref = `#${m[1]}`;
      if (!deps.includes(ref)) deps.push(ref);
    }
  }
  return deps;
}

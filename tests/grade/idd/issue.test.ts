import { describe, expect, test } from "bun:test";
import { dependencyRefs, lintIssue } from "../../../lib/grade/idd/issue.ts";
import type { Finding } from "../../../lib/grade/idd/report.ts";
import { fixture } from "./_fixtures.ts";

const BASIC = fixture("issue-basic.md");
const codes = (body: string) => lintIssue(body).map((f) => `${f.severity}:${f.code}`);

describe("lintIssue", () => {
  test("the issue-creator/basic body passes every rule", () => {
    expect(lintIssue(BASIC)).toEqual([
      { severity: "ok", code: "I01", message: "normalization marker present (v1) (§1.1)" },
      { severity: "ok", code: "I02", message: "type is 'Bug' (§1.1)" },
      { severity: "ok", code: "I03", message: "description section present (§1.1)" },
      { severity: "ok", code: "I04", message: "**Current behavior:** present (§1.1)" },
      { severity: "ok", code: "I04", message: "**Expected behavior:** present (§1.1)" },
      { severity: "ok", code: "I05", message: "Reporter Context blockquote present (§1.1)" },
      { severity: "ok", code: "I06", message: "acceptance criteria present (2 checkboxes) (§1.1)" },
      { severity: "ok", code: "I07", message: "metadata field **Priority:** present (§1.1)" },
      { severity: "ok", code: "I07", message: "metadata field **Effort:** present (§1.1)" },
      { severity: "ok", code: "I07", message: "metadata field **Labels:** present (§1.1)" },
    ]);
  });

  test("the negative-empty body fails with every structural error", () => {
    expect(lintIssue(fixture("issue-negative-empty.md"))).toEqual([
      {
        severity: "error",
        code: "I01",
        message: "normalization marker '<!-- gitissue:normalized v1 -->' missing (§1.1)",
      },
      { severity: "error", code: "I02", message: "missing '## Type' section (§1.1)" },
      { severity: "error", code: "I03", message: "missing '## Description' section (§1.1)" },
      {
        severity: "warn",
        code: "I05",
        message:
          "no '> **Reporter Context**' blockquote — required when normalizing, recommended always (§1.1)",
      },
      { severity: "error", code: "I06", message: "missing '## Acceptance Criteria' section (§1.1)" },
      { severity: "error", code: "I07", message: "missing '## Metadata' section (§1.1)" },
    ]);
  });

  const cases: { name: string; body: string; find: Finding }[] = [
    {
      name: "I01 marker not on the first line is a warning",
      body: `Intro\n${BASIC}`,
      find: {
        severity: "warn",
        code: "I01",
        message: "normalization marker present but not on the first line (§1.1)",
      },
    },
    {
      name: "I01 marker with spacing and a later version",
      body: BASIC.replace("<!-- gitissue:normalized v1 -->", "<!--gitissue:normalized   v12-->"),
      find: { severity: "ok", code: "I01", message: "normalization marker present (v12) (§1.1)" },
    },
    {
      name: "I02 confidence markers are removed",
      body: BASIC.replace("\nBug\n", "\nFeature (high confidence)\n"),
      find: { severity: "ok", code: "I02", message: "type is 'Feature' (§1.1)" },
    },
    {
      name: "I02 unknown type is a warning",
      body: BASIC.replace("\nBug\n", "\nChore (needs review)\n"),
      find: {
        severity: "warn",
        code: "I02",
        message:
          "type 'Chore' is not one of Bug/Feature/Improvement — allowed only as a documented implementation extension (§1.1)",
      },
    },
    {
      name: "I02 empty type is an error",
      body: BASIC.replace("\nBug\n", "\n(needs review)\n"),
      find: { severity: "error", code: "I02", message: "'## Type' section is empty (§1.1)" },
    },
    {
      name: "I04 bug field missing",
      body: BASIC.replace("**Expected behavior:**", "Expected:"),
      find: {
        severity: "error",
        code: "I04",
        message: "bug issue missing required field **Expected behavior:** (§1.1)",
      },
    },
    {
      name: "I04 improvement fields",
      body: BASIC.replace("\nBug\n", "\nImprovement\n"),
      find: {
        severity: "error",
        code: "I04",
        message: "improvement issue missing required field **Current state:** (§1.1)",
      },
    },
    {
      name: "I06 section without checkboxes",
      body: BASIC.replace(/- \[ \] /g, "- "),
      find: {
        severity: "error",
        code: "I06",
        message: "'## Acceptance Criteria' has no '- [ ]' checkbox items (§1.1)",
      },
    },
    {
      name: "I06 one checked box counts, singular",
      body: BASIC.replace("- [ ] Desktop login continues to work\n", "").replace(
        "- [ ] Mobile",
        "* [x] Mobile",
      ),
      find: { severity: "ok", code: "I06", message: "acceptance criteria present (1 checkbox) (§1.1)" },
    },
    {
      name: "I07 metadata field missing",
      body: BASIC.replace("**Effort:** S\n", ""),
      find: { severity: "error", code: "I07", message: "metadata missing **Effort:** line (§1.1)" },
    },
    {
      name: "I08 dependency markers, cross-repo refs ignored, de-duplicated",
      body: `${BASIC}\nDepends on #12, other/repo#9 and #12\nBlocked by: #3 (not a/b#4)\nDEPENDS ON #5\nundepends on #6\n`,
      find: { severity: "info", code: "I08", message: "dependency markers found: #12, #3, #5 (§2)" },
    },
    {
      name: "I09 hierarchy marker",
      body: `${BASIC}\nPart of #7\npart of: #8\n`,
      find: { severity: "info", code: "I09", message: "hierarchy marker: Part of #7, #8 (§2.1)" },
    },
  ];
  for (const c of cases) test(c.name, () => expect(lintIssue(c.body)).toContainEqual(c.find));

  test("feature issues need no type-specific fields, and no dependency markers means no I08/I09", () => {
    const body = BASIC.replace("\nBug\n", "\nfeature\n").replace(/\*\*(Current|Expected) behavior:\*\*/g, "");
    expect(codes(body)).toEqual([
      "ok:I01",
      "ok:I02",
      "ok:I03",
      "ok:I05",
      "ok:I06",
      "ok:I07",
      "ok:I07",
      "ok:I07",
    ]);
  });

  test("dependencyRefs ignores refs preceded by a word character or slash", () => {
    expect(dependencyRefs("depends on x#1 /#2 #3\nnothing #4")).toEqual(["#3"]);
  });
});

import { describe, expect, test } from "bun:test";
import { lintPr } from "../../../lib/grade/idd/pr.ts";
import type { Severity } from "../../../lib/grade/idd/report.ts";
import { fixture } from "./_fixtures.ts";

const BUG = fixture("pr-trivial-bug.md");
const TITLE = "fix(auth): return true when credentials match (#1)";
const codes = (body: string, opts: Parameters<typeof lintPr>[1]) =>
  lintPr(body, opts).map((f) => `${f.severity}:${f.code}`);

describe("lintPr", () => {
  test("the trivial-bug PR passes at L3 with its title", () => {
    expect(lintPr(BUG, { title: TITLE, level: "L3" })).toEqual([
      { severity: "ok", code: "P01", message: "title matches <type>(<scope>): <description> (#N) (§3.3)" },
      { severity: "ok", code: "P02", message: "body first line is 'Closes #1' (§5.1)" },
      { severity: "ok", code: "P03", message: "AC verification table valid (2 rows) (§5.2)" },
      { severity: "ok", code: "P04", message: "Decision Record field **Root cause:** present (§4.1)" },
      {
        severity: "ok",
        code: "P04",
        message: "Decision Record field **Options considered:** present (§4.1)",
      },
      { severity: "ok", code: "P04", message: "Decision Record field **Options rejected:** present (§4.1)" },
      { severity: "ok", code: "P04", message: "Decision Record field **Selected option:** present (§4.1)" },
      { severity: "ok", code: "P04", message: "Decision Record field **Residual risk:** present (§4.1)" },
      { severity: "ok", code: "P05", message: "Reproduction evidence present for bug fix (§4.1)" },
      { severity: "ok", code: "P06", message: "'Analyzed at:' line present (§4.1)" },
    ]);
  });

  test("missing-closes fails P02 only", () => {
    expect(lintPr(fixture("pr-missing-closes.md"), { level: "L3" })).toContainEqual({
      severity: "error",
      code: "P02",
      message: "body must start with 'Closes #N' on its first line (§3.3, §5.1)",
    });
    expect(
      codes(fixture("pr-missing-closes.md"), { level: "L3" }).filter((c) => c.startsWith("error")),
    ).toEqual(["error:P02"]);
  });

  const noDr = BUG.replace(/## Decision Record[\s\S]*?(?=## Acceptance)/, "");
  const cases: { name: string; body: string; opts: Parameters<typeof lintPr>[1]; expected: string[] }[] = [
    {
      name: "no title is info P01",
      body: BUG,
      opts: { level: "L2" },
      expected: ["info:P01", "ok:P02", "ok:P03"],
    },
    {
      name: "L1 stops at P03 too",
      body: noDr,
      opts: { level: "L1" },
      expected: ["info:P01", "ok:P02", "ok:P03"],
    },
    {
      name: "bad title is P01 error",
      body: BUG,
      opts: { title: "Fix it", level: "L2" },
      expected: ["error:P01", "ok:P02", "ok:P03"],
    },
    {
      name: "Closes must be the first content line",
      body: `Summary\n${BUG}`,
      opts: { level: "L2" },
      expected: ["info:P01", "error:P02", "ok:P03"],
    },
    {
      name: "closes in lowercase is not Closes",
      body: BUG.replace("Closes #1", "closes #1"),
      opts: { level: "L2" },
      expected: ["info:P01", "error:P02", "ok:P03"],
    },
    {
      name: "missing DR section is one P04 error",
      body: noDr,
      opts: { level: "L3" },
      expected: ["info:P01", "ok:P02", "ok:P03", "error:P04"],
    },
    {
      name: "--type bug requires Reproduction",
      body: BUG.replace("**Reproduction:**", "Reproduction:"),
      opts: { type: "Bug", level: "L3" },
      expected: [
        "info:P01",
        "ok:P02",
        "ok:P03",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "error:P05",
        "ok:P06",
      ],
    },
    {
      name: "a fix title implies bug when --type is absent",
      body: BUG.replace("**Reproduction:**", "Reproduction:"),
      opts: { title: TITLE, level: "L3" },
      expected: [
        "ok:P01",
        "ok:P02",
        "ok:P03",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "error:P05",
        "ok:P06",
      ],
    },
    {
      name: "--type feature overrides a fix title",
      body: BUG.replace("**Reproduction:**", "Reproduction:"),
      opts: { title: TITLE, type: "feature", level: "L3" },
      expected: ["ok:P01", "ok:P02", "ok:P03", "ok:P04", "ok:P04", "ok:P04", "ok:P04", "ok:P04", "ok:P06"],
    },
    {
      name: "missing DR field and Analyzed at",
      body: BUG.replace("**Residual risk:**", "Residual risk:").replace("Analyzed at:", "analyzed at:"),
      opts: { level: "L3" },
      expected: [
        "info:P01",
        "ok:P02",
        "ok:P03",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "ok:P04",
        "error:P04",
        "warn:P06",
      ],
    },
  ];
  for (const c of cases) test(c.name, () => expect(codes(c.body, c.opts)).toEqual(c.expected));

  const acv = (table: string) => `Closes #1\n\n## Acceptance Criteria Verification\n\n${table}\n`;
  const p03: { name: string; body: string; message: string; severity: Severity }[] = [
    {
      name: "no section, no note",
      body: "Closes #1\n",
      message: "missing '## Acceptance Criteria Verification' table (or explicit no-criteria note) (§5.2)",
      severity: "error",
    },
    {
      name: "no section, note anywhere",
      body: "Closes #1\n\nNo Acceptance Criteria Defined — review manually.\n",
      message: "explicit no-acceptance-criteria note present (§5.2)",
      severity: "ok",
    },
    {
      name: "section without rows",
      body: acv("| Criterion | Status | Evidence |\n|---|---|---|"),
      message: "'## Acceptance Criteria Verification' has no data rows (§5.2)",
      severity: "error",
    },
    {
      name: "section with the note",
      body: acv("_No acceptance criteria defined._"),
      message: "explicit no-acceptance-criteria note present (§5.2)",
      severity: "ok",
    },
    {
      name: "bad status",
      body: acv("| C | S | E |\n| a | done | x |\n| b | PASS | y |"),
      message: "AC verification rows with status outside pass/fail/unverified: 1 (§5.2)",
      severity: "error",
    },
    {
      name: "empty evidence",
      body: acv("| C | S | E |\n| a | fail |  |\n| b | Unverified | y |"),
      message: "AC verification rows without evidence: 1 (§5.2)",
      severity: "error",
    },
    {
      name: "one row",
      body: acv("| C | S | E |\n| a | fail | log |"),
      message: "AC verification table valid (1 row) (§5.2)",
      severity: "ok",
    },
    {
      name: "short rows are not data rows",
      body: acv("| C | S | E |\n| a | pass |"),
      message: "'## Acceptance Criteria Verification' has no data rows (§5.2)",
      severity: "error",
    },
  ];
  for (const c of p03) {
    test(`P03 ${c.name}`, () => {
      expect(lintPr(c.body, { level: "L2" })[2]).toEqual({
        severity: c.severity,
        code: "P03",
        message: c.message,
      });
    });
  }
});

import { describe, expect, test } from "bun:test";
import { commitSubject, lintCommit } from "../../../lib/grade/idd/commit.ts";
import type { Finding } from "../../../lib/grade/idd/report.ts";

const TYPES = "feat/fix/refactor/docs/test/chore/style/perf";
const grammar = (label: string, type: string, issue: string): Finding => ({
  severity: "ok",
  code: "C01",
  message: `'${label}' matches the commit grammar (type=${type}, issue=#${issue}) (§3.2)`,
});
const noGrammar = (label: string): Finding => ({
  severity: "error",
  code: "C01",
  message: `'${label}' does not match <type>(<scope>): <description> (#N) with type in ${TYPES} (§3.2)`,
});
const noScope = (label: string): Finding => ({
  severity: "info",
  code: "C05",
  message: `'${label}' — no scope; scope is optional but recommended (§3.2)`,
});

describe("lintCommit", () => {
  const long = `feat(core): ${"x".repeat(56)} (#12)`;
  const longLabel = `${long.slice(0, 57)}...`;
  const cases: { name: string; input: string; expected: Finding[] }[] = [
    {
      name: "trivial-bug commit passes",
      input: "fix(auth): return true when credentials match (#1)",
      expected: [grammar("fix(auth): return true when credentials match (#1)", "fix", "1")],
    },
    {
      name: "no scope is info C05",
      input: "docs: add notes (#3)",
      expected: [grammar("docs: add notes (#3)", "docs", "3"), noScope("docs: add notes (#3)")],
    },
    {
      name: "uppercase description C02",
      input: "feat(ui): Add button (#4)",
      expected: [
        grammar("feat(ui): Add button (#4)", "feat", "4"),
        {
          severity: "error",
          code: "C02",
          message: "'feat(ui): Add button (#4)' — description must be lowercase (§3.2)",
        },
      ],
    },
    {
      name: "trailing period C03",
      input: "feat(ui): add button. (#4)",
      expected: [
        grammar("feat(ui): add button. (#4)", "feat", "4"),
        {
          severity: "error",
          code: "C03",
          message: "'feat(ui): add button. (#4)' — description must not end with a period (§3.2)",
        },
      ],
    },
    {
      name: "long first line C04 with a truncated label",
      input: long,
      expected: [
        grammar(longLabel, "feat", "12"),
        {
          severity: "warn",
          code: "C04",
          message: `'${longLabel}' — first line is 74 chars, keep under 72 (§3.2)`,
        },
      ],
    },
    { name: "missing issue ref", input: "fix(auth): thing", expected: [noGrammar("fix(auth): thing")] },
    { name: "unknown type", input: "feature: x (#1)", expected: [noGrammar("feature: x (#1)")] },
    { name: "uppercase scope", input: "fix(Auth): x (#1)", expected: [noGrammar("fix(Auth): x (#1)")] },
    { name: "empty message", input: "", expected: [noGrammar("")] },
    {
      name: "merge commits are skipped",
      input: "Merge branch 'main' into x",
      expected: [
        {
          severity: "info",
          code: "C01",
          message: "'Merge branch 'main' into x' — merge/revert commit, skipped (§3.2)",
        },
      ],
    },
    {
      name: "revert commits are skipped",
      input: 'Revert "fix: x (#1)"',
      expected: [
        {
          severity: "info",
          code: "C01",
          message: `'Revert "fix: x (#1)"' — merge/revert commit, skipped (§3.2)`,
        },
      ],
    },
    {
      name: "only the first line counts",
      input: "  fix(a): b (#2)\n\nbody text.",
      expected: [grammar("fix(a): b (#2)", "fix", "2")],
    },
  ];
  for (const c of cases) test(c.name, () => expect(lintCommit(c.input)).toEqual(c.expected));

  test("commitSubject keeps trailing spaces of the first line, like the original", () => {
    expect(commitSubject("  feat: x (#1)   \nbody")).toEqual("feat: x (#1)   ");
    expect(lintCommit("feat: x (#1)   \nbody").map((f) => f.severity)).toEqual(["error"]);
  });
});

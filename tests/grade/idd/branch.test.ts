import { describe, expect, test } from "bun:test";
import { lintBranch } from "../../../lib/grade/idd/branch.ts";
import type { Finding } from "../../../lib/grade/idd/report.ts";

const TYPES = "fix/feat/refactor/docs/test/chore";
const bad = (name: string): Finding => ({
  severity: "error",
  code: "B01",
  message: `'${name}' does not match <type>/<issue-number>-<short-description> with type in ${TYPES} — lowercase, hyphen-separated (§3.1)`,
});
const good = (name: string): Finding => ({
  severity: "ok",
  code: "B01",
  message: `'${name}' matches <type>/<issue>-<description> (§3.1)`,
});

describe("lintBranch", () => {
  const long = `feat/12-${"a".repeat(43)}`;
  const cases: { name: string; expected: Finding[] }[] = [
    { name: "fix/1-mobile-login-redirect", expected: [good("fix/1-mobile-login-redirect")] },
    { name: "chore/7-a-b-c9", expected: [good("chore/7-a-b-c9")] },
    { name: "Bad/Branch_Name", expected: [bad("Bad/Branch_Name")] },
    { name: "feature/1-x", expected: [bad("feature/1-x")] },
    { name: "fix/1", expected: [bad("fix/1")] },
    { name: "fix/1-Upper", expected: [bad("fix/1-Upper")] },
    { name: "fix/x-desc", expected: [bad("fix/x-desc")] },
    { name: "fix/1-desc\n", expected: [good("fix/1-desc\n")] },
    {
      name: "release/v1.2.0",
      expected: [
        {
          severity: "ok",
          code: "B01",
          message:
            "'release/v1.2.0' is a workflow-driven hotfix/release branch — issue number optional (§3.1)",
        },
      ],
    },
    { name: "hotfix/-x", expected: [bad("hotfix/-x")] },
    {
      name: long,
      expected: [
        good(long),
        { severity: "warn", code: "B02", message: "branch name is 51 chars — should stay under 50 (§3.1)" },
      ],
    },
  ];
  for (const c of cases) test(JSON.stringify(c.name), () => expect(lintBranch(c.name)).toEqual(c.expected));

  test("B02 counts code points and not 50 exactly", () => {
    expect(lintBranch(`feat/12-${"a".repeat(42)}`).map((f) => f.code)).toEqual(["B01"]);
    // 29 code points, 52 UTF-16 units: Python's len() says 29.
    expect(lintBranch(`fix/1-${"😀".repeat(23)}`).map((f) => f.code)).toEqual(["B01"]);
  });
});

import { describe, expect, test } from "bun:test";
import {
  checkPartialDelivery,
  isDeferredRow,
  type PartialDelivery,
  refsIssue,
} from "../../../lib/grade/idd/delivery.ts";
import { splitSections } from "../../../lib/grade/idd/markdown.ts";
import { lintPr } from "../../../lib/grade/idd/pr.ts";
import { fixture } from "./_fixtures.ts";

const REFS = fixture("pr-intentional-refs.md");
const ALL_DEFERRED = fixture("pr-all-deferred.md");
const TITLE = "feat(plugin): ship the claude code plugin (#42)";
const acvOf = (body: string) => splitSections(body).get("Acceptance Criteria Verification");
const check = (body: string, title: string | undefined) => checkPartialDelivery(body, title, acvOf(body));

describe("intentional partial delivery (Refs #N)", () => {
  test("intentional-refs passes P02 and the whole PR at L3", () => {
    const findings = lintPr(REFS, { title: TITLE, level: "L3" });
    expect(findings[1]).toEqual({
      severity: "ok",
      code: "P02",
      message:
        "body first line is 'Refs #42' — intentional partial delivery, 1 of 2 criteria deferred (§5.1)",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  test("all-deferred fails P02 as a missing Closes", () => {
    expect(lintPr(ALL_DEFERRED, { title: TITLE, level: "L3" })[1]).toEqual({
      severity: "error",
      code: "P02",
      message:
        "'Refs #42' is not a valid partial delivery (every criterion is deferred — nothing is delivered) — body must start with 'Closes #N' on its first line (§3.3, §5.1)",
    });
  });

  const cases: { name: string; body: string; title: string | undefined; expected: PartialDelivery }[] = [
    { name: "valid", body: REFS, title: TITLE, expected: { ok: true, issue: "42", rows: 2, deferred: 1 } },
    {
      name: "no title",
      body: REFS,
      title: undefined,
      expected: { ok: false, reason: "no --title naming (#42) to confirm the issue" },
    },
    {
      name: "title without an issue",
      body: REFS,
      title: "feat: ship it",
      expected: { ok: false, reason: "no --title naming (#42) to confirm the issue" },
    },
    {
      name: "title names another issue",
      body: REFS,
      title: "feat(plugin): ship (#43)",
      expected: { ok: false, reason: "the title names (#43), not #42" },
    },
    {
      name: "a closing keyword names #N elsewhere",
      body: REFS.replace("## Summary", "## Summary\n\nThis fixes #42 for good."),
      title: TITLE,
      expected: { ok: false, reason: "closing keyword 'fixes #42' names #42" },
    },
    {
      name: "closing keyword forms: Resolved: #N",
      body: REFS.replace("## Summary", "## Summary\n\nResolved: #42"),
      title: TITLE,
      expected: { ok: false, reason: "closing keyword 'Resolved: #42' names #42" },
    },
    {
      name: "a closing keyword for another issue is fine",
      body: REFS.replace("## Summary", "## Summary\n\nCloses #421 and fixes #4, prefix #42x, hotfix #42."),
      title: TITLE,
      expected: { ok: true, issue: "42", rows: 2, deferred: 1 },
    },
    {
      name: "an open criterion that is not deferred (fail)",
      body: REFS.replace("| pass | tests/test-plugin.sh |", "| fail | tests/test-plugin.sh |"),
      title: TITLE,
      expected: {
        ok: false,
        reason: 'open criterion is not a deferred row (Status unverified, Evidence "deferred …")'.replace(
          /^/,
          "1 ",
        ),
      },
    },
    {
      name: "an unverified row without 'deferred'",
      body: REFS.replace("Deferred to a later PR", "Later PR"),
      title: TITLE,
      expected: {
        ok: false,
        reason: '1 open criterion is not a deferred row (Status unverified, Evidence "deferred …")',
      },
    },
    {
      name: "no AC table",
      body: "Refs #42\n\nPartial.\n",
      title: TITLE,
      expected: { ok: false, reason: "no Acceptance Criteria Verification rows declare what is deferred" },
    },
    {
      name: "all deferred",
      body: ALL_DEFERRED,
      title: TITLE,
      expected: { ok: false, reason: "every criterion is deferred — nothing is delivered" },
    },
  ];
  for (const c of cases) test(c.name, () => expect(check(c.body, c.title)).toEqual(c.expected));

  test("refsIssue needs exactly 'Refs #N' as the first content line", () => {
    expect([
      refsIssue("\n Refs #7 \nx"),
      refsIssue("Refs #7 and more"),
      refsIssue("refs #7"),
      refsIssue("x\nRefs #7"),
    ]).toEqual(["7", null, null, null]);
  });

  test("isDeferredRow: unverified status and 'deferred' evidence, case-insensitive", () => {
    expect([
      isDeferredRow(["c", "Unverified", "DEFERRED to #9"]),
      isDeferredRow(["c", "fail", "deferred"]),
      isDeferredRow(["c", "unverified", "manual"]),
    ]).toEqual([true, false, false]);
  });

  test("a Refs body with an invalid partial delivery is an L2 error (exit 1 semantics)", () => {
    expect(lintPr(REFS, { level: "L2" }).map((f) => `${f.severity}:${f.code}`)).toEqual([
      "info:P01",
      "error:P02",
      "ok:P03",
    ]);
  });
});

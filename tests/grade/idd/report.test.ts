import { describe, expect, test } from "bun:test";
import { err, info, ok, render, SPEC_URL, warn } from "../../../lib/grade/idd/report.ts";

const findings = [
  ok("B01", "fine (§3.1)"),
  warn("B02", "long (§3.1)"),
  info("C05", "no scope"),
  err("C02", "upper"),
];

describe("render", () => {
  test("full report with errors is exit 1", () => {
    const report = render(findings, "branch x", "L2");
    expect(report.exitCode).toEqual(1);
    expect(report.text).toMatchInlineSnapshot(`
"◆ idd-lint — branch x (IDD Spec v1.1, level L2)
┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄
  ✓ [B01] fine (§3.1)
  ⚠ [B02] long (§3.1)
  ○ [C05] no scope
  ✗ [C02] upper
┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄┄
  Passed: 1   Warnings: 1   Errors: 1
  ✗ not conformant — see https://github.com/luongnv89/idd/blob/main/SPEC.md
"
`);
  });

  test("quiet hides ok and info; warnings alone are conformant", () => {
    const report = render(findings.slice(0, 3), "x", "L3", true);
    expect(report).toEqual({
      exitCode: 0,
      text: [
        "◆ idd-lint — x (IDD Spec v1.1, level L3)",
        "┄".repeat(59),
        "  ⚠ [B02] long (§3.1)",
        "┄".repeat(59),
        "  Passed: 1   Warnings: 1   Errors: 0",
        "  ✓ conformant at L3 (spec v1.1)",
        "",
      ].join("\n"),
    });
  });

  test("the spec URL is a constant https URL", () => expect(SPEC_URL.startsWith("https://")).toBe(true));
});

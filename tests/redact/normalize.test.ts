// The copies detection reads (lib/redact/normalize.ts) and their maps back to the original, and the
// rule table's cost on adversarial text: long runs of name characters, repeated prefixes, invisible
// characters and percent escapes scan in linear time (a quadratic rule stalled a harvest on a 600 kB
// tool result for minutes; here every megabyte input finishes well inside the suite's timeout).
import { describe, expect, test } from "bun:test";
import { redactText } from "../../lib/redact/index.ts";
import { originalSpan, viewsOf } from "../../lib/redact/normalize.ts";
import { findStrict, STRICT_DETECTORS } from "../../lib/redact/strict.ts";

describe("viewsOf", () => {
  test.each<{ name: string; input: string; views: string[] }>([
    { name: "plain ASCII is its own only copy", input: "a=b c", views: ["a=b c"] },
    { name: "zero-width and soft hyphen dropped", input: "gh\u200bp_\u00adx", views: ["ghp_x"] },
    { name: "full-width letters folded", input: "\uff47\uff48\uff50", views: ["ghp"] },
    { name: "percent-decoded after NFKC", input: "a%3Db", views: ["a%3Db", "a=b"] },
    { name: "decoded twice", input: "a%253Db", views: ["a%253Db", "a%3Db", "a=b"] },
    { name: "non-ASCII escapes stay", input: "%C3%BC", views: ["%C3%BC"] },
  ])("$name", ({ input, views }) => {
    expect(viewsOf(input).map((v) => v.text)).toEqual(views);
  });

  test("a span in a copy maps back to the original characters it came from", () => {
    const input = "x gh\u200bp_Q y%3Dz";
    const [norm, decoded] = viewsOf(input);
    expect({
      norm: originalSpan(norm as never, 2, 7),
      decoded: originalSpan(decoded as never, 9, 10),
    }).toEqual({ norm: { start: 2, end: 8 }, decoded: { start: 10, end: 13 } });
  });

  test("the redaction replaces the original span, invisible characters included", () => {
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const hidden = `${token.slice(0, 10)}\u200b${token.slice(10, 20)}\u2060${token.slice(20)}`;
    expect(redactText(`use ${hidden} now`).text).toEqual("use [REDACTED:github-token] now");
  });
});

test.each([
  { name: "underscored run", input: "a_".repeat(500_000) },
  { name: "dotted run before @", input: `${"a.".repeat(300_000)}@` },
  { name: "scheme-like run", input: "a+".repeat(500_000) },
  { name: "domain-like run", input: `a@${"a-".repeat(500_000)}1` },
  { name: "upper-case run", input: "A_".repeat(500_000) },
  { name: "key= repeated", input: "key=".repeat(250_000) },
  { name: "zero-width after prefixes", input: "ghp_\u200b".repeat(200_000) },
  { name: "percent escapes", input: "%41".repeat(330_000) },
])("linear on a megabyte: $name", ({ input }) => {
  expect(Array.isArray(findStrict(input, STRICT_DETECTORS, true))).toEqual(true);
});

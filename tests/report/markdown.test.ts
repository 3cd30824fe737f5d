// lib/report/markdown.ts: the one Markdown escaper. Each row is a text a report did not write and
// what mdCell (a cell, a list item, a heading's words) and mdCode (a code span) make of it: plain
// names unchanged, everything that would render as more than its own text escaped or broken.
import { describe, expect, test } from "bun:test";
import { mdCell, mdCode } from "../../lib/report/markdown.ts";

const Z = "\u200b";

const rows: { name: string; text: string; cell: string; code: string }[] = [
  { name: "a plain task id", text: "fix-add", cell: "fix-add", code: "`fix-add`" },
  {
    name: "a matrix cell's name",
    text: "claude@2.1/sonnet",
    cell: "claude@2.1/sonnet",
    code: "`claude@2.1/sonnet`",
  },
  { name: "a word with underscores", text: "API_KEY", cell: "API_KEY", code: "`API_KEY`" },
  { name: "a new row", text: "a\n| b | c |", cell: "a\\n\\| b \\| c \\|", code: "`a\\n| b | c |`" },
  { name: "a heading", text: "x\r\n## Approved", cell: "x\\n## Approved", code: "`x\\n## Approved`" },
  { name: "a lone CR and U+2028", text: "a\rb\u2028c", cell: "a\\nb\\nc", code: "`a\\nb\\nc`" },
  {
    name: "a link",
    text: "[ok](https://evil.example)",
    cell: `\\[ok\\](https:${Z}//evil.example)`,
    code: "`[ok](https://evil.example)`",
  },
  { name: "an image", text: "![x](y)", cell: "!\\[x\\](y)", code: "`![x](y)`" },
  {
    name: "an autolink",
    text: "<https://e.example>",
    cell: `\\<https:${Z}//e.example>`,
    code: "`<https://e.example>`",
  },
  {
    name: "a bare www link",
    text: "see www.e.example",
    cell: `see www${Z}.e.example`,
    code: "`see www.e.example`",
  },
  {
    name: "HTML",
    text: "<img src=x onerror=y>",
    cell: "\\<img src=x onerror=y>",
    code: "`<img src=x onerror=y>`",
  },
  { name: "a mention", text: "@admin", cell: `@${Z}admin`, code: "`@admin`" },
  { name: "a team mention", text: "cc @org/team", cell: `cc @${Z}org/team`, code: "`cc @org/team`" },
  { name: "a mention as an entity", text: "&#64;admin", cell: "\\&#64;admin", code: "`&#64;admin`" },
  { name: "a named entity", text: "&lt;b&gt;", cell: "\\&lt;b\\&gt;", code: "`&lt;b&gt;`" },
  { name: "a plain ampersand", text: "a & b", cell: "a & b", code: "`a & b`" },
  { name: "emphasis", text: "*b* _i_ ~~s~~", cell: "\\*b\\* \\_i\\_ \\~\\~s\\~\\~", code: "`*b* _i_ ~~s~~`" },
  { name: "math", text: "$x^2$", cell: "\\$x^2\\$", code: "`$x^2$`" },
  { name: "backticks", text: "a`b``c", cell: "a\\`b\\`\\`c", code: "```a`b``c```" },
  { name: "a backtick at the edge", text: "`x", cell: "\\`x", code: "`` `x ``" },
  { name: "a backslash", text: "a\\|b", cell: "a\\\\\\|b", code: "`a\\|b`" },
  {
    name: "controls and a bidi override",
    text: "a\u0007b\u202ec\td",
    cell: "a\ufffdb\ufffdc d",
    code: "`a\ufffdb\ufffdc d`",
  },
];

describe("mdCell and mdCode", () => {
  test("every row", () => {
    const got = Object.fromEntries(rows.map((r) => [r.name, { cell: mdCell(r.text), code: mdCode(r.text) }]));
    const want = Object.fromEntries(rows.map((r) => [r.name, { cell: r.cell, code: r.code }]));
    expect(got).toEqual(want);
  });
});

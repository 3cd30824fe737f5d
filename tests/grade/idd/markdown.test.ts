import { describe, expect, test } from "bun:test";
import { dataRows, firstContentLine, splitSections, tableRows } from "../../../lib/grade/idd/markdown.ts";

describe("splitSections", () => {
  const cases: { name: string; input: string; expected: Record<string, string> }[] = [
    {
      name: "preamble under empty heading",
      input: "a\n## One\nx\n## Two  \ny",
      expected: { "": "a", One: "x", Two: "y" },
    },
    { name: "first heading wins", input: "## A\n1\n## A\n2", expected: { "": "", A: "1" } },
    { name: "### is not a section", input: "## A\n### B\nz", expected: { "": "", A: "### B\nz" } },
    { name: "headings are exact text", input: "##Type\n## type\nx", expected: { "": "##Type", type: "x" } },
    { name: "CRLF and lone CR split lines", input: "## A\r\nx\ry", expected: { "": "", A: "x\ny" } },
    { name: "empty text", input: "", expected: { "": "" } },
  ];
  for (const c of cases) {
    test(c.name, () => expect(Object.fromEntries(splitSections(c.input))).toEqual(c.expected));
  }
});

describe("firstContentLine", () => {
  const cases = [
    { input: "\n\n  Closes #1  \nx", expected: "Closes #1" },
    { input: "\u3000\n\tRefs #2", expected: "Refs #2" },
    { input: "   \n\n", expected: "" },
  ];
  for (const c of cases)
    test(JSON.stringify(c.input), () => expect(firstContentLine(c.input)).toEqual(c.expected));
});

describe("tables", () => {
  test("rows skip separators and strip outer pipes and cells", () => {
    const text =
      "| A | B | C |\n|---|---|---|\n  | x | pass |  ev |\nnot a row\n| y | fail | |\n||z|pass||\n| short | row |";
    expect(tableRows(text)).toEqual([
      ["A", "B", "C"],
      ["x", "pass", "ev"],
      ["y", "fail", ""],
      ["z", "pass"],
      ["short", "row"],
    ]);
    expect(dataRows(text)).toEqual([
      ["x", "pass", "ev"],
      ["y", "fail", ""],
    ]);
  });
});

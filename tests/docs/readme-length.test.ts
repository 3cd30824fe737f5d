// README.md stays a start page (issue 26): at most 300 lines, with everything else on docs/ pages,
// each of which the README links to. Checked on PROCTOR_DOCS_ROOT when set (_blocks.ts), as the
// other docs tests are.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DOCS_ROOT, docFiles } from "./_blocks.ts";

const README = () => readFileSync(join(DOCS_ROOT, "README.md"), "utf8");

test("README.md has at most 300 lines", () => {
  const lines = README().trimEnd().split("\n").length;
  expect({ lines, atMost300: lines <= 300 }).toEqual({ lines, atMost300: true });
});

test("README.md links to every docs/ page", () => {
  const pages = docFiles().filter((f) => f.startsWith("docs/"));
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.filter((p) => !README().includes(`](${p}`))).toEqual([]);
});

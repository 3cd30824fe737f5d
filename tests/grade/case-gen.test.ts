import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeCase } from "../../lib/grade/runner.ts";
import { makeCase30 } from "../support/case-gen.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

test("makeCase30 writes the same 30-assertion case for a seed, and it grades all-pass", async () => {
  using a = tempDir("case30");
  using b = tempDir("case30");
  const one = makeCase30(a.path);
  const two = makeCase30(b.path);
  const text = (d: string) => readFileSync(join(d, "case.json"), "utf8");
  const result = await gradeCase(one.caseDir, one.outDir, { repoRoot: REPO });
  const tools = new Set(result.assertions.map((x) => x.tool));
  expect({
    same: text(one.caseDir) === text(two.caseDir),
    n: result.assertions.length,
    tools: tools.size,
    failed: result.assertions.filter((x) => !x.ok),
  }).toEqual({
    same: true,
    n: 30,
    tools: 6,
    failed: [],
  });
});

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GradeResult, gradeResultJsonSchema } from "../../lib/grade/result.ts";
import { gradeCase } from "../../lib/grade/runner.ts";
import { FIXTURES, REPO } from "../support/grade.ts";

test("schemas/grade-result.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO, "schemas", "grade-result.schema.json"), "utf8"));
  expect(committed).toEqual(gradeResultJsonSchema());
});

test("a real grade result matches its schema", async () => {
  const dir = join(FIXTURES, "lenient");
  const result = await gradeCase(join(dir, "case"), join(dir, "out"), { repoRoot: REPO });
  expect(GradeResult.safeParse(result).success).toBe(true);
});

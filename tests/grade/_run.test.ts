import { expect, test } from "bun:test";
import { runRule } from "../../lib/grade/_run.ts";

test("runRule: exit 0 shows nothing, non-zero shows stdout+stderr (joined as grade.py did), at most 20 lines", async () => {
  const many = Array.from({ length: 25 }, (_, i) => `line ${i}`).join("\n");
  expect([
    await runRule(async () => ({ exitCode: 0, stdout: "ok\n", stderr: "" })),
    await runRule(async () => ({ exitCode: 1, stdout: "", stderr: "" })),
    await runRule(async () => ({ exitCode: 3, stdout: "out", stderr: "err\n" })),
    (await runRule(async () => ({ exitCode: 1, stdout: many, stderr: "" }))).output.length,
  ]).toEqual([{ got: 0, output: [] }, { got: 1, output: [] }, { got: 3, output: ["outerr"] }, 20]);
});

test("runRule: a call that throws is 'unable to run grading tool' with got None", async () => {
  expect(
    await runRule(async () => {
      throw new Error("boom");
    }),
  ).toEqual({ got: null, output: ["unable to run grading tool: boom"] });
});

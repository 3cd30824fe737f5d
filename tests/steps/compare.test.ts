// `eval-steps compare BASE.json HEAD.json` (issue 26: there was no way to set two step scorecards side
// by side): cases paired by id, each rate's change by the exact paired sign-flip test over sessions,
// `insufficient` below the sessions any test at 5% needs, the cases whose pass flipped; exit 0, 1 when
// a rate got worse, 2 when the scorecards share no case, 3 for a file that is not a scorecard.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { compareSteps } from "../../lib/steps/compare.ts";
import { buildStepScorecard, type StepResult } from "../../lib/steps/scorecard.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { result } from "./_cases.ts";

/** Two cases in each of `sessions` sessions, `fail` picking the ones that fail. */
function card(model: string, sessions: number, fail: (id: string, s: number) => boolean = () => false) {
  const results: StepResult[] = [];
  for (let s = 1; s <= sessions; s++)
    for (const k of [1, 2]) {
      const id = `s${s}-c${k}`;
      results.push(
        fail(id, s) ? result(id, s, { pass: false, sameTools: false, sameCalls: false }) : result(id, s),
      );
    }
  return buildStepScorecard("suite", model, results);
}

const verdicts = (c: ReturnType<typeof compareSteps>) => c.metrics.map((m) => [m.name, m.verdict]);

describe("compareSteps", () => {
  test("every case of 8 sessions goes from pass to fail: worse, exit 1, the flipped cases listed", () => {
    const c = compareSteps(
      card("a", 8),
      card("b", 8, () => true),
    );
    expect({ verdicts: verdicts(c), worse: c.worse.length, better: c.better, exitCode: c.exitCode }).toEqual({
      verdicts: [
        ["PASS", "worse"],
        ["SAME TOOLS", "worse"],
        ["SAME CALLS", "worse"],
        ["VALID CALLS", "no significant difference"],
        ["PREMATURE STOP", "no significant difference"],
      ],
      worse: 16,
      better: [],
      exitCode: 1,
    });
  });

  test("the other way round: better, exit 0", () => {
    const c = compareSteps(
      card("b", 8, () => true),
      card("a", 8),
    );
    expect({ pass: c.metrics[0], better: c.better.length, exitCode: c.exitCode }).toEqual({
      pass: { name: "PASS", n: 16, base: 0, head: 1, sessions: 8, p: 2 / 256, verdict: "better" },
      better: 16,
      exitCode: 0,
    });
  });

  test("two sessions cannot decide: insufficient, not a pass", () => {
    const c = compareSteps(
      card("a", 2),
      card("b", 2, () => true),
    );
    expect({ pass: c.metrics[0]?.verdict, exitCode: c.exitCode }).toEqual({
      pass: "insufficient",
      exitCode: 0,
    });
  });

  test("no case in common is refused", () => {
    const other = buildStepScorecard("suite", "b", [result("x", 1)]);
    expect(() => compareSteps(card("a", 2), other)).toThrow(
      "Cannot compare: the scorecards share no case id (are they of the same step suite?)",
    );
  });
});

test("the CLI: text, exit codes, a file that is not a scorecard", async () => {
  using dir = tempDir("steps-compare");
  const at = (n: string) => join(dir.path, n);
  writeFileSync(at("base.json"), JSON.stringify(card("opus", 8)));
  writeFileSync(
    at("head.json"),
    JSON.stringify(card("sonnet", 8, (id) => id === "s1-c1" || id.endsWith("-c2"))),
  );
  writeFileSync(at("bad.json"), "{}");
  const cli = async (...args: string[]) => {
    const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), "compare", ...args], {
      env: { PATH: process.env.PATH ?? "" },
    });
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  };
  const text = await cli(at("base.json"), at("head.json"));
  expect({ ...text, stdout: text.stdout.split("\n").slice(0, 8) }).toEqual({
    exitCode: 1,
    stderr: "",
    stdout: [
      "base opus (16 cases)  head sonnet (16 cases)  paired 16",
      "",
      "PASS              100% -> 44%  n=16  worse, p=0.008",
      "SAME TOOLS        100% -> 44%  n=16  worse, p=0.008",
      "SAME CALLS        100% -> 44%  n=16  worse, p=0.008",
      "VALID CALLS       100% -> 100%  n=16  no significant difference",
      "PREMATURE STOP    0% -> 0%  n=16  no significant difference",
      "",
    ],
  });
  expect(await cli(at("base.json"), at("bad.json"))).toEqual({
    exitCode: 3,
    stdout: "",
    stderr: `✗ Cannot load scorecard "${at("bad.json")}": Invalid input: expected 1 at version\n`,
  });
  expect((await cli(at("base.json"))).exitCode).toBe(2);
});

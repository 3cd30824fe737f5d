// Every example case under evals/cases passes under run-eval, sandboxed for real, two at a time.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { RunResult } from "../../lib/hermetic/result.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { openTmp, runEval } from "./support.ts";

test("run-eval -j 2 evals/cases: every example case passes", async () => {
  using tmp = openTmp();
  const r = await runEval(["-j", "2", "--json", join(REPO_ROOT, "evals", "cases")], { TMPDIR: tmp.path });
  const result = RunResult.parse(JSON.parse(r.stdout));
  const failed = result.cases
    .filter((c) => c.result !== "pass")
    .map((c) => ({ name: c.name, output: c.output }));
  expect({ code: r.exitCode, failed }).toEqual({ code: 0, failed: [] });
  expect(result.cases.length).toBeGreaterThanOrEqual(11);
}, 600_000);

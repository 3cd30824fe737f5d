// The suite's `seed` and `k` through `agent-eval suite` itself (--local, the built-in nop agent, so
// no model is needed): the suite's seed is the scorecard's unless --seed is given, and its k is the
// scorecard's pass@k k.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

test.concurrent.each([
  { name: "the suite's seed when no --seed", suite: "seed: 7\nk: 1\n", flags: [], want: { seed: 7, k: 1 } },
  {
    name: "--seed wins over the suite's",
    suite: "seed: 7\n",
    flags: ["--seed", "3"],
    want: { seed: 3, k: 2 },
  },
  { name: "neither: seed 1, k the repeats", suite: "", flags: [], want: { seed: 1, k: 2 } },
])("$name", async ({ suite, flags, want }) => {
  using dir = tempDir("seed-k");
  mkdirSync(join(dir.path, "tasks", "a", "repo"), { recursive: true });
  mkdirSync(join(dir.path, "suites"));
  writeFileSync(join(dir.path, "tasks", "a", "task.yaml"), 'id: a\nrepo: repo\nprompt: p\ncheck: "true"\n');
  const path = join(dir.path, "suites", "s.yaml");
  writeFileSync(path, `name: s\ntasks: [a]\nrepeats: 2\n${suite}variants: [{name: n, harness: nop}]\n`);
  const r = await run(
    [
      process.execPath,
      ENTRY,
      "suite",
      path,
      "--local",
      "--output",
      "json",
      "--trials",
      join(dir.path, "t.jsonl"),
      ...flags,
    ],
    { cwd: dir.path },
  );
  const sc = JSON.parse(r.stdout);
  expect({ exitCode: r.exitCode, seed: sc.seed, k: sc.k, variantK: sc.variants[0].k }).toEqual({
    exitCode: 0,
    ...want,
    variantK: want.k,
  });
});

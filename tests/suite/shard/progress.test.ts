// Issue 24: a shard prints its progress and writes its trials, never a gate or a decision over part of
// the run. A gated suite's shard: stdout empty, one line on stderr saying what it holds and to merge;
// its --scorecard (the shard's own, marked K/N) has no gate and a headline that decides nothing. Before,
// the shard printed the gate of its half (here BLOCK) as if it were the run's.
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import type { Scorecard } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree, FIX } from "../_support.ts";

test("a gated suite's shard: progress and trials, no gate, no decision", async () => {
  using dir = tempDir("shard-progress");
  const evals = evalsTree(dir.path);
  const tasks = ["a", "b", "c", "d"];
  for (const id of tasks) {
    const task = evals.task(
      id,
      `id: ${id}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\nsolution: solve.sh\n`,
      ADD_REPO,
    );
    writeFileSync(join(task, "solve.sh"), `#!/bin/sh\n${FIX}\n`);
  }
  const suite = evals.suite(
    "gated",
    `name: gated\ntasks: [${tasks.join(", ")}]\ncontrol: oracle\nrepeats: 2\ngate: {max_pass_drop: 0.05}\nvariants:\n  - {name: oracle, harness: oracle}\n  - {name: nothing, harness: nop}\n`,
  );
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const trials = join(dir.path, "s0", "gated.trials.jsonl");
  const json = join(dir.path, "s0.json");
  const r = await run(
    [process.execPath, join(REPO_ROOT, "scripts", "agent-eval.ts"), "suite", suite, "--local"].concat([
      "--shard",
      "0/2",
      "--trials",
      trials,
      "--scorecard",
      json,
    ]),
    { cwd: dir.path, env },
  );
  const sc = JSON.parse(readFileSync(json, "utf8")) as Scorecard;
  const lines = r.stderr.split("\n");
  expect({
    exitCode: r.exitCode,
    stdout: r.stdout,
    progress: lines.filter((l) => l.startsWith("suite gated shard 0/2 ")).length,
    summary: lines
      .filter((l) => l.includes("no gate or decision"))
      .map((l) => l.replace(/ in .*;/, " in <file>;")),
    gate: sc.gate,
    headline: sc.headline?.decision,
    shard: sc.shard,
    written: readFileSync(trials, "utf8").trim().split("\n").length - 1,
  }).toEqual({
    exitCode: 0,
    stdout: "",
    progress: 8,
    summary: [
      "suite gated shard 0/2: 8 trials (4 passed) in <file>; no gate or decision on part of the run: merge the shards with agent-eval suite merge",
    ],
    gate: undefined,
    headline: "none",
    shard: "0/2",
    written: 8,
  });
});

// `agent-eval suite --shard K/N` as a user runs it (processes, --local, the built-in nop and oracle
// agents: no model, no Docker): two shards at once write their trials files with the shard header,
// `suite merge` of the two gives the whole run's scorecard but for the measured wall times (those
// differ between any two runs; merge.test.ts proves byte identity with steady phases). A bad K/N is
// refused like any bad flag of the suite (error: line, exit 1).
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import type { Scorecard } from "../../../lib/suite/scorecard/index.ts";
import { suiteDigest } from "../../../lib/suite/shard.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree, FIX } from "../_support.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

async function cli(args: string[], cwd: string) {
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const r = await run([process.execPath, ENTRY, "suite", ...args], { env, cwd });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A scorecard without what wall clocks measured. */
function unmeasured(json: string): unknown {
  const sc = JSON.parse(json) as Scorecard;
  for (const t of sc.trials ?? []) t.wallMs = 0;
  for (const v of sc.variants)
    for (const k of Object.keys(v)) if (k.startsWith("wall")) (v as Record<string, unknown>)[k] = 0;
  return sc;
}

describe("agent-eval suite --shard", () => {
  const dir = tempDir("suite-shard-cli");
  afterAll(() => dir[Symbol.dispose]());
  const tree = evalsTree(join(dir.path, "evals"));
  for (const id of ["a", "b", "c"]) {
    const task = tree.task(
      id,
      `id: ${id}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\nsolution: solve.sh\n`,
      ADD_REPO,
    );
    writeFileSync(join(task, "solve.sh"), `#!/bin/sh\n${FIX}\n`);
  }
  const suitePath = tree.suite(
    "twin",
    "name: twin\ntasks: [a, b, c]\ncontrol: nothing\nrepeats: 2\nvariants:\n  - {name: nothing, harness: nop}\n  - {name: oracle, harness: oracle}\n",
  );

  test("2 shards at once, then merge: the whole run's scorecard; each shard file opens with its header", async () => {
    const common = [suitePath, "--local", "--seed", "5", "--output", "json"];
    const shardFile = (k: number) => join(dir.path, `s${k}`, "twin.trials.jsonl");
    const [whole, s0, s1] = await Promise.all([
      cli([...common, "--trials", join(dir.path, "whole", "twin.trials.jsonl")], dir.path),
      cli([...common, "--shard", "0/2", "--trials", shardFile(0)], dir.path),
      cli([...common, "--shard", "1/2", "--trials", shardFile(1)], dir.path),
    ]);
    const merged = await cli(["merge", suitePath, shardFile(1), shardFile(0), "--output", "json"], dir.path);
    const header = (k: number) => JSON.parse(readFileSync(shardFile(k), "utf8").split("\n")[0]!);
    const trials = (k: number) => readFileSync(shardFile(k), "utf8").trim().split("\n").length - 1;
    const base = {
      kind: "proctor.suite.shard",
      version: 1,
      suite: "twin",
      digest: suiteDigest(loadSuite(suitePath)),
      seed: 5,
      runner: "local",
      network: "none",
    };
    expect({
      exits: [whole.exitCode, s0.exitCode, s1.exitCode, merged.exitCode],
      headers: [header(0), header(1)],
      trials: trials(0) + trials(1),
      merged: unmeasured(merged.stdout),
      passes: (JSON.parse(merged.stdout) as Scorecard).variants.map((v) => [v.name, v.pass1]),
    }).toEqual({
      exits: [0, 0, 0, 0],
      headers: [
        { ...base, shard: "0/2" },
        { ...base, shard: "1/2" },
      ],
      trials: 12,
      merged: unmeasured(whole.stdout),
      passes: [
        ["nothing", 0],
        ["oracle", 1],
      ],
    });
  });

  const bad: { name: string; shard: string; more?: string[]; stderr: string }[] = [
    {
      name: "K = N",
      shard: "4/4",
      stderr: 'Cannot use --shard "4/4": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)',
    },
    {
      name: "no N",
      shard: "1",
      stderr: 'Cannot use --shard "1": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)',
    },
  ];
  for (const flag of ["--fail-on", "--history"])
    bad.push({
      name: `${flag} (the merge gates and records)`,
      shard: "0/2",
      more: [flag, flag === "--history" ? "h.jsonl" : "hold"],
      stderr: `${flag} with --shard: give it to agent-eval suite merge, which gates and records the whole run`,
    });
  for (const c of bad)
    test(`refused: ${c.name}`, async () => {
      expect(await cli([suitePath, "--local", "--shard", c.shard, ...(c.more ?? [])], dir.path)).toEqual({
        exitCode: 1,
        stdout: "",
        stderr: `error: ${c.stderr}\n`,
      });
    });
});

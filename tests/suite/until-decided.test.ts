// `agent-eval suite --until-decided`: the flags, the sequence read back from trials (rounds by repeat,
// a round with an infrastructure failure left out whole, non-inferiority watched only when gated), and
// whole runs under --local with the built-in agents: the oracle against nop is decided `worse` after
// 2 rounds (24 trials, not the fixed design's), two oracles never differ and stop at --max-trials.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../lib/core/errors.ts";
import { run } from "../../lib/core/proc.ts";
import type { Scorecard, Trial } from "../../lib/suite/scorecard/index.ts";
import { pairedRounds, sequentialTest } from "../../lib/suite/scorecard/sequential.ts";
import { parseUntilFlags } from "../../lib/suite/until-decided.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { ADD_REPO, evalsTree, FIX, trialOf } from "./_support.ts";

describe("parseUntilFlags", () => {
  const cases: { name: string; flags: Record<string, unknown>; want: unknown }[] = [
    { name: "off", flags: {}, want: undefined },
    {
      name: "a trial budget",
      flags: { "until-decided": true, "max-trials": "120" },
      want: { maxTrials: 120 },
    },
    {
      name: "both budgets",
      flags: { "until-decided": true, "max-trials": "60", "max-cost": "2.5" },
      want: { maxTrials: 60, maxCost: 2.5 },
    },
    {
      name: "no budget",
      flags: { "until-decided": true },
      want: "--until-decided needs a budget: --max-trials N or --max-cost USD",
    },
    { name: "a budget alone", flags: { "max-cost": "1" }, want: "--max-cost needs --until-decided" },
    {
      name: "with a shard",
      flags: { "until-decided": true, "max-trials": "9", shard: "0/2" },
      want: "--until-decided with --shard: a sequential run decides on all its trials; run it whole",
    },
    {
      name: "a bad number",
      flags: { "until-decided": true, "max-trials": "ten" },
      want: '--max-trials must be an integer of at least 1, got "ten"',
    },
  ];
  test.each(cases)("$name", ({ flags, want }) => {
    let got: unknown;
    try {
      got = parseUntilFlags(flags);
    } catch (error) {
      got = error instanceof ToolError ? error.message : error;
    }
    expect(got).toEqual(want);
  });
});

const SIX = ["a", "b", "c", "d", "e", "f"];
/** `rounds` rounds: the control passes each task, the candidate passes where `pass(round, task)`. */
function trials(
  rounds: number,
  pass: (r: number, t: number) => boolean,
  over?: (r: number, t: number) => Partial<Trial>,
) {
  return Array.from({ length: rounds }, (_, r) =>
    SIX.flatMap((task, t) => [
      trialOf("base", task, { repeat: r, pass: true }),
      trialOf("cand", task, { repeat: r, pass: pass(r, t), ...over?.(r, t) }),
    ]),
  ).flat();
}

describe("the sequence over a run's trials", () => {
  test("rounds by repeat; a round with an infrastructure failure is left out whole", () => {
    const ts = trials(
      3,
      () => false,
      (r, t) => (r === 1 && t === 2 ? { infra: "start" as const } : {}),
    );
    expect(pairedRounds(ts, "base", "cand")).toEqual([Array(6).fill(-1), Array(6).fill(-1)]);
  });

  test("a candidate that fails every task: worse at round 2, the bounds below 0", () => {
    const t = sequentialTest(
      trials(5, () => false),
      "base",
      "cand",
      { alpha: 0.05 },
    );
    expect({ decision: t.decision, rounds: t.rounds, below: (t.hi ?? 0) < 0 }).toEqual({
      decision: "worse",
      rounds: 2,
      below: true,
    });
  });

  test("identical arms: no decision without a margin; non-inferior with the gate's", () => {
    const same = trials(40, () => true);
    const plain = sequentialTest(same, "base", "cand", { alpha: 0.05 });
    const gated = sequentialTest(same, "base", "cand", { alpha: 0.05, margin: 0.05 });
    expect({
      plain: [plain.decision, plain.rounds],
      gated: [gated.decision, (gated.lo ?? -1) > -0.05, (gated.rounds ?? 0) < 40],
    }).toEqual({ plain: [undefined, 40], gated: ["non-inferior", true, true] });
  });
});

describe("agent-eval suite --until-decided under --local", () => {
  const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
  function tree(root: string, candidate: string): string {
    const evals = evalsTree(root);
    for (const t of SIX) {
      const dir = evals.task(
        t,
        `id: ${t}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\nsolution: solve.sh\n`,
        ADD_REPO,
      );
      writeFileSync(join(dir, "solve.sh"), `#!/bin/sh\n${FIX}\n`);
    }
    return evals.suite(
      "seq",
      `name: seq\ntasks: [${SIX.join(", ")}]\ncontrol: base\nvariants:\n  - {name: base, harness: oracle}\n  - {name: cand, harness: ${candidate}}\n`,
    );
  }
  /** `agent-eval suite --until-decided --max-trials N` of the oracle against `candidate`, in `cwd`. */
  async function suite(cwd: string, candidate: string, maxTrials: number) {
    const env = { ...(process.env as Record<string, string>) };
    delete env.CI;
    const json = join(cwd, "sc.json");
    const argv = [process.execPath, ENTRY, "suite", tree(cwd, candidate), "--local", "--parallel", "12"];
    const r = await run([...argv, "--until-decided", "--max-trials", `${maxTrials}`, "--scorecard", json], {
      cwd,
      env,
    });
    return { r, sc: r.exitCode === 0 ? (JSON.parse(readFileSync(json, "utf8")) as Scorecard) : undefined };
  }

  test("nop against the oracle: worse after 2 rounds, 24 trials, the verdict the sequence's", async () => {
    using dir = tempDir("until-decided");
    const { r, sc } = await suite(dir.path, "nop", 240);
    const c = sc?.comparisons?.[0];
    expect({
      exitCode: r.exitCode,
      sequential: sc?.sequential,
      trials: sc?.trials?.length,
      verdict: c?.verdict,
      test: [c?.test?.method, c?.test?.decision, c?.test?.rounds],
      rounds: r.stderr
        .split("\n")
        .filter((l) => / 12\/12 · /.test(l))
        .map((l) => l.split(" · ")[0]),
    }).toEqual({
      exitCode: 0,
      sequential: { alpha: 0.05, rounds: 2, stopped: "decided" },
      trials: 24,
      verdict: "worse",
      test: ["confidence-sequence", "worse", 2],
      rounds: ["suite seq round 1 12/12", "suite seq round 2 12/12"],
    });
  }, 60_000);

  test("two oracles never differ: the run stops at --max-trials, no significant difference", async () => {
    using dir = tempDir("until-decided");
    const { r, sc } = await suite(dir.path, "oracle", 40);
    expect({
      exitCode: r.exitCode,
      sequential: sc?.sequential,
      trials: sc?.trials?.length,
      verdict: sc?.comparisons?.[0]?.verdict,
    }).toEqual({
      exitCode: 0,
      sequential: { alpha: 0.05, rounds: 3, stopped: "max-trials" },
      trials: 36,
      verdict: "no_significant_difference",
    });
  }, 60_000);

  test("a budget below one round: one line, exit 1, nothing run", async () => {
    using dir = tempDir("until-decided");
    const { r } = await suite(dir.path, "nop", 5);
    expect({ exitCode: r.exitCode, stdout: r.stdout, last: r.stderr.trim().split("\n").at(-1) }).toEqual({
      exitCode: 1,
      stdout: "",
      last: "error: suite seq: --max-trials 5 is less than one round (6 tasks x 2 variants = 12 trials)",
    });
  });
});

// Issue 23, Gate: a do-nothing candidate that the gate blocks must not turn its block into a hold by
// making its graders error (an unreadable directory, a test that hangs, a FIFO where a file was).
// Grader errors are the candidate's fails, never a way out of a verdict: the block stands and
// --fail-on block exits 3. On the old gate ("any grader error holds") every case here held and exited 0.
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { applyGate, thresholdsOf } from "../../../lib/suite/gate.ts";
import { releaseExit } from "../../../lib/suite/gate-cmd.ts";
import { buildScorecard, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree, FIX, trialOf } from "../_support.ts";

const SIX = ["a", "b", "c", "d", "e", "f"];

/** The control passes every task; the candidate's every trial is a grader error of `why`. */
function attacked(why: string): Trial[] {
  return SIX.flatMap((task) =>
    [0, 1].flatMap((repeat) => [
      trialOf("base", task, { repeat, pass: true }),
      trialOf("cand", task, { repeat, graderError: why }),
    ]),
  );
}

describe("grader errors never lift a block", () => {
  const cases = [
    { name: "an unreadable directory in /work", why: "diff: snapshot: open /work/locked: permission denied" },
    { name: "a test that hangs", why: "command: timed out" },
    { name: "a FIFO where a file was", why: "file:add.sh: read add.sh: timed out" },
  ];
  test.each(cases)("$name: block, --fail-on block exits 3", ({ why }) => {
    const sc = applyGate(
      buildScorecard("g", "base", ["base", "cand"], attacked(why)),
      thresholdsOf(undefined),
    );
    expect({
      gate: sc.gate?.verdict,
      first: sc.gate?.reasons?.[0],
      exit: releaseExit(sc, "block"),
      decision: sc.headline?.decision,
    }).toEqual({
      gate: "block",
      first:
        "cand: pass rate significantly worse: -100.0 pp (95% CI -100.0 to -100.0), exact sign-flip p = 0.031",
      exit: 3,
      decision: "block",
    });
  });

  test("a candidate whose every trial is unscored while the control's run: blocked on evidence alone", () => {
    // Even where the pass rates cannot tell them apart (both 0%), the candidate that gives no scored
    // result is evidence against itself.
    const trials = SIX.flatMap((task) => [
      trialOf("base", task, { pass: false }),
      trialOf("cand", task, { graderError: "command: timed out" }),
    ]);
    const sc = applyGate(buildScorecard("g", "base", ["base", "cand"], trials), thresholdsOf(undefined));
    expect(sc.comparisons?.[0]?.gate?.reasons?.[0]).toEqual(
      "no evidence: only 0 of 6 trials of cand were scored (6 grader errors), against 6 of 6 of base; a candidate that mostly gives no scored result is blocked",
    );
    expect(sc.gate?.verdict).toEqual("block");
  });
});

describe("end to end under --local: the candidate hangs the test or puts a FIFO where it was", () => {
  const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
  const attacks = [
    { name: "a test that hangs", command: "printf 'exec sleep 30\\n' > test.sh" },
    { name: "a FIFO where a file was", command: "rm -f add.sh && mkfifo add.sh" },
  ];
  test.each(attacks)(
    "$name: the gate blocks, --fail-on block exits 3",
    async ({ command }) => {
      using dir = tempDir("gate-grader-errors");
      const evals = evalsTree(dir.path);
      for (const t of SIX) {
        const task = evals.task(
          t,
          `id: ${t}\nrepo: repo\nprompt: fix add.sh\ntimeout: 3s\nsolution: solve.sh\ngraders:\n  - {type: command, run: sh test.sh}\n`,
          ADD_REPO,
        );
        writeFileSync(join(task, "solve.sh"), `#!/bin/sh\n${FIX}\n`);
        chmodSync(join(task, "solve.sh"), 0o755);
      }
      const suite = evals.suite(
        "attack",
        `name: attack\ntasks: [${SIX.join(", ")}]\ncontrol: base\nvariants:\n  - {name: base, harness: oracle}\n  - name: cand\n    harness: command\n    command: ${JSON.stringify(command)}\n`,
      );
      const env = { ...(process.env as Record<string, string>) };
      delete env.CI;
      const r = await run(
        [process.execPath, ENTRY, "suite", suite, "--local", "--parallel", "12", "--fail-on", "block"],
        { cwd: dir.path, env },
      );
      expect({
        exitCode: r.exitCode,
        gate: r.stdout.includes("**Gate: BLOCK**"),
        graderErrors: (r.stderr.match(/error: grader error: command: timed out/g) ?? []).length,
        line: r.stderr.split("\n").filter((l) => l.includes("eval gate")),
      }).toEqual({ exitCode: 3, gate: true, graderErrors: 6, line: ["eval gate: block (--fail-on block)"] });
    },
    60_000,
  );
});

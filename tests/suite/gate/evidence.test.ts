// Issue 24, no evidence, no ship: the run the issue found, where every trial of both variants errored
// (the agent's path did not exist) and the gate said SHIP with --fail-on hold exiting 0, now holds and
// exits 3, its headline first and the same in the Markdown, the HTML report and the JSON; then the
// partial cases through the gate itself: which share of unscored trials holds, which blocks, which
// does not matter. On the old gate the first test shipped and every hold/block below shipped.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { gateOf, thresholdsOf } from "../../../lib/suite/gate.ts";
import type { Scorecard, Trial } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree, trialOf } from "../_support.ts";

const SEVEN = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"];

test("every trial of both variants errors: HOLD, --fail-on hold exits 3, one headline everywhere", async () => {
  using dir = tempDir("gate-no-evidence");
  const evals = evalsTree(dir.path);
  for (const t of SEVEN)
    evals.task(t, `id: ${t}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n`, ADD_REPO);
  const variant = (name: string) =>
    `  - {name: ${name}, harness: command, command: /opt/agent/bin/run-agent}\n`;
  const suite = evals.suite(
    "broken",
    `name: broken\ntasks: [${SEVEN.join(", ")}]\ncontrol: base\ngate: {max_pass_drop: 0.05}\nvariants:\n${variant("base")}${variant("cand")}`,
  );
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const out = (f: string) => join(dir.path, f);
  const r = await run(
    [
      process.execPath,
      join(REPO_ROOT, "scripts", "agent-eval.ts"),
      "suite",
      suite,
      "--local",
      "--parallel",
      "14",
      "--fail-on",
      "hold",
      "--scorecard",
      out("sc.json"),
      "--report",
      out("r.html"),
    ],
    { cwd: dir.path, env },
  );
  const sc = JSON.parse(readFileSync(out("sc.json"), "utf8")) as Scorecard;
  const html = readFileSync(out("r.html"), "utf8");
  const line =
    "Decision: HOLD (release gate) — cand vs base: no evidence: only 0 of 7 trials of base were scored (7 agent errors); a ship needs at least half of each arm's trials scored.";
  expect({
    exitCode: r.exitCode,
    gateLine: r.stderr.split("\n").filter((l) => l.startsWith("eval gate")),
    progress: r.stderr.includes("error: agent exit 127: sh: 1: /opt/agent/bin/run-agent: not found"),
    markdown: r.stdout.split("\n").slice(0, 3),
    json: [Object.keys(sc)[0], sc.headline],
    html: html.indexOf(`<p data-headline="true">${line}</p>`) < html.indexOf('data-section="gate"'),
    verdict: [sc.comparisons?.[0]?.verdict, sc.variants.map((v) => v.scored)],
    reasons: r.stdout.slice(r.stdout.indexOf("## Why trials")).split("\n").slice(4, 6),
  }).toEqual({
    exitCode: 3,
    gateLine: ["eval gate: hold (--fail-on hold)"],
    progress: true,
    markdown: ["# Eval scorecard: broken", "", line],
    json: ["headline", { decision: "hold", source: "gate", text: line }],
    html: true,
    verdict: ["insufficient", [0, 0]],
    reasons: [
      "| base | agent exit 127: sh: 1: /opt/agent/bin/run-agent: not found | 7 |",
      "| cand | agent exit 127: sh: 1: /opt/agent/bin/run-agent: not found | 7 |",
    ],
  });
}, 60_000);

describe("partly unscored runs, through the gate", () => {
  const TASKS = ["a", "b", "c", "d", "e", "f", "g"];
  const NOT_FOUND = { error: "agent exit 127: sh: 1: agent: not found" };
  /** Two trials per task per arm, all passing; `broken(arm, i)` marks the i-th trial (0..13) unscored. */
  function arms(broken: (arm: "base" | "cand", i: number) => Partial<Trial> | undefined) {
    const make = (arm: "base" | "cand") =>
      TASKS.flatMap((task, t) =>
        [0, 1].map((repeat) => {
          const over = broken(arm, 2 * t + repeat);
          return trialOf(arm, task, { repeat, pass: over === undefined, ...over });
        }),
      );
    return { base: make("base"), cand: make("cand") };
  }
  const cases: { name: string; broken: Parameters<typeof arms>[0]; verdict: string; reason: string }[] = [
    {
      name: "the candidate mostly does not run, the control does: block",
      broken: (arm, i) => (arm === "cand" && i < 10 ? NOT_FOUND : undefined),
      verdict: "block",
      reason:
        "no evidence: only 4 of 14 trials of cand were scored (10 agent errors), against 14 of 14 of base; a candidate that mostly gives no scored result is blocked",
    },
    {
      name: "the control mostly does not run (its fails flatter the candidate): hold",
      broken: (arm, i) => (arm === "base" && i < 8 ? NOT_FOUND : undefined),
      verdict: "hold",
      reason:
        "no evidence: only 6 of 14 trials of base were scored (8 agent errors); a ship needs at least half of each arm's trials scored",
    },
    {
      name: "grader errors and setup failures count too",
      broken: (arm, i) =>
        arm === "base"
          ? undefined
          : i % 2
            ? { graderError: "command: timed out" }
            : i < 6
              ? { setupFailed: true, error: "setup failed" }
              : undefined,
      verdict: "block",
      reason:
        "no evidence: only 4 of 14 trials of cand were scored (3 setup failures, 7 grader errors), against 14 of 14 of base; a candidate that mostly gives no scored result is blocked",
    },
    {
      name: "an agent that ran out of turns is a scored fail, not missing evidence",
      broken: (arm) => (arm === "cand" ? { error: "harness reported failure: error_max_turns" } : undefined),
      verdict: "block",
      reason: "pass rate significantly worse: -100.0 pp (95% CI -100.0 to -100.0), exact sign-flip p = 0.016",
    },
    {
      name: "half of each arm scored is enough",
      broken: (_arm, i) =>
        i % 2 === 1 ? { error: "agent exit 126: permission denied", pass: true } : undefined,
      verdict: "ship",
      reason:
        "non-inferior on 7 tasks: pass rate +0.0 pp (95% CI +0.0 to +0.0), exact one-sided p = 0.008 at the -5.0 pp margin",
    },
  ];
  test.each(cases)("$name", ({ broken, verdict, reason }) => {
    const { base, cand } = arms(broken);
    const { gate } = gateOf(base, cand, thresholdsOf(undefined), 1, { control: "base", candidate: "cand" });
    expect({ verdict: gate.verdict as string, has: gate.reasons?.includes(reason) }).toEqual({
      verdict,
      has: true,
    });
  });
});

// The promotion lane end to end with the REAL agent CLIs (Claude Code, Codex, Gemini CLI) through
// `agent-eval run` against the mock model on 127.0.0.1 (tests/support/promotion-e2e.ts). The mock
// asks each agent to run the skill's own script; the candidate's script writes the red-green
// evidence the rubric's check wants and the baseline's does not, so the arms really differ. Every run
// must complete with no leak, checks pass for the candidate only, and with all-true scores the
// verdict is promote, and reject with the roles swapped. `CI` is cleared for the child as in the
// original's tests; the refusal itself is tested too.
//
// These tests run four real CLI processes each (two arms, two orientations), so they carry their own
// timeout above `npm test`'s 60 s; each CLI run is also capped by `run --timeout`.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Harness } from "../../lib/suite/suite.ts";
import { runCommand, startMockModel } from "../support/mock-model.ts";
import { makeE2eLane, SKILL_COMMAND, TASK_ID } from "../support/promotion-e2e.ts";
import { tempDir } from "../support/tmp.ts";
import { agentEval } from "./_lane.ts";

const E2E_TIMEOUT_MS = 300_000;

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** `run` then `verdict` with all-true scores; what the run and the verdict said. */
async function runAndDecide(
  repo: string,
  config: string,
  env: Record<string, string>,
  baseline: string,
  candidate: string,
  extra: string[],
) {
  const r = await agentEval(
    [
      "run",
      ...["--task-id", TASK_ID, "--baseline", baseline, "--candidate", candidate],
      ...["--agent-config", config, "--runs", "1", "--seed", "7", "--timeout", "120", ...extra],
    ],
    repo,
    { ...env, CI: undefined },
  );
  expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });
  const runDir = String(r.out.run_dir);
  const key = json(join(runDir, "sealed", "key.json")) as Record<string, Record<string, unknown>>;
  const template = json(String(r.out.scores_template)) as Record<string, Record<string, null>>;
  const scores = Object.fromEntries(
    Object.entries(template).map(([bid, crit]) => [
      bid,
      Object.fromEntries(Object.keys(crit).map((c) => [c, true])),
    ]),
  );
  const scoresPath = join(runDir, "..", `${baseline.replace("/", "-")}-scores.json`);
  writeFileSync(scoresPath, JSON.stringify(scores));
  const v = await agentEval(["verdict", "--run-dir", runDir, "--scores", scoresPath], repo, {
    CI: undefined as never,
  });
  const prov = json(join(runDir, "provenance.json")) as { isolation?: { mechanism?: string } };
  return {
    run: { runs: r.out.runs, leaks: r.out.leaks },
    records: Object.values(key)
      .map((k) => ({ arm: k.arm, exit: k.exit, checks_passed: k.checks_passed, leak: k.leak }))
      .sort((a, b) => (String(a.arm) < String(b.arm) ? -1 : 1)),
    verdict: { code: v.code, result: v.out.result },
    isolation: prov.isolation?.mechanism,
  };
}

const CASES: Array<{ harness: Harness; sandbox: boolean; requestsPerRun: number }> = [
  { harness: "claude", sandbox: true, requestsPerRun: 3 },
  { harness: "codex", sandbox: true, requestsPerRun: 2 },
  // Gemini 0.61.0 needs its settings file in HOME for a custom base URL; the fixture's launcher
  // writes it, and the launcher is not a CLI install the sandbox binds (see gemini-home.sh).
  { harness: "gemini", sandbox: false, requestsPerRun: 2 },
];

describe("agent-eval run with the real CLIs", () => {
  test.each(CASES)(
    "$harness: candidate passes its checks, promote; roles swapped, reject; no leak",
    async ({ harness, sandbox, requestsPerRun }) => {
      using dir = tempDir(`proctor-promo-${harness}`);
      await using mock = await startMockModel();
      const key = `sk-proctor-e2e-${crypto.randomUUID()}`;
      mock.scenario(key, runCommand(SKILL_COMMAND), harness);
      const lane = makeE2eLane(dir.path, harness, mock, key);
      const extra = sandbox ? [] : ["--no-sandbox"];

      const forward = await runAndDecide(lane.repo, lane.config, lane.env, "main", "feat/x", extra);
      const swapped = await runAndDecide(lane.repo, lane.config, lane.env, "feat/x", "main", extra);
      const expected = (result: string, candidatePasses: boolean) => ({
        run: { runs: 2, leaks: 0 },
        records: [
          { arm: "baseline", exit: 0, checks_passed: !candidatePasses, leak: false },
          { arm: "candidate", exit: 0, checks_passed: candidatePasses, leak: false },
        ],
        verdict: { code: 0, result },
        isolation: sandbox ? "bwrap" : "none",
      });
      expect({ forward, swapped }).toEqual({
        forward: expected("promote", true),
        swapped: expected("reject", false),
      });
      // Every model request came from the CLI under test, authenticated by the key (its scenario),
      // and no logged part of any request holds the key.
      expect(
        mock.requests.map((r) => ({
          scenario: r.url === "/" ? harness : r.scenario,
          leak: JSON.stringify(r).includes(key),
        })),
      ).toEqual(Array(4 * requestsPerRun).fill({ scenario: harness, leak: false }));
    },
    E2E_TIMEOUT_MS,
  );

  test("CI set: refused with exit 2 before any agent starts", async () => {
    using dir = tempDir("proctor-promo-ci");
    await using mock = await startMockModel();
    const lane = makeE2eLane(dir.path, "claude", mock, "sk-proctor-e2e-refused");
    const r = await agentEval(
      [
        "run",
        "--task-id",
        TASK_ID,
        "--baseline",
        "main",
        "--candidate",
        "feat/x",
        "--agent-config",
        lane.config,
      ],
      lane.repo,
      { ...lane.env, CI: "true" },
    );
    const runs = join(lane.store, "runs");
    expect({
      code: r.code,
      out: r.out,
      runDirs: existsSync(runs) ? readdirSync(runs) : [],
      requests: mock.requests.length,
    }).toEqual({
      code: 2,
      out: { error: "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)", exit: 2 },
      runDirs: [],
      requests: 0,
    });
  });
});

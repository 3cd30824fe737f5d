// The shipped mock model with the real agent CLIs, as a user runs them offline: `proctor mock-model`
// serves a replies file (model mock-fix asks for the fix through the CLI's own shell tool, any other
// model only talks) and `agent-eval suite --local` runs the fixture suites against it: Claude Code
// 2.1.197 (3 repeats per arm), Codex 0.171.0 and Gemini CLI 0.61.0. The same conversation answers
// every trial, in parallel, because the reply is read from the request's tool results.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { loadScorecard } from "../../../lib/suite/scorecard/index.ts";
import { agentCli } from "../../support/agent-clis.ts";
import { serveMockCli } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { FIX } from "../_support.ts";

const REPLIES = `version: 1
conversations:
  - model: mock-fix
    replies:
      - shell: ${JSON.stringify(FIX)}
      - text: Fixed add.sh.
  - replies:
      - text: I cannot fix it.
`;

test.each<{ suite: string; want: (string | number)[][] }>([
  {
    suite: "fixture.yaml",
    want: [
      ["control", 3, 0],
      ["fixer", 3, 1],
    ],
  },
  {
    suite: "fixture-clis.yaml",
    want: [
      ["codex", 1, 1],
      ["gemini", 1, 1],
    ],
  },
])("$suite against proctor mock-model --replies", async ({ suite, want }) => {
  using tmp = tempDir("replies-e2e");
  writeFileSync(join(tmp.path, "replies.yaml"), REPLIES);
  const mock = await serveMockCli(["--replies", join(tmp.path, "replies.yaml")]);
  const bin = join(agentCli("claude"), "..");
  agentCli("codex");
  agentCli("gemini");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ANTHROPIC_API_KEY: "offline",
    OPENAI_API_KEY: "offline",
    GEMINI_API_KEY: "offline",
    PATH: `${bin}:${process.env.PATH}`,
  };
  delete env.CI;
  const sc = join(tmp.path, "sc.json");
  const args = [
    join(REPO_ROOT, "evals", "suites", suite),
    "--local",
    "--model-url",
    mock.url,
    "--scorecard",
    sc,
    // In the temp dir: without --trials the run's folder would go beside the suite, in the checkout.
    "--trials",
    join(tmp.path, "trials.jsonl"),
  ];
  const r = await run([process.execPath, join(REPO_ROOT, "scripts", "agent-eval.ts"), "suite", ...args], {
    cwd: tmp.path,
    env,
  });
  const end = await mock.stop();
  const card = loadScorecard(sc);
  expect({
    exitCode: r.exitCode,
    pass1: card.variants.map((v) => [v.name, v.trials, v.pass1]),
    errors: (card.trials ?? []).filter((t) => t.error).map((t) => t.error),
    mockExit: end.exitCode,
  }).toEqual({ exitCode: 0, pass1: want, errors: [], mockExit: 0 });
});

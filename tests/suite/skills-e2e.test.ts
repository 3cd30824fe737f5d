// Issue 25's proof for skills: the quickstart suite (evals/suites/skills-ab.yaml: the real Claude Code,
// two variants that differ only in `skills:`) against the mock model of its replies file, on the host
// (--local) and in Docker. The candidate's requests carry its skill's rule and the baseline's carry
// the baseline's skill only; the mock fixes the task only for the agent that sees the rule, so the
// scorecard says the candidate's skills made it better on this task.
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { loadScorecard } from "../../lib/suite/scorecard/index.ts";
import { loadMockScript, scriptOf } from "../../lib/wire/mock/script-file.ts";
import { agentCli } from "../support/agent-clis.ts";
import { startMockModel } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const SUITE = join(REPO_ROOT, "evals", "suites", "skills-ab.yaml");
const REPLIES = join(REPO_ROOT, "evals", "suites", "skills-ab.replies.yaml");
const V2_RULE = "print the sum of their arguments";
const V1_RULE = "House rules for the shell scripts in this repository. Use when";

async function quickstart(flags: readonly string[]) {
  await using mock = await startMockModel({ script: scriptOf(loadMockScript(REPLIES)) });
  using dir = tempDir("skills-e2e");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ANTHROPIC_API_KEY: "skills-e2e-key",
    PATH: `${join(agentCli("claude"), "..")}:${process.env.PATH}`,
  };
  delete env.CI;
  const sc = join(dir.path, "sc.json");
  const r = await run(
    [
      process.execPath,
      join(REPO_ROOT, "scripts", "agent-eval.ts"),
      "suite",
      SUITE,
      ...flags,
      "--model-url",
      mock.url,
      "--scorecard",
      sc,
      // In the temp dir: without --trials the run's folder would go beside the suite, in the checkout.
      "--trials",
      join(dir.path, "trials.jsonl"),
    ],
    { cwd: dir.path, env },
  );
  // The agent's own turns offer it tools; a CLI's side requests (a title, a quota check) offer none.
  const turns = mock.requests.filter((q) => Array.isArray((q.body as { tools?: unknown } | null)?.tools));
  const bodies = turns.map((q) => JSON.stringify(q.body));
  const card = loadScorecard(sc);
  return {
    exitCode: r.exitCode,
    pass1: card.variants.map((v) => [v.name, v.trials, v.pass1]),
    // Every turn shows one skill or the other, never both and never none: each agent saw its own.
    requests: {
      v2: bodies.filter((b) => b.includes(V2_RULE)).length,
      v1: bodies.filter((b) => b.includes(V1_RULE)).length,
      both: bodies.filter((b) => b.includes(V2_RULE) && b.includes(V1_RULE)).length,
      neither: bodies.filter((b) => !b.includes(V2_RULE) && !b.includes(V1_RULE)).length,
    },
    keyInLog: JSON.stringify(mock.requests).includes("skills-e2e-key"),
  };
}

describe("skills as suite variants, with the real Claude Code", () => {
  test.each([
    { runner: "--local", flags: ["--local", "--parallel", "6"] },
    { runner: "Docker", flags: ["--parallel", "2"] },
  ])(
    "$runner: the candidate's requests carry its skill, the baseline's do not; the candidate passes",
    async ({ flags }) => {
      expect(await quickstart(flags)).toEqual({
        exitCode: 0,
        pass1: [
          ["baseline", 3, 0],
          ["candidate", 3, 1],
        ],
        // Three baseline trials of one request each; three candidate trials of two (the fix, then done).
        requests: { v2: 6, v1: 3, both: 0, neither: 0 },
        keyInLog: false,
      });
    },
    900_000,
  );
});

describe("skills as suite variants, with the real Codex and Gemini CLIs (--local)", () => {
  test.each([
    { harness: "codex", version: "0.171.0" },
    { harness: "gemini", version: "0.61.0" },
  ])(
    "$harness: each agent turn carries its own variant's skill; the candidate passes",
    async ({ harness, version }) => {
      await using mock = await startMockModel({ script: scriptOf(loadMockScript(REPLIES)) });
      using dir = tempDir(`skills-${harness}`);
      // The quickstart's layout in a repository of its own: skills beside the suites, one repeat.
      cpSync(join(REPO_ROOT, "evals", "skills"), join(dir.path, "skills"), { recursive: true });
      cpSync(join(REPO_ROOT, "evals", "tasks", "fix-add"), join(dir.path, "tasks", "fix-add"), {
        recursive: true,
      });
      mkdirSync(join(dir.path, "suites"));
      const suite = readFileSync(SUITE, "utf8")
        .replaceAll('harness: claude, version: "2.1.197"', `harness: ${harness}, version: "${version}"`)
        .replace("repeats: 3", "repeats: 1");
      writeFileSync(join(dir.path, "suites", "s.yaml"), suite);
      await run(["git", "init", "-q", dir.path]);
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        OPENAI_API_KEY: "skills-e2e-key",
        GEMINI_API_KEY: "skills-e2e-key",
        PATH: `${join(agentCli(harness as "codex" | "gemini"), "..")}:${process.env.PATH}`,
      };
      delete env.CI;
      const sc = join(dir.path, "sc.json");
      const r = await run(
        [
          process.execPath,
          join(REPO_ROOT, "scripts", "agent-eval.ts"),
          "suite",
          join(dir.path, "suites", "s.yaml"),
          "--local",
          "--model-url",
          mock.url,
          "--scorecard",
          sc,
          "--trials",
          join(dir.path, "t.jsonl"),
        ],
        { cwd: dir.path, env },
      );
      const turns = mock.requests
        .map((q) => JSON.stringify(q.body))
        .filter((b) => b.includes("shell-scripts"));
      expect({
        exitCode: r.exitCode,
        pass1: loadScorecard(sc).variants.map((v) => [v.name, v.pass1]),
        both: turns.filter((b) => b.includes(V1_RULE) && b.includes(V2_RULE)).length,
        sawV1: turns.some((b) => b.includes(V1_RULE)),
        sawV2: turns.some((b) => b.includes(V2_RULE)),
      }).toEqual({
        exitCode: 0,
        pass1: [
          ["baseline", 0],
          ["candidate", 1],
        ],
        both: 0,
        sawV1: true,
        sawV2: true,
      });
    },
    900_000,
  );
});

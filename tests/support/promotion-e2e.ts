// The promotion lane's end-to-end fixture for the REAL agent CLIs: a throwaway git repository whose
// two arms differ in the skill's own script (main's writes failing red-green evidence, feat/x's the
// evidence the rubric's check wants), a private store with a locked task and rubric, and an agent
// config derived from the ready one in evals/promotion/agents/ pointing at the mock model. The mock
// asks the agent to run the skill's script through the CLI's own shell tool, so which arm passes is
// decided by the skill alone.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockTask } from "../../lib/promotion/lock.ts";
import { QUIET_ENV } from "../../lib/suite/agents/claude.ts";
import type { Harness } from "../../lib/suite/suite.ts";
import { commitAll, gitIn } from "../promotion/_lane.ts";
import { agentCli } from "./agent-clis.ts";
import type { MockModel } from "./mock-model.ts";
import { REPO_ROOT } from "./tools.ts";

/** The ready configs by harness. */
export const READY_CONFIGS: Record<Harness, string> = {
  claude: join(REPO_ROOT, "evals", "promotion", "agents", "claude-code.json"),
  codex: join(REPO_ROOT, "evals", "promotion", "agents", "codex.json"),
  gemini: join(REPO_ROOT, "evals", "promotion", "agents", "gemini.json"),
};

/** Writes Gemini's settings into the fresh HOME, then runs the CLI (see GEMINI_LAUNCHER). */
const GEMINI_LAUNCHER = join(REPO_ROOT, "tests", "fixtures", "promotion-e2e", "gemini-home.sh");

export const TASK_ID = "e2e";
/** What the mock tells every agent to run: the skill's own script, found through EVAL_SKILLS_DIR. */
export const SKILL_COMMAND = 'sh "$EVAL_SKILLS_DIR/demo/evidence.sh"';

const SKILL = (line: string, evidence: string) => ({
  "skills/demo/SKILL.md": `# demo\n${line}\nRun evidence.sh to record the red-green evidence.\n`,
  "skills/demo/evidence.sh": `#!/bin/sh\nprintf '%s\\n' '${evidence}' > "$EVAL_OUT/red-green.json"\necho "evidence written"\n`,
});
/** main: a failing test that stays red (the check fails). */
const BASELINE = SKILL("Skill A: trust the fix.", '{"red_exit": 1, "green_exit": 1}');
/** feat/x: red before the fix, green after (the check passes). */
const CANDIDATE = SKILL("Skill B: prove the fix red, then green.", '{"red_exit": 1, "green_exit": 0}');

/** One lane: repo (clean, on main), store, the agent config path and the env `run` needs. */
export interface E2eLane {
  repo: string;
  store: string;
  config: string;
  env: Record<string, string>;
}

function writeAll(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

/** What the Claude config's notes tell operators to export (it reaches the CLI through pass_env). */
export const CLAUDE_QUIET = QUIET_ENV;

/** The ready config for `harness`, pointed at the pinned CLI and the mock. */
function agentConfig(harness: Harness, mock: MockModel): { config: object; env: Record<string, string> } {
  const ready = JSON.parse(readFileSync(READY_CONFIGS[harness], "utf8")) as {
    command: string[];
    pass_env: string[];
  };
  const command = [agentCli(harness), ...ready.command.slice(1)];
  if (harness === "claude")
    return { config: { ...ready, command }, env: { ...CLAUDE_QUIET, ANTHROPIC_BASE_URL: mock.url } };
  if (harness === "codex")
    return {
      config: {
        ...ready,
        command: command.map((a) =>
          a.startsWith("model_providers.proctor.base_url=")
            ? `model_providers.proctor.base_url="${mock.url}/v1"`
            : a,
        ),
      },
      env: {},
    };
  // Gemini 0.61.0 takes a custom base URL only with its auth type in $HOME/.gemini/settings.json,
  // which the lane's fresh HOME lacks: the launcher writes it first (run unsandboxed, see the test).
  return {
    config: {
      ...ready,
      command: [GEMINI_LAUNCHER, ...command],
      pass_env: [...ready.pass_env, "GOOGLE_GEMINI_BASE_URL"],
    },
    env: { GOOGLE_GEMINI_BASE_URL: mock.url },
  };
}

/** The variable each ready config reads its key from. */
export const KEY_ENV: Record<Harness, string> = {
  claude: "ANTHROPIC_API_KEY",
  codex: "OPENAI_API_KEY",
  gemini: "GEMINI_API_KEY",
};

/** Builds the lane under `dir` for `harness`; the key goes to the CLI by name through pass_env. */
export function makeE2eLane(dir: string, harness: Harness, mock: MockModel, key: string): E2eLane {
  const repo = join(dir, "repo");
  mkdirSync(repo, { recursive: true });
  gitIn(repo, "init", "-q", "-b", "main");
  writeAll(repo, {
    ".gitignore": "evals/promotion/private/\n",
    "evals/promotion/lock.json": '{\n  "tasks": {},\n  "version": 1\n}\n',
    ...BASELINE,
  });
  commitAll(repo, "base");
  gitIn(repo, "checkout", "-q", "-b", "feat/x");
  writeAll(repo, CANDIDATE);
  commitAll(repo, "candidate");
  gitIn(repo, "checkout", "-q", "main");
  const store = join(repo, "evals", "promotion", "private");
  writeAll(store, {
    [`tasks/${TASK_ID}/task.json`]: `${JSON.stringify({
      version: 1,
      id: TASK_ID,
      skill: "demo",
      prompt: "Record the red-green evidence for the flaky login fix.",
      min_runs: 1,
    })}\n`,
    [`tasks/${TASK_ID}/fixture_repo/README.md`]: "# login service\n",
    [`rubrics/${TASK_ID}.json`]: `${JSON.stringify({
      version: 1,
      task_id: TASK_ID,
      canary: `CANARY-${crypto.randomUUID()}`,
      criteria: [{ id: "evidence", text: "The agent records red then green evidence for its fix." }],
      checks: [{ tool: "red-green", file: "OUT/red-green.json", label: "red-green evidence" }],
      pass_threshold: 1.0,
      min_pass_rate: 0.5,
    })}\n`,
  });
  lockTask(store, TASK_ID, join(repo, "evals", "promotion", "lock.json"));
  commitAll(repo, "chore(evals): lock e2e");
  const { config, env } = agentConfig(harness, mock);
  const path = join(dir, "agent.json");
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  chmodSync(dir, 0o755);
  return { repo, store, config: path, env: { ...env, [KEY_ENV[harness]]: key } };
}

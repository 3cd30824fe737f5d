// The ready agent configs of the promotion lane (evals/promotion/agents/*.json): each is a valid
// agent config (lib/promotion/formats.ts), names the pinned CLI and its version, and carries what
// the real CLIs need (reference/agent-clis.md) and the drivers of the suite lane use, so the two
// lanes cannot drift apart silently.
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentConfig, loadAgentConfig } from "../../lib/promotion/formats.ts";
import { driverFor } from "../../lib/suite/agents/index.ts";
import type { Harness } from "../../lib/suite/suite.ts";
import { pinnedVersion } from "../support/agent-clis.ts";
import { CLAUDE_QUIET, KEY_ENV, READY_CONFIGS } from "../support/promotion-e2e.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const DIR = join(REPO_ROOT, "evals", "promotion", "agents");
const HARNESSES = Object.keys(READY_CONFIGS) as Harness[];
const load = (h: Harness): AgentConfig => loadAgentConfig(READY_CONFIGS[h]);

/** The `-c key=value` overrides of a Codex command line, as an object. */
function codexOverrides(command: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  command.forEach((arg, i) => {
    if (command[i - 1] !== "-c") return;
    const eq = arg.indexOf("=");
    out[arg.slice(0, eq)] = arg.slice(eq + 1);
  });
  return out;
}

describe("ready agent configs", () => {
  test("there is one per harness and nothing else", () => {
    expect(readdirSync(DIR).sort()).toEqual(["claude-code.json", "codex.json", "gemini.json"]);
  });

  test.each(HARNESSES)("%s: valid, the pinned CLI and version, the key by name, stdin not needed", (h) => {
    const c = load(h);
    expect({
      exe: c.command[0],
      version: c.cli_version,
      key: c.pass_env.includes(KEY_ENV[h]),
      placeholders: c.command.some((a) => a.includes("{prompt_file}")),
    }).toEqual({ exe: h, version: pinnedVersion(h), key: true, placeholders: true });
  });

  test("claude: headless stream-json, Bash allowed, quiet env passed through, no --restricted", () => {
    const c = load("claude");
    const driver = driverFor("claude").command({
      modelBaseUrl: "http://x",
      apiKeyEnvName: "K",
      home: "/h",
      workDir: "/w",
      prompt: "p",
    });
    const quiet = Object.keys(CLAUDE_QUIET);
    expect({
      flags: [
        "--output-format",
        "stream-json",
        "--verbose",
        "--allowedTools",
        "Bash",
        "--no-session-persistence",
      ].every((f) => c.command.includes(f)),
      restricted: c.command.includes("--restricted"),
      passEnv: c.pass_env,
      // The values the notes tell operators to export are the driver's own.
      sameAsDriver: quiet.every((k) => driver.env[k] === CLAUDE_QUIET[k]),
      notes: quiet.every((k) => c.notes?.includes(`${k}=${CLAUDE_QUIET[k]}`)),
    }).toEqual({
      flags: true,
      restricted: false,
      passEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ...quiet],
      sameAsDriver: true,
      notes: true,
    });
  });

  test("codex: the driver's provider, plugins/analytics/feedback/update checks off, no nested sandbox", () => {
    const c = load("codex");
    expect({
      overrides: codexOverrides(c.command),
      bypass: c.command.includes("--dangerously-bypass-approvals-and-sandbox"),
    }).toEqual({
      overrides: {
        model_provider: '"proctor"',
        "model_providers.proctor.name": '"Proctor"',
        "model_providers.proctor.base_url": '"https://api.openai.com/v1"',
        "model_providers.proctor.env_key": '"OPENAI_API_KEY"',
        "model_providers.proctor.wire_api": '"responses"',
        "model_providers.proctor.request_max_retries": "2",
        "model_providers.proctor.stream_max_retries": "2",
        "model_providers.proctor.stream_idle_timeout_ms": "300000",
        "features.plugins": "false",
        "analytics.enabled": "false",
        "feedback.enabled": "false",
        check_for_update_on_startup: "false",
      },
      bypass: true,
    });
  });

  test("an inline --settings JSON is no valid command (why the quiet env goes through pass_env)", () => {
    using dir = tempDir("proctor-agent-config");
    const path = join(dir.path, "agent.json");
    const c = load("claude");
    writeFileSync(path, JSON.stringify({ ...c, command: [...c.command, "--settings", '{"env":{"A":"1"}}'] }));
    expect(() => loadAgentConfig(path)).toThrow(
      `expected only the placeholders {prompt_file} {workspace} {skills_dir} {out_dir} at command[${c.command.length + 1}]`,
    );
  });

  test("gemini: -m, yolo and --skip-trust always", () => {
    const c = load("gemini").command;
    expect({
      model: c[c.indexOf("-m") + 1],
      approval: c[c.indexOf("--approval-mode") + 1],
      trust: c.includes("--skip-trust"),
      format: c[c.indexOf("--output-format") + 1],
    }).toEqual({ model: "gemini-2.5-pro", approval: "yolo", trust: true, format: "json" });
  });
});

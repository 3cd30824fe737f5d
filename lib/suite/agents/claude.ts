// The Claude Code driver (pinned 2.1.197). The original's command line minus `--restricted`, which
// this CLI no longer has: headless stream-json, a turn cap, edits accepted and Bash allowed (the
// default mode denies Bash silently, so a task could never run its tests), optional budget and model.
// Env turns off telemetry, update checks and error reports (without them it resolves
// api.anthropic.com even with a custom base URL) and bounds retries. Parse: originals 6.5.

import { guidanceFiles } from "../skills.ts";
import {
  AgentParseError,
  baseEnv,
  deepMerge,
  emptyMetrics,
  isRecord,
  join,
  jsonLines,
  num,
  shortFloat,
  variantSettings,
} from "./_common.ts";
import type { AgentCommand, AgentMetrics, Driver, DriverInput } from "./driver.ts";

/** The original's turn cap when a task sets none. */
export const DEFAULT_MAX_TURNS = 30;

/**
 * Telemetry, update checks, error reports and other non-model traffic off (without them the CLI
 * resolves api.anthropic.com even with a custom base URL), retries and API timeouts bounded.
 */
export const QUIET_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  // Default is 10 retries over minutes; the trial's own timeout should not be what ends an outage.
  CLAUDE_CODE_MAX_RETRIES: "2",
  API_TIMEOUT_MS: "300000",
};

function command(input: DriverInput): AgentCommand {
  const home = input.home;
  const settingsPath = join(home, ".claude", "settings.json");
  const argv = [
    input.bin ?? "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--max-turns",
    String(input.maxTurns || DEFAULT_MAX_TURNS),
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash",
    "--no-session-persistence",
    "--settings",
    settingsPath,
  ];
  if (input.budgetUsd) argv.push("--max-budget-usd", shortFloat(input.budgetUsd));
  if (input.model) argv.push("--model", input.model);
  // The prompt is the positional argument; after "--" one that starts with "-" is not an option.
  argv.push("--", input.prompt);
  const env = {
    ...baseEnv(home),
    CLAUDE_CODE_TMPDIR: join(home, "tmp"),
    ANTHROPIC_BASE_URL: input.modelBaseUrl,
    ...QUIET_ENV,
  };
  // The variant's settings go in through --settings, which ranks above the work dir's own
  // .claude/settings.json, so a task repo cannot loosen what the variant set.
  const settings = deepMerge({}, variantSettings(input));
  return {
    argv,
    env,
    secretEnv: { ANTHROPIC_API_KEY: input.apiKeyEnvName },
    files: [
      { path: settingsPath, content: `${JSON.stringify(settings, null, 2)}\n`, mode: 0o600 },
      // User-level skills and CLAUDE.md: read with the work dir's own, never part of /work.
      ...guidanceFiles(input.guidance, {
        skillsDir: join(home, ".claude", "skills"),
        instructionsFile: join(home, ".claude", "CLAUDE.md"),
      }),
    ],
    dirs: [join(home, "tmp")],
  };
}

function blocks(event: Record<string, unknown>): Record<string, unknown>[] {
  const message = event.message;
  if (!isRecord(message) || !Array.isArray(message.content)) return [];
  return message.content.filter(isRecord);
}

function parse(stdout: string): AgentMetrics {
  const m = emptyMetrics({ cost: true, turns: true, tokens: true });
  let result: Record<string, unknown> | undefined;
  for (const event of jsonLines(stdout)) {
    if (event.type === "assistant") m.toolCalls += blocks(event).filter((b) => b.type === "tool_use").length;
    else if (event.type === "user")
      m.toolErrors += blocks(event).filter((b) => b.type === "tool_result" && b.is_error === true).length;
    else if (event.type === "result") result = event;
  }
  if (!result) throw new AgentParseError("claude: no result message in stream output", m);
  const usage = isRecord(result.usage) ? result.usage : {};
  m.costUsd = num(result.total_cost_usd);
  m.turns = num(result.num_turns);
  m.durationMs = num(result.duration_ms);
  m.tokens =
    num(usage.input_tokens) +
    num(usage.output_tokens) +
    num(usage.cache_read_input_tokens) +
    num(usage.cache_creation_input_tokens);
  const subtype = typeof result.subtype === "string" ? result.subtype : "";
  if (result.is_error === true || (subtype !== "" && subtype !== "success")) {
    m.failed = true;
    // An API error ends as subtype "success" with is_error; its message is then the result text.
    m.error =
      subtype !== "" && subtype !== "success"
        ? subtype
        : typeof result.result === "string" && result.result !== ""
          ? result.result
          : "error";
  }
  return m;
}

/** Claude Code: `claude -p … --output-format stream-json`. */
export const claude: Driver = {
  harness: "claude",
  apiKeyEnvName: "ANTHROPIC_API_KEY",
  wire: "anthropic",
  command,
  parse,
};

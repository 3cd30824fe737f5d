// The Codex CLI driver (pinned 0.171.0). The original's `codex exec --json --sandbox workspace-write
// [-m model] -` with the prompt on stdin, plus what this version needs: a custom model provider in
// $CODEX_HOME/config.toml (it ignores OPENAI_BASE_URL, and only speaks the Responses wire), `plugins`
// off (else every run calls github.com), --skip-git-repo-check for plain work dirs and --ephemeral.
// TMPDIR must not contain CODEX_HOME or Codex cannot make its sandbox helper and every command
// fails while the run still "succeeds". Parse: originals 6.5, tool errors counted as the newest
// original counts them (status failed/declined, failed MCP calls, tool items never completed); Codex
// reports no cost.

import { ConfigError, messageOf } from "../../core/errors.ts";
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
  toToml,
  variantSettings,
} from "./_common.ts";
import type { AgentCommand, AgentMetrics, Driver, DriverInput } from "./driver.ts";

/** The model when a variant names none: a slug in the CLI's own catalog (unknown slugs get fewer tools). */
export const DEFAULT_MODEL = "gpt-5.5";
/** The provider id our config defines. */
export const PROVIDER = "proctor";

function configToml(config: Record<string, unknown>): string {
  try {
    return toToml(config);
  } catch (e) {
    throw new ConfigError(`Cannot use the variant's settings as codex config.toml: ${messageOf(e)}`, {
      cause: e,
    });
  }
}

function command(input: DriverInput): AgentCommand {
  const home = input.home;
  const codexHome = join(home, ".codex");
  const config = deepMerge(
    {
      model: input.model || DEFAULT_MODEL,
      model_provider: PROVIDER,
      check_for_update_on_startup: false,
      analytics: { enabled: false },
      feedback: { enabled: false },
      features: { plugins: false },
      model_providers: {
        [PROVIDER]: {
          name: "Proctor model server",
          base_url: `${input.modelBaseUrl.replace(/\/+$/, "")}/v1`,
          // The variable the CLI reads the key from; sent as "authorization: Bearer".
          env_key: input.apiKeyEnvName,
          wire_api: "responses",
          // Defaults are 30 requests over 25 s per outage; a few are enough to ride out a blip.
          request_max_retries: 2,
          stream_max_retries: 2,
          stream_idle_timeout_ms: 300000,
        },
      },
    },
    variantSettings(input),
  );
  const argv = [input.bin ?? "codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral"];
  // A variant that sets sandbox_mode (e.g. danger-full-access where the container is the sandbox and
  // bwrap cannot make namespaces) gets it: the flag would override the config.
  if (config.sandbox_mode === undefined) argv.push("--sandbox", "workspace-write");
  if (input.model) argv.push("-m", input.model);
  argv.push("-");
  return {
    argv,
    env: { ...baseEnv(home), CODEX_HOME: codexHome },
    secretEnv: { [input.apiKeyEnvName]: input.apiKeyEnvName },
    files: [
      { path: join(codexHome, "config.toml"), content: configToml(config), mode: 0o600 },
      // User-level skills ($HOME/.agents/skills) and $CODEX_HOME/AGENTS.md, never part of /work.
      ...guidanceFiles(input.guidance, {
        skillsDir: join(home, ".agents", "skills"),
        instructionsFile: join(codexHome, "AGENTS.md"),
      }),
    ],
    dirs: [join(home, "tmp")],
    stdin: input.prompt,
  };
}

const TOOL_ITEMS = new Set(["command_execution", "file_change", "mcp_tool_call", "web_search"]);

const isTool = (item: Record<string, unknown>) => typeof item.type === "string" && TOOL_ITEMS.has(item.type);

/**
 * Whether a completed tool item failed, as the newest original counts it: a command with a non-zero
 * exit_code (null counts as 0) or status failed/declined (codex 0.99 sends both), any other tool
 * item with status failed.
 */
function toolFailed(item: Record<string, unknown>): boolean {
  if (item.type === "command_execution")
    return num(item.exit_code) !== 0 || item.status === "failed" || item.status === "declined";
  return item.status === "failed";
}

/** The message of an error event: error.message, else message; "" when neither is a non-empty string. */
function errorMessage(event: Record<string, unknown>): string {
  const nested = isRecord(event.error) ? event.error.message : undefined;
  if (typeof nested === "string" && nested !== "") return nested;
  return typeof event.message === "string" ? event.message : "";
}

function parse(stdout: string): AgentMetrics {
  const m = emptyMetrics({ cost: false, turns: true, tokens: true });
  let seen = false;
  let turns = 0;
  let tokens = 0;
  // Tool items started and not (yet) completed, by id: one left at the end was cut off (a timeout,
  // a sandbox that could not start) and counts as a failed call.
  const open = new Set<string>();
  for (const event of jsonLines(stdout)) {
    const item = isRecord(event.item) ? event.item : {};
    switch (event.type) {
      case "thread.started":
        seen = true;
        break;
      case "turn.completed": {
        seen = true;
        turns++;
        const usage = isRecord(event.usage) ? event.usage : {};
        // Cached input is part of input_tokens already; the original did not add it again.
        tokens += num(usage.input_tokens) + num(usage.output_tokens);
        break;
      }
      case "turn.failed":
      case "error": {
        seen = true;
        m.failed = true;
        // An error without a message keeps the one before it (the original's behaviour).
        const message = errorMessage(event);
        if (message !== "") m.error = message;
        else m.error ??= "";
        break;
      }
      case "item.started":
        if (isTool(item) && typeof item.id === "string" && item.id !== "") open.add(item.id);
        break;
      case "item.completed":
        open.delete(typeof item.id === "string" ? item.id : "");
        if (!isTool(item)) break;
        m.toolCalls++;
        if (toolFailed(item)) m.toolErrors++;
        break;
    }
  }
  m.toolCalls += open.size;
  m.toolErrors += open.size;
  if (!seen) throw new AgentParseError("codex: no recognised events in output", m);
  return { ...m, turns, tokens };
}

/** OpenAI Codex: `codex exec --json … -`, prompt on stdin. */
export const codex: Driver = {
  harness: "codex",
  apiKeyEnvName: "OPENAI_API_KEY",
  wire: "responses",
  command,
  parse,
};

// The driver contract of the suite lane, as types only: what a driver is given about one agent run
// (DriverInput), what it returns (AgentCommand: argv, non-secret env, files, stdin; the API key only
// by NAME in secretEnv, which the agent gets as a placeholder: see key.ts) and what it parses from
// the CLI's output (AgentMetrics). The drivers themselves and the registry are in index.ts; this
// file imports only types, so they can all share it.
import type { WireName } from "../../wire/index.ts";
import type { Guidance } from "../skills.ts";
import type { HarnessName } from "../suite.ts";
/** What a driver needs to know about one agent run. Paths are as the CLI will see them (POSIX). */
export interface DriverInput {
  /** The model server's origin, e.g. `http://127.0.0.1:8080` (no `/v1`: each driver adds its own path). */
  modelBaseUrl: string;
  /** The variable in the RUNNER's environment that holds the model API key (its value reaches neither the driver nor the CLI). */
  apiKeyEnvName: string;
  /** A fresh, empty, writable HOME for the CLI (its config, caches and transcripts go under it). */
  home: string;
  /** The task's work dir; the CLI runs with it as cwd. */
  workDir: string;
  prompt: string;
  model?: string;
  /** Turn cap (claude: --max-turns, default 30; gemini: model.maxSessionTurns; codex has none). */
  maxTurns?: number;
  /** Spend cap in USD (claude only: --max-budget-usd). */
  budgetUsd?: number;
  /** The variant's settings (a JSON object, or the text of a JSON settings file), deep-merged over the driver's own. */
  settings?: Record<string, unknown> | string;
  /** The CLI executable (default: its bare name, found on the runner's PATH). */
  bin?: string;
  /** The command harness's template (the variant's `command`). */
  command?: string;
  /** The oracle harness's script: the text of the task's reference solution. */
  solution?: string;
  /** The variant's skills and instructions, installed where this harness reads them (user level, under HOME). */
  guidance?: Guidance;
}

/** A file the runner writes before starting the CLI (parent directories created, mode 0600). */
export interface DriverFile {
  path: string;
  content: string;
  mode?: number;
}

/** How to start the CLI. The runner adds PATH (and nothing else it was not told) to `env`. */
export interface AgentCommand {
  argv: string[];
  /** Non-secret environment, complete apart from PATH (HOME, TMPDIR, base URL, telemetry/update off, retries, timeouts). */
  env: Record<string, string>;
  /**
   * The model key: name the CLI reads -> name in the runner's environment holding the value. The CLI
   * gets a placeholder under that name; the model bridge puts the real value on its requests (key.ts).
   */
  secretEnv: Record<string, string>;
  files: DriverFile[];
  /** Directories the runner creates (mode 0700) before the start, e.g. the CLI's TMPDIR. */
  dirs: string[];
  /** Text for stdin; absent means stdin is closed (/dev/null), which every CLI here needs. */
  stdin?: string;
}

/** Which figures the CLI itself reported (false: the CLI has no such figure; the value is null). */
export interface Reported {
  cost: boolean;
  turns: boolean;
  tokens: boolean;
  /** Absent means reported (the three CLIs always count tool calls and errors from their events). */
  toolCalls?: boolean;
  toolErrors?: boolean;
}

/** What one agent run cost and did, from the CLI's own output (originals 6.5 semantics). */
export interface AgentMetrics {
  costUsd: number | null;
  turns: number | null;
  tokens: number | null;
  toolCalls: number;
  toolErrors: number;
  durationMs: number | null;
  /** The CLI reported a failure (error event, error result, non-success subtype). */
  failed: boolean;
  /** The failure's message when `failed`. */
  error?: string;
  reported: Reported;
}

/** One agent CLI. */
export interface Driver {
  harness: HarnessName;
  /** The variable the CLI conventionally reads its key from (a good default for DriverInput.apiKeyEnvName). */
  apiKeyEnvName: string;
  /** The protocol the CLI speaks to its model: the bridge puts the key on that way (absent: no key of ours). */
  wire?: WireName;
  /** The command for one run; pure (no I/O). Throws a ConfigError for settings that are not a JSON object. */
  command(input: DriverInput): AgentCommand;
  /**
   * Reads the run's output (unknown fields tolerated). Output that is not a run of this CLI throws an
   * AgentParseError with the original's message, carrying what could be read as `metrics`.
   */
  parse(stdout: string, stderr: string, exitCode: number | null): AgentMetrics;
}

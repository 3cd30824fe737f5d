// The driver contract of the suite lane: one Driver per agent CLI (claude, codex, gemini) turns a
// trial (prompt, model, limits, variant settings, where the model server is) into an AgentCommand
// (argv, non-secret env, files to write, stdin) and parses what the CLI printed into AgentMetrics.
// A driver does not know whether the CLI runs in a container or on the host, and never sees a
// secret: the API key travels by NAME (AgentCommand.secretEnv) and the runner injects the value into
// the exec environment only (never argv, never a file). Per-CLI details live in lib/agent/<cli>.ts.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { settingsObject } from "./agent/_common.ts";
import { claude } from "./agent/claude.ts";
import { codex } from "./agent/codex.ts";
import { gemini } from "./agent/gemini.ts";
import { ConfigError, messageOf } from "./errors.ts";
import { writeFileAtomic } from "./fsx.ts";
import type { Harness } from "./suite.ts";

export { AgentParseError, settingsObject } from "./agent/_common.ts";

/** What a driver needs to know about one agent run. Paths are as the CLI will see them (POSIX). */
export interface DriverInput {
  /** The model server's origin, e.g. `http://127.0.0.1:8080` (no `/v1`: each driver adds its own path). */
  modelBaseUrl: string;
  /** The variable in the RUNNER's environment that holds the model API key (the value never reaches the driver). */
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
  /** Secret variables: name the CLI reads -> name in the runner's environment holding the value. */
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
  harness: Harness;
  /** The variable the CLI conventionally reads its key from (a good default for DriverInput.apiKeyEnvName). */
  apiKeyEnvName: string;
  /** The command for one run; pure (no I/O). Throws a ConfigError for settings that are not a JSON object. */
  command(input: DriverInput): AgentCommand;
  /**
   * Reads the run's output (unknown fields tolerated). Output that is not a run of this CLI throws an
   * AgentParseError with the original's message, carrying what could be read as `metrics`.
   */
  parse(stdout: string, stderr: string, exitCode: number | null): AgentMetrics;
}

/** The drivers by harness name. */
export const DRIVERS: Record<Harness, Driver> = { claude, codex, gemini };

/** The driver for a harness. */
export function driverFor(harness: Harness): Driver {
  return DRIVERS[harness];
}

/**
 * The values of an AgentCommand's secret variables, read from `from` (the runner's environment).
 * Throws a ConfigError naming the missing variable; the message never holds a value.
 */
export function secretValues(inv: AgentCommand, from: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [target, source] of Object.entries(inv.secretEnv)) {
    const value = from[source];
    if (value === undefined || value === "")
      throw new ConfigError(
        `Cannot start the agent: environment variable ${source} (the model API key) is not set`,
      );
    out[target] = value;
  }
  return out;
}

/** Reads a variant's settings file: a JSON object. */
export function readSettings(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`Cannot read settings "${path}": ${messageOf(e)}`, { cause: e });
  }
  return settingsObject(text, `"${path}"`);
}

/** Creates an AgentCommand's dirs and files on this machine (the local runner; Docker copies them in). */
export function materialize(cmd: AgentCommand): void {
  for (const dir of cmd.dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of cmd.files) {
    mkdirSync(dirname(f.path), { recursive: true, mode: 0o700 });
    writeFileAtomic(f.path, f.content, { mode: f.mode ?? 0o600 });
  }
}

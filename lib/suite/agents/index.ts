// The driver contract of the suite lane: one Driver per agent CLI (claude, codex, gemini; `command`
// for any other agent, the built-in `nop` and `oracle`, see command.ts and builtin.ts) turns a
// trial (prompt, model, limits, variant settings, where the model server is) into an AgentCommand
// (argv, non-secret env, files to write, stdin) and parses what the CLI printed into AgentMetrics.
// A driver does not know whether the CLI runs in a container or on the host, and never sees a
// secret: it names the API key's variable (AgentCommand.secretEnv), the CLI gets a placeholder there
// and the model bridge puts the real value on its requests (key.ts): never argv, a file or the
// agent's environment. Per-CLI details live in lib/suite/agents/<cli>.ts.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../../core/errors.ts";
import { writeFileAtomic } from "../../core/fsx.ts";
import { CONFIG, readInput } from "../input.ts";
import type { HarnessName } from "../suite.ts";
import { settingsObject } from "./_common.ts";
import { nop, oracle } from "./builtin.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { commandDriver } from "./command.ts";
import { gemini } from "./gemini.ts";

export { AgentParseError, settingsObject } from "./_common.ts";
export type { AgentCommand, AgentMetrics, Driver, DriverFile, DriverInput, Reported } from "./driver.ts";

import type { AgentCommand, Driver } from "./driver.ts";

/** The drivers by harness name. */
export const DRIVERS: Record<HarnessName, Driver> = {
  claude,
  codex,
  gemini,
  command: commandDriver,
  nop,
  oracle,
};

/** The driver for a harness. */
export function driverFor(harness: HarnessName): Driver {
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
  return settingsObject(readInput(path, "settings", CONFIG), `"${path}"`);
}

/** Creates an AgentCommand's dirs and files on this machine (the local runner; Docker copies them in). */
export function materialize(cmd: AgentCommand): void {
  for (const dir of cmd.dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of cmd.files) {
    mkdirSync(dirname(f.path), { recursive: true, mode: 0o700 });
    writeFileAtomic(f.path, f.content, { mode: f.mode ?? 0o600 });
  }
}

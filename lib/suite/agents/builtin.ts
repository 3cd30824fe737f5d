// The two built-in agents that need no model: `nop` does nothing (a trusted task must fail untouched)
// and `oracle` runs the task's reference solution (it must pass when solved). The oracle's script is
// written under the agent's HOME, outside /work, so the check never sees it, and run with /work as
// its cwd through its own shebang (sh when it has none). Both report zero spend: none was made.
import { ConfigError } from "../../core/errors.ts";
import { baseEnv, emptyMetrics, join } from "./_common.ts";
import type { AgentCommand, AgentMetrics, Driver, DriverInput } from "./driver.ts";

/** Where the oracle's copy of the solution goes, relative to the agent's HOME. */
export const SOLUTION_NAME = ".proctor-oracle/solve.sh";

function spent(): AgentMetrics {
  return { ...emptyMetrics({ cost: true, turns: true, tokens: true }), costUsd: 0, turns: 0, tokens: 0 };
}

function nopCommand(input: DriverInput): AgentCommand {
  return { argv: ["true"], env: baseEnv(input.home), secretEnv: {}, files: [], dirs: [] };
}

function oracleCommand(input: DriverInput): AgentCommand {
  if (input.solution === undefined)
    throw new ConfigError(
      "Cannot run the oracle: the task has no reference solution (task.yaml key solution)",
    );
  const script = join(input.home, SOLUTION_NAME);
  return {
    // staged() copies files 0600; the script gets its exec bit here so its shebang picks the interpreter.
    argv: ["sh", "-c", 'chmod 700 "$1" && exec "$1"', "oracle", script],
    env: baseEnv(input.home),
    secretEnv: {},
    files: [{ path: script, content: input.solution, mode: 0o700 }],
    dirs: [join(input.home, "tmp")],
  };
}

/** Does nothing and exits 0. */
export const nop: Driver = { harness: "nop", apiKeyEnvName: "", command: nopCommand, parse: spent };

/** Runs the task's reference solution (DriverInput.solution, the script's text). */
export const oracle: Driver = { harness: "oracle", apiKeyEnvName: "", command: oracleCommand, parse: spent };

// How an agent's model key stays out of its phase: the driver names the variable the CLI reads its
// key from (AgentCommand.secretEnv: CLI's name -> the host variable holding the key); the agent gets
// the placeholder under that name, and the model bridge gets the credential (the driver's protocol
// and that host variable, read on the host when a request is forwarded). `--pass-env` names are the
// user's own choice: they still reach the exec by name, and a placeholder never shadows one. Reads
// only which --pass-env variables are set; the task.yaml agent phase (agent-phase.ts) and the Harbor
// trial both start from it.
import { ConfigError } from "../../core/errors.ts";
import { type Credential, PLACEHOLDER_KEY } from "../../wire/credential.ts";
import type { AgentCommand, Driver } from "./driver.ts";

/** What an agent's exec and its model bridge get instead of the key. */
export interface BridgedKey {
  /** The command's env with the placeholder under each key variable the CLI reads. */
  env: Record<string, string>;
  /** What the bridge puts on each request; absent when the driver names no key (the agent's own pass). */
  credential?: Credential;
  /** Host variables for the exec by name: the --pass-env ones that are set (never the model key). */
  secretEnvNames: string[];
}

/**
 * The placeholder env, the bridge's credential and the --pass-env names for a driver's command. A
 * driver that names a key but no protocol, or two host variables, is a ConfigError (the bridge adds one).
 */
export function bridgedKey(
  driver: Pick<Driver, "harness" | "wire">,
  inv: Pick<AgentCommand, "env" | "secretEnv">,
  passEnv: readonly string[],
): BridgedKey {
  const secretEnvNames = [...new Set(passEnv)].filter((n) => process.env[n] !== undefined);
  const keys = Object.entries(inv.secretEnv);
  const sources = [...new Set(keys.map(([, source]) => source))];
  if (sources.length === 0) return { env: inv.env, secretEnvNames };
  if (sources.length > 1)
    throw new ConfigError(
      `Cannot bridge the ${driver.harness} agent's key: it names ${sources.length} host variables (${sources.join(", ")}); the bridge puts one on`,
    );
  if (driver.wire === undefined)
    throw new ConfigError(
      `Cannot bridge the ${driver.harness} agent's key: its driver names no wire protocol to put ${sources[0]} on with`,
    );
  const placeholders = Object.fromEntries(
    keys.filter(([target]) => !passEnv.includes(target)).map(([target]) => [target, PLACEHOLDER_KEY]),
  );
  return {
    env: { ...inv.env, ...placeholders },
    credential: { wire: driver.wire, keyEnv: sources[0] as string },
    secretEnvNames,
  };
}

// What of a task.toml a Harbor trial here cannot honour, in one line naming the key: features this
// runner does not have (multi-step tasks, separate verifier containers, readiness checks, MCP servers
// and skills for the agent, GPUs and TPUs, Windows, host allowlists) and network policies one
// container cannot give (the agent and the verifier share it, so they share its network). Also the
// task's network need: Harbor's network_mode (or the legacy allow_internet), per phase. Pure.

type Mode = "public" | "no-network" | "allowlist";
type Net = { network_mode?: Mode | undefined; allowed_hosts?: string[] | undefined };

/** What this file reads of a parsed task.toml (config.ts's HarborTaskToml has it all). */
export interface TomlKeys {
  environment?:
    | (Net & {
        os?: string | undefined;
        gpus?: number | undefined;
        tpu?: unknown;
        allow_internet?: boolean | undefined;
        healthcheck?: unknown;
        mcp_servers?: unknown[] | undefined;
        skills_dir?: string | undefined;
      })
    | undefined;
  agent?: Net | undefined;
  verifier?:
    | (Net & {
        environment?: unknown;
        environment_mode?: string | undefined;
        collect?: unknown[] | undefined;
      })
    | undefined;
  steps?: unknown[] | undefined;
  artifacts?: (string | { service?: string | undefined })[] | undefined;
}

/** The first key of `f` this runner cannot honour, as `key: why`; undefined when there is none. */
export function refusedKey(f: TomlKeys): string | undefined {
  const e = f.environment ?? {};
  const v = f.verifier ?? {};
  const checks: [boolean, string][] = [
    [(f.steps ?? []).length > 0, "steps: multi-step tasks ([[steps]]) are not supported here"],
    [e.os?.toLowerCase() === "windows", 'environment.os: "windows" containers are not supported here'],
    [(e.gpus ?? 0) > 0, `environment.gpus: GPUs are not supported here: expected 0, got ${e.gpus}`],
    [e.tpu !== undefined, "environment.tpu: TPUs are not supported here"],
    [
      v.environment !== undefined,
      "verifier.environment: a separate verifier container is not supported here (the verifier runs in the agent's container)",
    ],
    [
      v.environment_mode === "separate",
      'verifier.environment_mode: "separate" is not supported here (the verifier runs in the agent\'s container)',
    ],
    [(v.collect ?? []).length > 0, "verifier.collect: collect hooks are not run here"],
    [e.healthcheck !== undefined, "environment.healthcheck: readiness checks are not run here"],
    [
      (e.mcp_servers ?? []).length > 0,
      "environment.mcp_servers: MCP servers are not set up for the agent here",
    ],
    [e.skills_dir !== undefined, "environment.skills_dir: skills are not installed for the agent here"],
  ];
  const hit = checks.find(([refused]) => refused);
  if (hit) return hit[1];
  const i = (f.artifacts ?? []).findIndex(
    (a) => typeof a !== "string" && !["main", undefined].includes(a.service),
  );
  if (i >= 0)
    return `artifacts[${i}].service: artifacts of another container need a compose environment, not supported here`;
  return undefined;
}

/** A phase's mode: its own, else its allowlist's, else `fallback`. */
function modeOf(n: Net | undefined, fallback: Mode): Mode {
  return n?.network_mode ?? ((n?.allowed_hosts ?? []).length > 0 ? "allowlist" : fallback);
}

/** Which key set a phase's mode: its own network_mode or allowed_hosts, else the environment's. */
function keyOf(section: string, n: Net | undefined, envKey: string): string {
  if (n?.network_mode !== undefined) return `${section}.network_mode`;
  return (n?.allowed_hosts ?? []).length > 0 ? `${section}.allowed_hosts` : envKey;
}

/**
 * The task's network need: public (`internetKey` names the key that asks for it), or none. Absent
 * everywhere, a task runs offline here (Harbor's default is public: a task that needs the internet
 * says so). Refused: an allowlist, and an agent and verifier wanting different networks.
 */
export function resolveNetwork(f: TomlKeys): { ok: true; internetKey?: string } | { ok: false; why: string } {
  const e = f.environment ?? {};
  const legacy: Mode = e.allow_internet === true ? "public" : "no-network";
  const envMode = modeOf(e, legacy);
  const envKey = keyOf("environment", e, "environment.allow_internet");
  const phases = [
    { mode: modeOf(f.agent, envMode), key: keyOf("agent", f.agent, envKey) },
    { mode: modeOf(f.verifier, envMode), key: keyOf("verifier", f.verifier, envKey) },
  ];
  const listed = [{ mode: envMode, key: envKey }, ...phases].find((p) => p.mode === "allowlist");
  if (listed)
    return {
      ok: false,
      why: `${listed.key}: host allowlists (network_mode = "allowlist") are not enforced here`,
    };
  const [agent, verifier] = phases as [(typeof phases)[0], (typeof phases)[0]];
  if (agent.mode !== verifier.mode) {
    const key = verifier.key !== envKey ? verifier.key : agent.key;
    return {
      ok: false,
      why: `${key}: the agent's network is "${agent.mode}" and the verifier's "${verifier.mode}", but here both run in one container with one network`,
    };
  }
  return agent.mode === "public" ? { ok: true, internetKey: agent.key } : { ok: true };
}

// Talking to the Docker engine through the `docker` CLI (lib/core/proc.ts), and the exact argv of the
// hardened verbs (originals 6.4). Argument builders are pure so the tests can check them without an
// engine. Env values never appear here: secrets are named with `-e NAME` and the docker client reads
// their values from its own environment, which only the agent exec's client gets.
import { ToolError } from "../../core/errors.ts";
import { type ProcResult, run } from "../../core/proc.ts";
import type { PhaseSpec } from "../contract.ts";

/** The run label every container carries. */
export const RUN_LABEL = "proctor.run";
/** Where the model bridge's socket directory is mounted in an agent container. */
export const BRIDGE_MOUNT = "/run/proctor";
/** The in-container loopback port of the model forwarder (each container has its own loopback). */
export const BRIDGE_PORT = 41800;
/** The message and exit code (halo: 1 = error) for a missing or stopped engine. */
export const ENGINE_HINT = "install docker.io (apt-get install -y docker.io) and start dockerd";

/**
 * Capabilities a Harbor task's containers keep after `--cap-drop=ALL` (the agent's, the oracle's and
 * the verifier's alike: they run the task author's scripts as the image's user, often root). Real
 * scripts need them: apt-get drops to its _apt user (SETUID, SETGID), chown and chmod of files they do
 * not own (CHOWN, FOWNER, FSETID, DAC_OVERRIDE), su (SETUID, SETGID, AUDIT_WRITE), a server on a low
 * port (NET_BIND_SERVICE), chroot-based tools (SYS_CHROOT), signals to their own processes (KILL).
 * That is Docker's default set less what reaches past the container: NET_RAW (raw packets, ARP on a
 * bridge), MKNOD (device nodes), SETFCAP and SETPCAP (capabilities handed on to files or processes).
 * no-new-privileges stays, so no setuid program raises a non-root user. task.yaml phases keep none.
 */
export const TASK_CAPS = [
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "SETGID",
  "SETUID",
  "NET_BIND_SERVICE",
  "SYS_CHROOT",
  "AUDIT_WRITE",
] as const;

/** How an attached phase's `docker run` begins (cleanup.ts tells it from a detached one by this). */
export const ATTACHED_RUN = ["run", "-i"] as const;

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Throws a usage-level ToolError unless `runId` is a safe label value. */
export function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId))
    throw new ToolError(`Invalid run id "${runId}": expected 1-64 characters of [A-Za-z0-9_-]`, 1);
}

/**
 * The hardened `docker run` argv (after "docker") for one phase container, detached (`-d --rm`, for
 * execs). With `attach` it is `docker run -i`: the phase is the container's own process with /work on
 * stdin, kept after it exits so /work can be copied out, or with `discard` (nothing to copy out) gone
 * when the client returns (`--rm`), so no later `docker rm` waits at the end of the trial. A signal's
 * sweep does not wait for such a run (cleanup.ts, ATTACHED): removing its container ends it.
 * `env` is non-secret only (it shows in inspect). `create` makes the container without starting it
 * (`docker create`, for files copied in first); `keep` leaves a detached container when its process
 * ends (it is diffed and committed, then removed by the caller); `caps` are added back after `--cap-drop=ALL`;
 * `mounts` are `--mount` specs (fresh volumes, never a host path); `init` runs the engine's own init as
 * PID 1; `entrypoint` replaces the image's, so `command` is what runs.
 */
export function runArgs(
  spec: PhaseSpec,
  name: string,
  o: {
    user: string;
    bridgeDir?: string;
    command: string[];
    attach?: boolean;
    discard?: boolean;
    env?: Record<string, string>;
    secretNames?: readonly string[];
    create?: boolean;
    keep?: boolean;
    caps?: readonly string[];
    mounts?: readonly string[];
    init?: boolean;
    entrypoint?: string;
  },
): string[] {
  const lim = spec.limits ?? {};
  const verb = o.create
    ? ["create"]
    : o.attach
      ? [...ATTACHED_RUN, ...(o.discard ? ["--rm"] : [])]
      : ["run", "-d", ...(o.keep ? [] : ["--rm"])];
  return [
    ...verb,
    // No registry is reachable: a missing image must fail now, not after a pull times out.
    "--pull=never",
    "--name",
    name,
    "--label",
    `${RUN_LABEL}=${spec.runId}`,
    "--label",
    `proctor.phase=${spec.phase}`,
    "-w",
    "/work",
    "--cap-drop=ALL",
    ...(o.caps ?? []).map((c) => `--cap-add=${c}`),
    "--security-opt=no-new-privileges",
    `--pids-limit=${lim.pids ?? 512}`,
    `--memory=${lim.memory ?? "4g"}`,
    `--cpus=${lim.cpus ?? 2}`,
    `--user=${spec.user ?? o.user}`,
    "--network",
    spec.network,
    ...(o.bridgeDir ? ["-v", `${o.bridgeDir}:${BRIDGE_MOUNT}:ro`] : []),
    ...(o.mounts ?? []).flatMap((m) => ["--mount", m]),
    ...(o.init ? ["--init"] : []),
    ...(o.entrypoint !== undefined ? ["--entrypoint", o.entrypoint] : []),
    ...envArgs(o.env ?? {}, [...(o.secretNames ?? [])]),
    spec.image,
    ...o.command,
  ];
}

/** The `docker exec` argv: non-secret env as K=V, secrets by name only (values come from the client's env). */
export function execArgs(
  name: string,
  argv: string[],
  env: Record<string, string>,
  secretNames: string[],
): string[] {
  return ["exec", "-i", "-w", "/work", ...envArgs(env, secretNames), name, ...argv];
}

/** `-e K=V` for non-secret env, `-e NAME` for secrets (the client reads their values); names checked. */
function envArgs(env: Record<string, string>, secretNames: string[]): string[] {
  for (const k of [...Object.keys(env), ...secretNames])
    if (!ENV_NAME.test(k)) throw new ToolError(`Invalid environment variable name "${k}"`, 1);
  return [
    ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    ...secretNames.flatMap((k) => ["-e", k]),
  ];
}

/** One docker CLI call; a non-zero exit is a result. `env` is the client's whole environment. */
export type DockerCall = (args: string[], o?: CallOptions) => Promise<ProcResult>;

/** Per call: the client's env, stdin, a timeout, and binary tar streams to or from files. */
export interface CallOptions {
  env?: Record<string, string>;
  input?: string | Uint8Array;
  timeoutMs?: number;
  /** Stream this file to the client's stdin (a tar for `docker cp -`). */
  stdinFile?: string;
  /** Stream the client's stdout to this file (a tar from `docker cp ... -`); never decoded as text. */
  stdoutFile?: string;
  /** Or hand the client's stdout to this sink as it comes (lib/core/proc.ts onStdout: false stops it). */
  onStdout?: (chunk: Buffer) => boolean;
}

/** A DockerCall that runs `docker` and reports each argv to `observe` (never the env). */
export function dockerCli(docker = "docker", observe?: (argv: string[]) => void): DockerCall {
  return async (args, o = {}) => {
    observe?.(args);
    // lib/core/proc.ts collects stdout as text, so binary tar streams go through a shell redirect instead.
    const redirect = o.stdinFile ? `<"$1"` : o.stdoutFile ? `>"$1"` : "";
    const command = redirect
      ? [
          "sh",
          "-c",
          `f=$1; shift; exec "$@" ${redirect.replace("$1", "$f")}`,
          "sh",
          o.stdinFile ?? o.stdoutFile ?? "",
          docker,
          ...args,
        ]
      : [docker, ...args];
    try {
      return await run(command, {
        env: o.env,
        input: o.input,
        timeoutMs: o.timeoutMs,
        ...(o.onStdout ? { onStdout: o.onStdout } : {}),
      });
    } catch (error) {
      throw new ToolError(`Cannot run "${docker}": ${ENGINE_HINT}`, 1, { cause: error });
    }
  };
}

/** Throws a ToolError (exit 1) naming the remedy when the engine cannot be reached. */
export async function checkEngine(call: DockerCall): Promise<void> {
  const r = await call(["version", "--format", "{{.Server.Version}}"], { timeoutMs: 30_000 });
  if (r.exitCode !== 0) {
    const why = r.stderr.trim().split("\n").pop() || `exit ${r.exitCode}`;
    throw new ToolError(`Cannot reach the Docker engine: ${why}; ${ENGINE_HINT}`, 1);
  }
}

/** The last 300 characters of a docker client's stderr, for infraError messages. */
export function tail(s: string): string {
  const t = s.trim();
  return t.length > 300 ? `...${t.slice(-300)}` : t;
}

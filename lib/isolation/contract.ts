// The contract between the suite runner and the Docker runner (lib/isolation/docker/index.ts). Each phase of a
// trial (setup, agent, check) runs in a fresh container from the variant's image; only /work is
// carried between phases, as a host-side snapshot (the Workspace). This file holds types only, so
// the suite can code against it while the runner is built; it does not run anything itself.
//
// Sequence for one trial (the original's verbs, originals 6.4):
//   ws = await runner.prepare(runId, repoDir)            // snapshot of the initial /work
//   await runner.runPhase(ws, { phase: "setup", commands: [[...], [...]], ... }) // run cp exec exec cp rm
//   await runner.runPhase(ws, { phase: "agent", argv, secretEnvNames, model, ... }) // run cp exec cp rm
//   await runner.runPhase(ws, { phase: "check", argv, ... })                        // run cp exec rm
//   await runner.dispose(ws)
// Engine problems (docker missing, daemon down) throw a ToolError with exit code 1 (halo's "error");
// per-phase infrastructure failures (image missing, container start, copy) come back as
// PhaseResult.infraError, kept apart from a command's own non-zero exit.

import type { Credential } from "../wire/credential.ts";
import type { Exchange } from "./model-proxy.ts";

/** One phase's container and what runs in it. */
export interface PhaseSpec {
  /** The run's label value (`proctor.run=<runId>`): [A-Za-z0-9_-]{1,64}. Every container and scratch dir carries it. */
  runId: string;
  image: string;
  phase: "setup" | "agent" | "check";
  /** Exec'd in the container at /work (setup/check: ["bash", "-lc", script]). */
  argv: string[];
  /**
   * Several commands run one after another in the same container (setup: one exec per task setup
   * command, as the original does); stops at the first non-zero exit or timeout. When given, `argv`
   * is ignored. PhaseResult.commandIndex tells which command the result belongs to.
   */
  commands?: string[][];
  /** Given on the exec's stdin (codex reads its prompt from stdin); empty when absent. */
  stdin?: string;
  /** Non-secret env for the exec(s); given as `-e K=V` (visible in the docker client's argv, so never secrets). */
  env?: Record<string, string>;
  /** Agent phase only: names whose VALUES are read from the host env and given only to this exec (never argv/inspect/log). */
  secretEnvNames?: string[];
  /**
   * Files written into the container before the exec (a driver's settings under HOME), mode default
   * 0o644. They and their missing parents below the top level (/tmp/home, /tmp/home/.claude) are owned
   * by the exec user, so the CLI can write beside them; top-level dirs (/tmp, /etc) keep the image's.
   */
  files?: { path: string; content: string; mode?: number }[];
  /** Per exec; on timeout the container is force-removed and the result has timedOut. */
  timeoutMs: number;
  /** "none" (default in the suite): no egress at all; "bridge": explicit opt-in for tasks that need the internet. */
  network: "none" | "bridge";
  /**
   * Agent phase: the host-side model endpoint to bridge, and the real credential the bridge puts on
   * each request in place of the agent's (absent: the agent's own headers pass unchanged). The exec
   * gets PROCTOR_MODEL_URL=http://127.0.0.1:<port><path>, the bridge as it reaches it; `onExchange`
   * sees each exchange the bridge forwarded, once it ended (the trial's meter and transcript).
   */
  model?: { url: string; credential?: Credential; onExchange?: (e: Exchange) => void };
  /** Defaults: cpus 2, memory "4g", pids 512 (the original's). */
  limits?: { cpus?: number; memory?: string; pids?: number };
  /** Default "1000:1000"; /work's files are owned by the runner's user (dockerRunner({ user })). */
  user?: string;
}

/** What a phase did. exitCode is the command's (null when it never ran or was killed). */
export interface PhaseResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Index into `commands` (0 with plain `argv`) of the command this result belongs to. */
  commandIndex: number;
  /** Image missing, container start, copy errors: infrastructure, never the agent's failure. */
  infraError?: string;
}

/** A host snapshot of /work carried between phases. Opaque to callers. */
export interface Workspace {
  readonly runId: string;
  /** The scratch directory that holds the snapshot (carries the run id in its name). */
  readonly dir: string;
}

/** Runs trial phases in containers. */
export interface PhaseRunner {
  /** The initial /work: a copy of repoDir (regular files, dirs and symlinks), or empty. */
  prepare(runId: string, repoDir: string | undefined): Promise<Workspace>;
  /** Runs one phase in a fresh container; /work is updated from it unless the phase is "check". */
  runPhase(ws: Workspace, spec: PhaseSpec): Promise<PhaseResult>;
  /** Removes the workspace's scratch directory. */
  dispose(ws: Workspace): Promise<void>;
}

/** A PhaseRunner that may say where /work and HOME are for a workspace (the LocalRunner's temp dir). */
export type SuiteRunner = PhaseRunner & { layout?(ws: Workspace): Layout };

/** Where the agent's /work, HOME and staged files are, as its commands see them. */
export interface Layout {
  work: string;
  home: string;
  stage: string;
  /** The model bridge's origin as the agent reaches it, when the runner bridges on this host's loopback. */
  model?: string;
}

/** Options for dockerRunner(). */
export interface DockerRunnerOptions {
  /** The docker CLI (default "docker" on PATH). */
  docker?: string;
  /** Owner of /work's files and default exec user (default "1000:1000"). */
  user?: string;
  /** Where scratch dirs go (default os.tmpdir()). */
  scratchRoot?: string;
  /** Observer for every docker CLI call (verb and argv), for tests and the bench; never sees env values. */
  onDockerCall?: (argv: string[]) => void;
  /** The most /work's snapshot may hold between phases, holes not counted (default 1 GiB): over it the trial is an infrastructure failure. */
  maxWorkBytes?: number;
}

// A single-node Docker Swarm for the examples/swarm tests: initialised on 127.0.0.1 (never another
// address) and left again whatever happened, with every service, container, volume, secret and network
// the tests made; the shard image built by the example's own image.sh; examples/swarm/run.sh run as
// a user would; the trials volume read through a throwaway container. Waits poll the engine in
// bounded loops (each round is one docker call), never sleep.
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { binDir } from "../support/binary.ts";
import { REPO_ROOT } from "../support/tools.ts";

export const EXAMPLE = join(REPO_ROOT, "examples", "swarm");

/** `docker ARGS`: the whole result (a non-zero exit is a result). */
export const docker = (args: string[], input?: string): Promise<ProcResult> =>
  run(["docker", ...args], input === undefined ? {} : { input });

/** The non-empty lines of a listing. */
export const lines = (r: ProcResult): string[] => r.stdout.split("\n").filter(Boolean);

/** `docker ARGS` that must succeed: its stdout. */
export async function must(args: string[], input?: string): Promise<string> {
  const r = await docker(args, input);
  if (r.exitCode !== 0) throw new Error(`docker ${args.join(" ")}: exit ${r.exitCode}: ${r.stderr}`);
  return r.stdout;
}

/** Calls `look` until it returns a value (not undefined), at most `rounds` times; each round is a docker call. */
export async function poll<T>(what: string, rounds: number, look: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < rounds; i++) {
    const v = await look();
    if (v !== undefined) return v;
  }
  throw new Error(`gave up waiting for ${what} after ${rounds} looks`);
}

/** A swarm this process initialised; `leave()` removes all it made and leaves it. */
export interface TestSwarm {
  /** Service, container and volume names of `prefix` still there (what a run must not leave). */
  leftovers(prefix: string): Promise<string[]>;
  leave(): Promise<void>;
}

/**
 * Initialises a single-node swarm on 127.0.0.1 (a free port). Fails, never skips, without an engine
 * or when the engine is already in a swarm (leaving it would destroy someone's swarm).
 */
export async function initSwarm(prefix: string): Promise<TestSwarm> {
  const info = await docker(["info", "--format", "{{.Swarm.LocalNodeState}}"]);
  if (info.exitCode !== 0)
    throw new Error(`No Docker engine: ${info.stderr.trim()} (apt-get install -y docker.io; dockerd &)`);
  if (info.stdout.trim() !== "inactive")
    throw new Error(
      `The engine is already in a swarm (${info.stdout.trim()}): these tests make their own; docker swarm leave --force first`,
    );
  const gwbridge = (await docker(["network", "inspect", "docker_gwbridge"])).exitCode === 0;
  await must(["swarm", "init", "--advertise-addr", "127.0.0.1", "--listen-addr", "127.0.0.1:0"]);
  const ours = ["--filter", `label=proctor.swarm`];
  const leftovers = async (p: string) => {
    const named = (r: ProcResult) => lines(r).filter((n) => n.startsWith(p));
    const ps = await docker([
      "ps",
      "-a",
      "--format",
      '{{.Names}} {{.Label "proctor.swarm"}} {{.Label "proctor.run"}}',
    ]);
    return [
      ...named(await docker(["service", "ls", "--format", "{{.Name}}"])).map((n) => `service ${n}`),
      ...lines(ps)
        .filter((l) => l.split(" ").some((w) => w.startsWith(p)))
        .map((l) => `container ${l}`),
      ...named(await docker(["volume", "ls", "--format", "{{.Name}}"])).map((n) => `volume ${n}`),
      ...named(await docker(["secret", "ls", "--format", "{{.Name}}"])).map((n) => `secret ${n}`),
    ];
  };
  return {
    leftovers,
    async leave() {
      const services = lines(await docker(["service", "ls", "-q", ...ours]));
      if (services.length) await docker(["service", "rm", ...services]);
      const gone = async () => {
        const left = lines(await docker(["ps", "-aq", ...ours]));
        if (left.length === 0) return true;
        await docker(["rm", "-f", ...left]);
        return undefined;
      };
      await poll("the swarm's containers to go", 200, gone).catch(() => undefined);
      const trials = await docker([
        "ps",
        "-a",
        "--filter",
        "label=proctor.run",
        "--format",
        '{{.ID}} {{.Label "proctor.run"}}',
      ]);
      const mine = lines(trials)
        .filter((l) => l.split(" ")[1]?.startsWith(prefix))
        .map((l) => l.split(" ")[0] ?? "");
      if (mine.length) await docker(["rm", "-f", "-v", ...mine]);
      const volumes = lines(await docker(["volume", "ls", "-q"])).filter((v) => v.startsWith(prefix));
      if (volumes.length) await docker(["volume", "rm", "-f", ...volumes]);
      await docker(["swarm", "leave", "--force"]);
      // `swarm init` made the bridge that connects tasks' containers; it outlives the swarm.
      if (!gwbridge) await docker(["network", "rm", "docker_gwbridge"]);
    },
  };
}

/** Builds the shard image with examples/swarm/image.sh (the binary first, when stale); its id. */
export async function buildShardImage(tag: string, evals: string): Promise<string> {
  await binDir();
  const r = await run([join(EXAMPLE, "image.sh"), tag, evals], { cwd: REPO_ROOT });
  if (r.exitCode !== 0) throw new Error(`image.sh: exit ${r.exitCode}: ${r.stderr}`);
  return r.stdout.trim();
}

/** examples/swarm/run.sh with `env` on top of this process's environment. */
export function runExample(env: Record<string, string>): Promise<ProcResult> {
  return run([join(EXAMPLE, "run.sh")], {
    cwd: REPO_ROOT,
    env: { ...(process.env as Record<string, string>), WAIT_POLL: "1", ...env },
  });
}

/** `sh -c script` in a throwaway container of `image` with `mount` at /trials: its stdout. */
export function onTrials(image: string, mount: string, script: string): Promise<string> {
  return must([
    "run",
    "--rm",
    "--pull=never",
    "--network",
    "none",
    "--mount",
    mount,
    "--entrypoint",
    "sh",
    image,
    "-c",
    script,
  ]);
}

/** The full ids of service `name`'s tasks once there are `n` of them (run.sh creates it first). */
export function taskIds(name: string, n: number): Promise<string[]> {
  return poll(`${n} tasks of ${name}`, 3000, async () => {
    const ids = lines(await docker(["service", "ps", "-q", "--no-trunc", name]));
    return ids.length >= n ? ids : undefined;
  });
}

/** SIGKILLs the container of swarm task `task` (what a node's OOM killer or a crash does). */
export async function killTask(task: string): Promise<string> {
  const id = (
    await must(["inspect", "--type", "task", "--format", "{{.Status.ContainerStatus.ContainerID}}", task])
  ).trim();
  await must(["kill", "--signal", "KILL", id]);
  return id;
}

// The verifier phase of a Harbor trial, in a container the agent never ran in: created from the
// snapshot of the agent's container (every agent process gone with it), with fresh volumes at /tests,
// /logs and /solution, so nothing the agent left at those paths is there, merged or not. The runner
// copies tests/'s contents in (Harbor's `tests/.`), /tests and /logs/verifier owned by the verifier's
// user, before anything in the container runs. The container's own process is the engine's init and
// `/bin/bash /tests/test.sh`, by absolute path, with the task image's PATH and the task's verifier env
// (by name: values come from the docker client's environment, never argv). The reward files are copied
// out by the engine and read as an attacker's files (reward.ts): no program of the container reads them.
// The container (it has exited: start -a returned) is removed after that, in the background when the
// caller takes the removal (VerifierPlan.removal): the reward is known by then.
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readAt } from "../../core/fsx.ts";
import type { ProcResult } from "../../core/proc.ts";
import { type TarEntry, tar } from "../../core/tar.ts";
import { type DockerCall, runArgs, TASK_CAPS } from "../../isolation/docker/engine.ts";
import { REWARD_MAX_BYTES, type Reward, type RewardFile, readReward, rewardFile } from "./reward.ts";
import type { HarborTask } from "./task.ts";

export { parseRewardJson, parseRewardText, type Reward } from "./reward.ts";

/** The verifier's interpreter and script, by absolute path: never looked up on a PATH the agent could have written. */
export const VERIFIER_ARGV = ["/bin/bash", "/tests/test.sh"] as const;

/** Where the agent's own logs go (made before the agent, writable by it); the rest of /logs is the verifier's. */
export const AGENT_LOG_DIR = "/logs/agent";

/** The pass threshold when the suite sets none: Harbor's binary tasks write 1 for a pass. */
export const DEFAULT_THRESHOLD = 1;

/** What the verifier did: its run (for the log) and the reward, or why there is none. */
export interface VerifierOutcome {
  run: ProcResult;
  reward: Reward;
  /** The container could not be made, filled or read: infrastructure, not the agent. */
  infraError?: string;
}

/** Who the verifier runs as: numeric ids (they own /tests and /logs/verifier). */
export interface VerifierUser {
  uid: number;
  gid: number;
}

/**
 * Resolves `user` (a name or uid, optionally `:group`) against /etc/passwd and /etc/group text;
 * null when a name is unknown. A bare uid without an entry gets gid 0, as the engine gives it.
 */
export function resolveUser(user: string, passwd: string, group: string): VerifierUser | null {
  const [u = "", g] = user.split(":");
  const rows = (text: string) => text.split("\n").map((l) => l.split(":"));
  const pw = rows(passwd).find((r) => r.length >= 4 && (r[0] === u || r[2] === u));
  const uid = /^\d+$/.test(u) ? Number(u) : pw ? Number(pw[2]) : Number.NaN;
  if (!Number.isInteger(uid)) return null;
  let gid = pw ? Number(pw[3]) : 0;
  if (g !== undefined) {
    const gr = rows(group).find((r) => r.length >= 3 && (r[0] === g || r[2] === g));
    gid = /^\d+$/.test(g) ? Number(g) : gr ? Number(gr[2]) : Number.NaN;
  }
  return Number.isInteger(gid) ? { uid, gid } : null;
}

/** The ids of `user` when no /etc/passwd is needed (root, or uid:gid); null otherwise. */
export function knownUser(user: string): VerifierUser | null {
  if (user === "0" || user === "root") return { uid: 0, gid: 0 };
  const m = /^(\d+):(\d+)$/.exec(user);
  return m ? { uid: Number(m[1]), gid: Number(m[2]) } : null;
}

/**
 * One file of a container, copied out by the engine (`docker cp NAME:PATH -`, a tar of that one
 * entry, links not followed) into the scratch dir and read no further than a reward's cap.
 */
export async function fileOf(
  call: DockerCall,
  name: string,
  path: string,
  scratch: string,
): Promise<RewardFile> {
  const at = join(scratch, `out-${path.replace(/[^A-Za-z0-9]/g, "_")}.tar`);
  try {
    const r = await call(["cp", `${name}:${path}`, "-"], { stdoutFile: at, timeoutMs: 60_000 });
    if (r.exitCode !== 0) return { state: "absent" };
    const fd = openSync(at, "r");
    try {
      return rewardFile(path.split("/").pop()!, readAt(fd, 0, 512 + REWARD_MAX_BYTES + 1));
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(at, { force: true });
  }
}

/**
 * The verifier's user (`user`: a name or uid, as task.toml or the image says) as ids, read from the
 * agent's frozen container (the snapshot's /etc/passwd and /etc/group, the engine copying them out);
 * null when a name is not there. The verifier then runs as those ids: no name is looked up again.
 */
export async function verifierUser(
  call: DockerCall,
  name: string,
  user: string,
  scratch: string,
): Promise<VerifierUser | null> {
  const known = knownUser(user);
  if (known !== null) return known;
  const text = async (file: string) => {
    const f = await fileOf(call, name, file, scratch);
    return f.state === "text" ? f.text : "";
  };
  return resolveUser(user, await text("/etc/passwd"), await text("/etc/group"));
}

/** The tar copied to `/` of the fresh container: /tests with tests/'s contents, /logs, /solution. */
export function verifierTree(testsDir: string, owner: VerifierUser): Buffer {
  const own = { uid: owner.uid, gid: owner.gid };
  const entries: TarEntry[] = [
    { kind: "dir", name: "tests/", ...own },
    { kind: "dir", name: "logs/" },
    { kind: "dir", name: "logs/verifier/", ...own },
    { kind: "dir", name: "logs/agent/", ...own },
    { kind: "dir", name: "solution/" },
  ];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      // The task's own files: directories and regular files (its links are refused at load, task.ts).
      if (st.isDirectory()) {
        entries.push({ kind: "dir", name: `tests/${rel}${name}/`, mode: st.mode & 0o7777, ...own });
        walk(path, `${rel}${name}/`);
      } else if (st.isFile())
        entries.push({
          kind: "file",
          name: `tests/${rel}${name}`,
          data: readFileSync(path),
          mode: st.mode & 0o7777,
          ...own,
        });
    }
  };
  walk(testsDir, "");
  return tar(entries);
}

/** How the verifier's container is made. */
export interface VerifierPlan {
  runId: string;
  /** The image committed from the agent's container. */
  snapshot: string;
  name: string;
  scratch: string;
  workdir: string;
  /** As task.toml or the image says, resolved (verifierUser): it owns /tests and /logs/verifier. */
  owner: VerifierUser;
  /** The task image's PATH (the agent layer's is not the verifier's). */
  path: string;
  network: "none" | "bridge";
  limits: { cpus: number; memory: string; pids: number };
  timeoutMs: number;
  /** Takes the container's removal instead of waiting for it (the trial chains the snapshot's after it). */
  removal?: (gone: Promise<unknown>) => void;
}

/** Makes the verifier's container, fills it, runs test.sh, reads the reward; removes the container. */
export async function runVerifier(
  call: DockerCall,
  task: HarborTask,
  p: VerifierPlan,
): Promise<VerifierOutcome> {
  const c = task.harbor.config;
  const none = (why: string, run: ProcResult): VerifierOutcome => ({
    run,
    reward: { ok: false, why },
    infraError: why,
  });
  // The task's environment env, then its verifier env over it, by name (values never in argv).
  const taskEnv = { ...c.environmentEnv, ...c.verifierEnv };
  const env = { ...(process.env as Record<string, string>), ...taskEnv };
  const args = runArgs(
    {
      runId: p.runId,
      image: p.snapshot,
      phase: "check",
      argv: [],
      timeoutMs: p.timeoutMs,
      network: p.network,
      limits: p.limits,
      user: `${p.owner.uid}:${p.owner.gid}`,
    },
    p.name,
    {
      user: `${p.owner.uid}:${p.owner.gid}`,
      command: [VERIFIER_ARGV[1]],
      create: true,
      caps: TASK_CAPS,
      init: true,
      entrypoint: VERIFIER_ARGV[0],
      mounts: ["/tests", "/logs", "/solution"].map((dst) => `type=volume,dst=${dst},volume-nocopy`),
      env: { PATH: p.path },
      secretNames: Object.keys(taskEnv),
    },
  );
  args.splice(args.indexOf("-w"), 2, "-w", p.workdir);
  try {
    const made = await call(args, { env, timeoutMs: 120_000 });
    if (made.exitCode !== 0) return none(`create the verifier: ${made.stderr.trim()}`, made);
    const tree = verifierTree(task.harbor.testsDir, p.owner);
    const up = await call(["cp", "-", `${p.name}:/`], { input: tree, timeoutMs: 120_000 });
    if (up.exitCode !== 0) return none(`upload tests: ${up.stderr.trim()}`, up);
    const run = await call(["start", "-a", p.name], { timeoutMs: p.timeoutMs });
    if (run.timedOut)
      return { run, reward: { ok: false, why: `verifier timed out after ${p.timeoutMs / 1000}s` } };
    const out = (file: string) => fileOf(call, p.name, `/logs/verifier/${file}`, p.scratch);
    return { run, reward: readReward(await out("reward.json"), await out("reward.txt"), run.exitCode) };
  } finally {
    const gone = call(["rm", "-f", "-v", p.name], { timeoutMs: 120_000 });
    if (p.removal) p.removal(gone);
    else await gone;
  }
}

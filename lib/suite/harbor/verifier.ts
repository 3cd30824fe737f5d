// The verifier phase of a Harbor trial, as Harbor runs it: only after the agent finished, tests/ is
// copied to /tests in the same container, `bash /tests/test.sh` runs (task.toml's verifier user, env
// and timeout), and the reward is read from /logs/verifier/reward.txt (one number) or reward.json
// (an object of numbers: "reward", or its only value). Non-binary rewards are kept as they are; the
// pass is reward >= the threshold (default 1). The env's values travel by name, never in argv.
import type { ProcResult } from "../../core/proc.ts";
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { type HarborTask, VERIFIER_COMMAND } from "./task.ts";

/** Where the verifier writes its reward (and Harbor's agent logs go), made writable before the agent. */
export const LOG_DIRS = ["/logs/agent", "/logs/verifier"] as const;

/** The pass threshold when the suite sets none: Harbor's binary tasks write 1 for a pass. */
export const DEFAULT_THRESHOLD = 1;

/** A read reward: the score, or why there is none. */
export type Reward =
  | { ok: true; reward: number; rewards?: Record<string, number> }
  | { ok: false; why: string };

/** Parses reward.txt's text: one finite number. */
export function parseRewardText(text: string): Reward {
  const t = text.trim();
  const n = Number(t);
  if (t === "" || !Number.isFinite(n))
    return {
      ok: false,
      why: `/logs/verifier/reward.txt: expected a number, got ${JSON.stringify(t.slice(0, 40))}`,
    };
  return { ok: true, reward: n };
}

/** Parses reward.json's text: an object of numbers; the score is "reward", or the only value. */
export function parseRewardJson(text: string): Reward {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, why: "/logs/verifier/reward.json: not valid JSON" };
  }
  const entries =
    data !== null && typeof data === "object" && !Array.isArray(data) ? Object.entries(data) : [];
  const rewards = Object.fromEntries(entries.filter(([, v]) => typeof v === "number" && Number.isFinite(v)));
  const values = Object.values(rewards) as number[];
  const reward =
    typeof rewards.reward === "number" ? rewards.reward : values.length === 1 ? values[0] : undefined;
  if (reward === undefined)
    return { ok: false, why: '/logs/verifier/reward.json: expected an object with a "reward" number' };
  return { ok: true, reward, rewards: rewards as Record<string, number> };
}

/**
 * docker exec argv with a workdir and a user; `env` values come from the client's environment by
 * name, `vars` (non-secret: they show in inspect) are given as NAME=value after them.
 */
export function execIn(
  container: string,
  o: { workdir: string; user: string; env: string[]; vars?: Record<string, string> },
  argv: string[],
) {
  return [
    "exec",
    "-i",
    "-w",
    o.workdir,
    "-u",
    o.user,
    ...o.env.flatMap((k) => ["-e", k]),
    ...Object.entries(o.vars ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    container,
    ...argv,
  ];
}

/** What the verifier did: its run (for the log) and the reward, or why there is none. */
export interface VerifierOutcome {
  run: ProcResult;
  reward: Reward;
  /** Uploading tests/ failed: infrastructure, not the agent. */
  infraError?: string;
}

/** Uploads tests/ to /tests, runs test.sh, reads the reward. */
export async function runVerifier(
  call: DockerCall,
  container: string,
  task: HarborTask,
  o: { workdir: string; timeoutMs: number },
): Promise<VerifierOutcome> {
  const c = task.harbor.config;
  const up = await call(["cp", task.harbor.testsDir, `${container}:/tests`], { timeoutMs: 120_000 });
  if (up.exitCode !== 0)
    return {
      run: up,
      reward: { ok: false, why: "tests not uploaded" },
      infraError: `upload tests: ${up.stderr.trim()}`,
    };
  const user = c.verifierUser ?? "0";
  const env = { ...(process.env as Record<string, string>), ...c.verifierEnv };
  const run = await call(
    execIn(container, { workdir: o.workdir, user, env: Object.keys(c.verifierEnv) }, [
      "sh",
      "-c",
      VERIFIER_COMMAND,
    ]),
    { env, input: "", timeoutMs: o.timeoutMs },
  );
  if (run.timedOut)
    return { run, reward: { ok: false, why: `verifier timed out after ${o.timeoutMs / 1000}s` } };
  const read = (file: string) =>
    call(execIn(container, { workdir: "/", user: "0", env: [] }, ["cat", `/logs/verifier/${file}`]), {
      timeoutMs: 60_000,
    });
  const txt = await read("reward.txt");
  if (txt.exitCode === 0) return { run, reward: parseRewardText(txt.stdout) };
  const json = await read("reward.json");
  if (json.exitCode === 0) return { run, reward: parseRewardJson(json.stdout) };
  return {
    run,
    reward: {
      ok: false,
      why: `test.sh wrote no /logs/verifier/reward.txt or reward.json (exit ${run.exitCode})`,
    },
  };
}

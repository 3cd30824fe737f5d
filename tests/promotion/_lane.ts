// Test support for the promotion lane: a throwaway git repository with two arms (main and feat/x,
// each with its own skills/demo/SKILL.md), a private store copied from the fixture, the task locked
// and committed, an agent config pointing at the stub agent, and a runner for the real entry
// (scripts/agent-eval.ts through bun) that returns exit code, the parsed stdout object and stderr.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { lockTask } from "../../lib/promotion/lock.ts";

const ROOT = join(import.meta.dirname, "..", "..");
export const FIX = join(ROOT, "tests", "fixtures", "promotion");
export const STUB = join(FIX, "agent", "stub-agent.sh");
const ENTRY = join(ROOT, "scripts", "agent-eval.ts");

export const BASE_LINE = "Skill A: file issues with a clear title.";
export const CAND_LINE = "Skill B: file issues with a reproduction.";

export interface Lane {
  repo: string;
  store: string;
  config: string;
}

export function gitIn(repo: string, ...args: string[]): string {
  return execFileSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.invalid",
    },
  }).trim();
}

export function commitAll(repo: string, message: string): void {
  gitIn(repo, "add", "-A");
  gitIn(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message);
}

/** Builds the lane under `dir`; `edit` may change the store (before the lock) or the arms. */
export function makeLane(
  dir: string,
  opts: {
    candidateExtra?: Record<string, string>;
    store?: (store: string) => void;
    config?: Record<string, unknown>;
  } = {},
): Lane {
  const repo = join(dir, "repo");
  mkdirSync(join(repo, "skills", "demo"), { recursive: true });
  gitIn(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, ".gitignore"), "evals/promotion/private/\n");
  writeFileSync(join(repo, "skills", "demo", "SKILL.md"), `${BASE_LINE}\n`);
  mkdirSync(join(repo, "evals", "promotion"), { recursive: true });
  writeFileSync(join(repo, "evals", "promotion", "lock.json"), '{\n  "tasks": {},\n  "version": 1\n}\n');
  commitAll(repo, "base");
  gitIn(repo, "checkout", "-q", "-b", "feat/x");
  writeFileSync(join(repo, "skills", "demo", "SKILL.md"), `${CAND_LINE}\n`);
  for (const [rel, text] of Object.entries(opts.candidateExtra ?? {})) writeFileSync(join(repo, rel), text);
  commitAll(repo, "candidate");
  gitIn(repo, "checkout", "-q", "main");
  const store = join(repo, "evals", "promotion", "private");
  cpSync(join(FIX, "store"), store, { recursive: true });
  // min_runs 2, as in the original's suite: --runs 2 can decide, --runs 1 is insufficient.
  const task = join(store, "tasks", "demo", "task.json");
  writeFileSync(
    task,
    `${JSON.stringify({ ...JSON.parse(readFileSync(task, "utf8")), min_runs: 2 }, null, 2)}\n`,
  );
  opts.store?.(store);
  lockTask(store, "demo", join(repo, "evals", "promotion", "lock.json"));
  commitAll(repo, "chore(evals): lock demo");
  const config = join(dir, "agent.json");
  writeFileSync(
    config,
    JSON.stringify({
      command: [STUB, "{prompt_file}", "{workspace}", "{skills_dir}", "{out_dir}"],
      model: "stub-model",
      cli: "stub-agent",
      cli_version: "1.0.0",
      tools: ["Bash"],
      pass_env: ["STUB_MODE", "STUB_CANARY", "STUB_CRITERIA", "STUB_SNOOP", "STUB_MODEL_URL", "STUB_HOST"],
      ...opts.config,
    }),
  );
  return { repo, store, config };
}

/** `run` of the demo task, main against feat/x, with `lane`'s agent config and `extra` flags. */
export function runArgs(lane: Lane, ...extra: string[]): string[] {
  const arms = ["--baseline", "main", "--candidate", "feat/x"];
  return ["run", "--task-id", "demo", ...arms, "--agent-config", lane.config, ...extra];
}

export interface Invocation {
  code: number;
  out: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/** Runs `agent-eval <args>` in `cwd` with the opt-in set (unless `env` overrides it), CI unset. */
export async function agentEval(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<Invocation> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !["CI", "GITHUB_ACTIONS", "EVAL_RECORD", "IDD_PROMOTION_STORE"].includes(k))
      base[k] = v;
  const merged: Record<string, string> = { ...base, IDD_EVAL_AGENT: "1" };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  const r = await run([process.execPath, ENTRY, ...args], { cwd, env: merged });
  const lines = r.stdout.trim().split("\n").filter(Boolean);
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(lines.at(-1) ?? "{}");
  } catch {
    out = { unparsed: r.stdout };
  }
  return { code: r.exitCode ?? -1, out, stdout: r.stdout, stderr: r.stderr };
}

// What every promotion subcommand shares (agent_eval.py, reference §5.1): where the repository, the
// store and the lock are, and the refusals that keep real agents out of CI. `--store` beats
// $IDD_PROMOTION_STORE beats `<repo>/evals/promotion/private` (git-ignored); `--lock` defaults to
// `<repo>/evals/promotion/lock.json`; `--repo` defaults to the work tree around the current directory.
import { resolve } from "node:path";
import { ToolError, UsageError } from "../core/errors.ts";
import { repoRoot } from "./git.ts";

export const DEFAULT_STORE = "evals/promotion/private";
export const DEFAULT_LOCK = "evals/promotion/lock.json";

export interface Where {
  repo: string;
  store: string;
  lock: string;
}

/** Resolves --repo, --store and --lock; `repo` must be a git work tree (4 otherwise). */
export async function resolveWhere(
  opts: { repo?: string; store?: string; lock?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Where> {
  const repo = await repoRoot(resolve(opts.repo ?? "."));
  const store = resolve(opts.store || env.IDD_PROMOTION_STORE || resolve(repo, DEFAULT_STORE));
  const lock = resolve(opts.lock || resolve(repo, DEFAULT_LOCK));
  return { repo, store, lock };
}

/** The original's refusals for `run`, in its order; each is exit 2 and creates nothing. */
export function refusal(env: NodeJS.ProcessEnv = process.env): string | null {
  const ci = (env.CI ?? "").trim().toLowerCase();
  if (!["", "0", "false"].includes(ci) || env.GITHUB_ACTIONS === "true")
    return "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)";
  if (env.IDD_EVAL_AGENT !== "1") return "refused: the promotion lane is opt-in — set IDD_EVAL_AGENT=1";
  if (env.EVAL_RECORD === "1") return "refused: EVAL_RECORD=1 would record against real GitHub — unset it";
  return null;
}

export function refuseIfNeeded(env: NodeJS.ProcessEnv = process.env): void {
  const why = refusal(env);
  if (why) throw new UsageError(why);
}

/** A failure that carries part of the report into the `{"error", "exit", ...}` stdout object. */
export class ReportedError extends ToolError {
  readonly report: Record<string, unknown>;
  constructor(message: string, exitCode: number, report: Record<string, unknown>) {
    super(message, exitCode);
    this.name = "ReportedError";
    this.report = report;
  }
}

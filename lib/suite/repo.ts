// A task's repository on the host: a local directory inside the task (checked by lib/suite/task.ts), or a
// remote one cloned once per run with the original's git invocation, which allows only https and
// ssh transports (no file://, ext::, or anything a URL could smuggle in), shallow and quiet.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProcError, run } from "../core/proc.ts";
import type { Task } from "./task.ts";
import { stderrTail } from "./trial.ts";

/** The clone command of the original (originals.md §6.1); `--` keeps a URL from being an option. */
export function cloneArgs(url: string, dir: string): string[] {
  return [
    "git",
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    "-c",
    "protocol.ssh.allow=always",
    "clone",
    "--quiet",
    "--depth",
    "1",
    "--",
    url,
    dir,
  ];
}

/** A task's repository dir, or why it is unavailable; `cleanup` removes a clone. */
export interface RepoCheckout {
  dir?: string;
  error?: string;
  cleanup(): void;
}

/** The task's local repo, or a fresh clone of its remote one (git never prompts for credentials). */
export async function checkoutRepo(task: Task): Promise<RepoCheckout> {
  if (task.repoDir !== null) return { dir: task.repoDir, cleanup() {} };
  const parent = mkdtempSync(join(tmpdir(), "proctor-suite-clone-"));
  const cleanup = () => rmSync(parent, { recursive: true, force: true });
  const dir = join(parent, "repo");
  const env = { ...(process.env as Record<string, string>), GIT_TERMINAL_PROMPT: "0" };
  try {
    const r = await run(cloneArgs(task.repo, dir), { env, timeoutMs: task.timeoutMs });
    if (r.exitCode === 0) return { dir, cleanup };
    const why = r.timedOut ? "timed out" : `exit ${r.exitCode}: ${stderrTail(r.stderr)}`;
    cleanup();
    return { error: `clone ${JSON.stringify(task.repo)}: ${why}`, cleanup() {} };
  } catch (error) {
    cleanup();
    if (!(error instanceof ProcError)) throw error;
    return { error: `clone ${JSON.stringify(task.repo)}: ${error.message}`, cleanup() {} };
  }
}

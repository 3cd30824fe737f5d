// Git as the promotion lane needs it (agent_eval.py, reference §5.3): the repository root and HEAD,
// the clean-tree rule (provenance never records a dirty source), arms resolved from refs with their
// skills/ trees, and a skills/ tree extracted from a commit without touching the work tree. Every
// call is `git` as a child process with a fixed locale and no pager; a failing git is a result
// turned into the lane's exit codes: unknown ref or missing skills/ is invalid input (3), anything
// else that stops us is "cannot complete" (4).
import { mkdirSync } from "node:fs";
import { ConfigError, UpstreamError } from "../core/errors.ts";
import { type ProcResult, run } from "../core/proc.ts";

/** An arm of a comparison: the ref the operator named, its commit and its skills/ tree. */
export interface Arm {
  ref: string;
  sha: string;
  skills_tree: string;
}

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return { ...env, LC_ALL: "C", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
}

/** Runs git in `repo`; start failures become UpstreamError (4). */
export async function git(repo: string, args: string[], input?: string): Promise<ProcResult> {
  try {
    return await run(["git", "-C", repo, ...args], { env: gitEnv(), input });
  } catch (error) {
    throw new UpstreamError(`cannot run git: ${(error as Error).message}`, { cause: error });
  }
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

/** The work tree root containing `dir`; not a work tree is 4. */
export async function repoRoot(dir: string): Promise<string> {
  const r = await git(dir, ["rev-parse", "--show-toplevel"]);
  if (r.exitCode !== 0) throw new UpstreamError(`not a git work tree: ${dir}`);
  return r.stdout.trim();
}

/** The commit HEAD points at (4 when there is none). */
export async function headSha(repo: string): Promise<string> {
  const r = await git(repo, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (r.exitCode !== 0) throw new UpstreamError(`cannot read HEAD in ${repo}: ${firstLine(r.stderr)}`);
  return r.stdout.trim();
}

/** The porcelain status lines (untracked files included); empty means clean. */
export async function statusLines(repo: string): Promise<string[]> {
  const r = await git(repo, ["status", "--porcelain=v1", "--untracked-files=all"]);
  if (r.exitCode !== 0) throw new UpstreamError(`not a git work tree: ${repo} (${firstLine(r.stderr)})`);
  return r.stdout.split("\n").filter((l) => l !== "");
}

/** The clean-tree rule: anything uncommitted or untracked refuses the run (4). */
export async function requireCleanTree(repo: string): Promise<void> {
  const lines = await statusLines(repo);
  if (lines.length > 0)
    throw new UpstreamError(
      `dirty tree — commit or stash; provenance never records a dirty source (${lines[0]?.slice(3)})`,
    );
}

/** Resolves `ref` to a commit and its skills/ tree: unknown ref or no skills/ is 3. */
export async function resolveArm(repo: string, ref: string): Promise<Arm> {
  if (ref === "" || ref.startsWith("-")) throw new ConfigError(`unknown ref: ${JSON.stringify(ref)}`);
  const c = await git(repo, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  if (c.exitCode !== 0) throw new ConfigError(`unknown ref: ${ref}`);
  const sha = c.stdout.trim();
  const t = await git(repo, ["rev-parse", "--verify", "--quiet", `${sha}:skills`]);
  const tree = t.stdout.trim();
  if (t.exitCode !== 0 || tree === "") throw new ConfigError(`ref ${ref} has no skills/ tree`);
  const type = await git(repo, ["cat-file", "-t", tree]);
  if (type.stdout.trim() !== "tree") throw new ConfigError(`ref ${ref} has no skills/ tree`);
  return { ref, sha, skills_tree: tree };
}

/**
 * Extracts `<sha>:skills` into `<dest>/skills/` (git archive | tar -x): the committed tree only,
 * never the work tree, so an arm is exactly what its ref says.
 */
export async function extractSkills(repo: string, sha: string, dest: string): Promise<string> {
  mkdirSync(dest, { recursive: true });
  let r: ProcResult;
  try {
    r = await run(
      [
        "/bin/sh",
        "-c",
        'git -C "$1" archive --format=tar "$2" skills | tar -x -C "$3"',
        "sh",
        repo,
        sha,
        dest,
      ],
      { env: gitEnv() },
    );
  } catch (error) {
    throw new UpstreamError(`cannot extract skills/ of ${sha}: ${(error as Error).message}`);
  }
  if (r.exitCode !== 0)
    throw new UpstreamError(
      `cannot extract skills/ of ${sha}: ${firstLine(r.stderr) || `exit ${r.exitCode}`}`,
    );
  return `${dest}/skills`;
}

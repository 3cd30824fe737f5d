// A Harbor task directory as a loaded suite Task: task.toml (config.ts), instruction.md as the prompt
// verbatim, environment/Dockerfile and its build context, tests/test.sh (uploaded only after the
// agent) and solution/solve.sh (the oracle's, never in the image nor in the agent's files). The
// result is an ordinary Task plus `kind: "harbor"` and what the Harbor trial needs; it builds nothing.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Task } from "../task.ts";
import { type HarborConfig, loadHarborConfig } from "./config.ts";
import { HarborRefusal, type SkippedTask } from "./refusal.ts";

/** Where a Harbor task's parts are on the host. */
export interface HarborSpec {
  config: HarborConfig;
  /** environment/ (the build context); its Dockerfile, or absent when task.toml names docker_image. */
  environmentDir: string;
  dockerfile?: string;
  /** tests/, copied to /tests after the agent finished; tests/test.sh runs there. */
  testsDir: string;
}

/** A Harbor task in a suite: the Task fields the runner reads, plus the Harbor parts. */
export type HarborTask = Task & { kind: "harbor"; harbor: HarborSpec };

/** The one file that makes a Harbor task multi-container (Harbor's docker environment reads only it). */
export const COMPOSE_FILE = "environment/docker-compose.yaml";

/** What the verifier runs in the container. */
export const VERIFIER_COMMAND = "bash /tests/test.sh";

/** True when `task` came from a Harbor task directory. */
export function isHarborTask(task: Task): task is HarborTask {
  return (task as Partial<HarborTask>).kind === "harbor";
}

/** True when `dir` holds a task.toml (a Harbor task directory). */
export function isHarborTaskDir(dir: string): boolean {
  return existsSync(join(dir, "task.toml"));
}

/** The Harbor task directories directly inside `dir` (a dataset folder), sorted by name. */
export function harborTaskDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && isHarborTaskDir(join(dir, e.name)))
    .map((e) => join(dir, e.name))
    .sort();
}

function fileIn(dir: string, rel: string): string | undefined {
  const path = join(dir, rel);
  try {
    // Symlinks may point anywhere on the host: a task's parts must be its own files.
    const real = realpathSync(path);
    if (!real.startsWith(`${realpathSync(dir)}/`) || !statSync(real).isFile()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

/**
 * Loads the Harbor task in `dir`; `host` resolves task.toml's ${VAR} env templates. HarborRefusal, one
 * line naming the file: a bad task.toml or a key this runner cannot honour (config.ts), no or empty
 * instruction.md, a multi-container environment (environment/docker-compose.yaml, the one file
 * Harbor reads as one: a compose file elsewhere is task data), no environment/Dockerfile and no
 * docker_image, no tests/test.sh.
 */
export function loadHarborTask(
  dir: string,
  host: Readonly<Record<string, string | undefined>> = process.env,
): HarborTask {
  const abs = resolve(dir);
  const tomlPath = join(abs, "task.toml");
  const config = loadHarborConfig(tomlPath, host);
  const id = basename(abs);
  const refuse = (file: string, why: string, broken = true) =>
    new HarborRefusal(join(abs, file), why, { broken });
  if (existsSync(join(abs, COMPOSE_FILE)))
    throw refuse(COMPOSE_FILE, "multi-container environments (docker compose) are not supported here", false);
  const instruction = fileIn(abs, "instruction.md");
  if (!instruction) throw refuse("instruction.md", "no such file (the agent's prompt)");
  let prompt: string;
  try {
    prompt = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(instruction));
  } catch {
    throw refuse("instruction.md", "not valid UTF-8");
  }
  if (prompt.trim() === "") throw refuse("instruction.md", "empty (the agent's prompt)");
  const environmentDir = join(abs, "environment");
  const dockerfile = fileIn(abs, "environment/Dockerfile");
  if (!dockerfile && config.dockerImage === undefined)
    throw refuse("environment/Dockerfile", "no such file, and task.toml names no environment.docker_image");
  const testScript = fileIn(abs, "tests/test.sh");
  if (!testScript) throw refuse("tests/test.sh", "no such file (the verifier)");
  const solution = fileIn(abs, "solution/solve.sh");
  return {
    kind: "harbor",
    id,
    repo: ".",
    prompt,
    check: VERIFIER_COMMAND,
    setup: [],
    tags: config.tags,
    timeoutMs: config.agentTimeoutMs,
    path: tomlPath,
    dir: abs,
    // Never copied: a Harbor task's files come from its image, not from a /work snapshot.
    repoDir: abs,
    ...(solution ? { solution } : {}),
    harbor: {
      config,
      environmentDir,
      ...(dockerfile ? { dockerfile } : {}),
      testsDir: join(abs, "tests"),
    },
  };
}

/** The Harbor tasks at a directory: those that load, and those that do not with their line. */
export interface HarborTaskSet {
  tasks: HarborTask[];
  skipped: SkippedTask[];
}

/**
 * The Harbor tasks at `dir`: the task in it (it holds task.toml), or every task directly inside it (a
 * dataset folder, sorted by name); null when it is neither. A dataset never fails for one task: each
 * that cannot load is skipped with its line. A task named directly is skipped likewise, unless
 * `strict`, where its HarborRefusal is thrown (a suite naming one task means that task).
 */
export function loadHarborTaskSet(
  dir: string,
  o: { strict?: boolean; host?: Readonly<Record<string, string | undefined>> } = {},
): HarborTaskSet | null {
  const single = isHarborTaskDir(dir);
  let dirs: string[];
  try {
    dirs = single ? [dir] : harborTaskDirs(dir);
  } catch {
    return null;
  }
  if (dirs.length === 0) return null;
  const set: HarborTaskSet = { tasks: [], skipped: [] };
  for (const d of dirs)
    try {
      set.tasks.push(loadHarborTask(d, o.host));
    } catch (error) {
      if (!(error instanceof HarborRefusal) || (single && o.strict)) throw error;
      set.skipped.push(error.skipOf(resolve(d)));
    }
  return set;
}

// A Harbor task directory as a loaded suite Task: task.toml (config.ts), instruction.md as the prompt
// verbatim, environment/Dockerfile and its build context, tests/test.sh (uploaded only after the
// agent) and solution/solve.sh (the oracle's, never in the image nor in the agent's files). The
// result is an ordinary Task plus `kind: "harbor"` and what the Harbor trial needs; it builds nothing.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ConfigError } from "../../core/errors.ts";
import type { Task } from "../task.ts";
import { type HarborConfig, loadHarborConfig } from "./config.ts";

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
 * Loads the Harbor task in `dir`. ConfigError, one line naming the file: a bad task.toml field, no
 * or empty instruction.md, a docker-compose environment (multi-container tasks are not supported
 * yet), no environment/Dockerfile and no docker_image, no tests/test.sh.
 */
export function loadHarborTask(dir: string): HarborTask {
  const abs = resolve(dir);
  const tomlPath = join(abs, "task.toml");
  const config = loadHarborConfig(tomlPath);
  const id = basename(abs);
  const refuse = (file: string, why: string) =>
    new ConfigError(`Cannot load Harbor task "${join(abs, file)}": ${why}`);
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
  for (const compose of ["docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml"])
    if (existsSync(join(environmentDir, compose)))
      throw refuse(
        `environment/${compose}`,
        "multi-container (docker-compose) environments are not supported yet; give environment/Dockerfile",
      );
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

/**
 * The Harbor tasks a suite entry names: the task at `dir` (it holds task.toml), or every task directly
 * inside it (a dataset folder); null when it is neither.
 */
export function loadHarborTasksAt(dir: string): HarborTask[] | null {
  if (isHarborTaskDir(dir)) return [loadHarborTask(dir)];
  let dirs: string[];
  try {
    dirs = harborTaskDirs(dir);
  } catch {
    return null;
  }
  return dirs.length > 0 ? dirs.map(loadHarborTask) : null;
}

// The tasks a suite names, loaded in its order: a task.yaml directory, or a Harbor task directory (or a
// folder of them), the suite's graders appended to each task's own; ids unique (trials are keyed by
// them) and a judge grader only when the suite has a judge. A Harbor dataset folder never fails for
// one task: each that cannot load is skipped, with its line, for the scorecard; a Harbor task named
// directly must load (its error is the suite's). Also the suite's Harbor timeouts. Split from
// suite.ts, which owns the file's schema and the loading; this file imports nothing of it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { resolveInside } from "../core/fsx.ts";
import type { AnyGrader } from "./graders/spec.ts";
import type { SkippedTask } from "./harbor/refusal.ts";
import { loadHarborTaskSet } from "./harbor/task.ts";
import { loadTask, parseDuration, type Task } from "./task.ts";
import { failure, type YamlSource } from "./yaml.ts";

/**
 * Loads each of `names` under `tasksDir` (a ConfigError naming the suite file's line for a name
 * leaving the root, a missing task, a repeated id, a judge grader without a judge or every task
 * skipped; a task's own error prefixed with `owner`), and the Harbor tasks skipped on the way.
 */
export function loadSuiteTasks(
  src: YamlSource,
  owner: string,
  o: { names: readonly string[]; tasksDir: string; graders: readonly AnyGrader[]; hasJudge: boolean },
): { tasks: Task[]; skipped: SkippedTask[] } {
  const skipped: SkippedTask[] = [];
  const entries = o.names.map((name, i) => {
    const at = resolveInside(o.tasksDir, name);
    if (!at.ok)
      throw failure(
        src,
        owner,
        ["tasks", i],
        `tasks[${i}]: "${name}" is not a directory name under ${o.tasksDir}`,
      );
    const yaml = join(at.path, "task.yaml");
    if (!existsSync(yaml)) {
      // A Harbor task directory (task.toml), or a folder of them: each becomes a task.
      const harbor = harborTasks(owner, at.path);
      if (harbor !== null) {
        skipped.push(...harbor.skipped);
        return harbor.tasks;
      }
      throw failure(src, owner, ["tasks", i], `tasks[${i}]: no task "${name}": ${yaml} does not exist`);
    }
    try {
      const task = loadTask(at.path);
      return o.graders.length > 0 ? { ...task, graders: [...(task.graders ?? []), ...o.graders] } : task;
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(`${owner}: ${error.message}`, { cause: error });
      throw error;
    }
  });
  const tasks: Task[] = entries.flat();
  if (tasks.length === 0 && skipped.length > 0)
    throw failure(
      src,
      owner,
      ["tasks"],
      `tasks: every task is skipped: ${skipped[0]!.task}: ${skipped[0]!.reason}`,
    );
  // Trials are keyed by task id (the trials file, --resume, the scorecard): a task named twice, or
  // two directories declaring one id, would silently merge.
  const byId = new Map<string, number>();
  tasks.forEach((t, i) => {
    const first = byId.get(t.id);
    if (first !== undefined)
      throw failure(src, owner, ["tasks", i], `tasks[${i}]: task id "${t.id}" is also tasks[${first}]'s`);
    byId.set(t.id, i);
    if (!o.hasJudge && (t.graders ?? []).some((g) => g.type === "judge"))
      throw failure(
        src,
        owner,
        ["tasks", i],
        `tasks[${i}]: task ${t.id} has a judge grader but the suite configures no judge`,
      );
  });
  return { tasks, skipped };
}

/** The suite's Harbor timeouts in ms; one out of Go's range is refused, 0 leaves task.toml's. */
export function harborTimeouts(
  src: YamlSource,
  owner: string,
  file: { agent_timeout?: string | undefined; verifier_timeout?: string | undefined },
): { agentTimeoutMs?: number; verifierTimeoutMs?: number } {
  const out: { agentTimeoutMs?: number; verifierTimeoutMs?: number } = {};
  for (const [key, field] of [
    ["agent_timeout", "agentTimeoutMs"],
    ["verifier_timeout", "verifierTimeoutMs"],
  ] as const) {
    const text = file[key];
    if (text === undefined) continue;
    const ms = parseDuration(text);
    if (ms === null) throw failure(src, owner, [key], `${key}: duration out of range: "${text}"`);
    if (ms > 0) out[field] = ms;
  }
  return out;
}

/** The Harbor tasks at `dir` (null: none), a bad task named directly a ConfigError prefixed with the suite. */
function harborTasks(owner: string, dir: string) {
  try {
    return loadHarborTaskSet(dir, { strict: true });
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`${owner}: ${error.message}`, { cause: error });
    throw error;
  }
}

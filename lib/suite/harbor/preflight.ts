// Before a run's first trial, the Harbor tasks this run cannot serve are set aside, each with its one
// line, so the others run and the scorecard can list them: a task that needs the internet under
// --network none, and (asking the engine, image.ts planTaskImage) one whose image cannot be had here
// (offline: a base image or docker_image not on this machine; a heredoc without BuildKit). Both keep
// the tasks' order; a run left with no task at all is a ConfigError naming the first reason.
import { ConfigError } from "../../core/errors.ts";
import type { DockerCall } from "../../isolation/docker/engine.ts";
import type { Task } from "../task.ts";
import { type BuildOptions, type ImageMap, planTaskImage } from "./image.ts";
import { HarborRefusal, type SkippedTask } from "./refusal.ts";
import { type HarborTask, isHarborTask } from "./task.ts";

/** The tasks a run keeps, and the Harbor tasks it set aside. */
export interface Kept<T> {
  tasks: T[];
  skipped: SkippedTask[];
}

/** The skip line of a task that needs the internet under --network none; undefined when it may run. */
export function networkSkip(task: HarborTask, network: "none" | "bridge"): SkippedTask | undefined {
  const key = task.harbor.config.internetKey;
  if (key === undefined || network === "bridge") return undefined;
  return {
    task: task.id,
    reason: `task.toml: ${key}: the task reaches the internet; run with --network bridge to let it`,
    broken: false,
  };
}

/** Sets aside the Harbor tasks of `tasks` that need the internet under `network` none. */
export function skipByNetwork<T extends Task>(tasks: readonly T[], network: "none" | "bridge"): Kept<T> {
  const kept: Kept<T> = { tasks: [], skipped: [] };
  for (const t of tasks) {
    const skip = isHarborTask(t) ? networkSkip(t, network) : undefined;
    if (skip) kept.skipped.push(skip);
    else kept.tasks.push(t);
  }
  return kept;
}

/** Sets aside the Harbor tasks of `tasks` whose image cannot be had here (planTaskImage's refusals). */
export async function skipByImages<T extends Task>(
  call: DockerCall,
  tasks: readonly T[],
  map: ImageMap,
  o: BuildOptions,
): Promise<Kept<T>> {
  const kept: Kept<T> = { tasks: [], skipped: [] };
  for (const t of tasks) {
    try {
      if (isHarborTask(t)) await planTaskImage(call, t, map, o);
      kept.tasks.push(t);
    } catch (error) {
      if (!(error instanceof HarborRefusal)) throw error;
      kept.skipped.push(error.skipOf(t.dir));
    }
  }
  return kept;
}

/**
 * A suite with `kept` as its tasks and their skips added to its own; a ConfigError when no task is
 * left (a run that would score nothing).
 */
export function keep<S extends { name: string; tasks: Task[]; skipped?: SkippedTask[] }>(
  suite: S,
  kept: Kept<Task>,
): S {
  const skipped = [...(suite.skipped ?? []), ...kept.skipped];
  if (kept.tasks.length === 0 && skipped.length > 0)
    throw new ConfigError(
      `suite ${suite.name}: every task is skipped: ${skipped[0]!.task}: ${skipped[0]!.reason}`,
    );
  return { ...suite, tasks: kept.tasks, ...(skipped.length > 0 ? { skipped } : {}) };
}

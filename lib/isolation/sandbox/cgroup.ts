// Per-subject cgroups where a root runner can make them (v2 with pids and memory, else v1), nested in
// the runner's own cgroup so its limits still hold: pids.max and a cap on the subject's memory in sum
// (rlimits bound each process only). Each is proctor-<pid of the sandbox's outermost process>; the
// next subject's prefix removes those whose process is gone (an emptied cgroup cannot remove itself
// and a timeout kills the whole group), so at most the last run's empty cgroups wait for the next.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SubjectLimits } from "./spec.ts";

/** Which cgroup version is writable here and the hierarchies a subject's cgroups go under. */
export interface CgroupPlan {
  version: 1 | 2;
  parents: string[];
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** True when we can make, configure and remove a cgroup under `parent` (writing `file`). */
function canCreate(parent: string, file: string, value: string): boolean {
  const probe = join(parent, `proctor-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    writeFileSync(join(probe, file), value);
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      // a cgroupfs directory always goes; a plain one (a test's fake root) may hold the file
    }
  }
}

/** join() without the trailing slash a "/" cgroup path leaves. */
function under(...parts: string[]): string {
  return join(...parts).replace(/(.)\/+$/, "$1");
}

/** The runner's own cgroup path for a v1 controller, or for v2 (controller ""), from /proc/self/cgroup. */
function ownPath(selfCgroup: string, controller: string): string {
  for (const line of selfCgroup.split("\n")) {
    const [, list, path] = line.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (path === undefined || list === undefined) continue;
    if (controller === "" ? list === "" : list.split(",").includes(controller)) return path;
  }
  return "/";
}

/** A v2 directory where pids and memory are (or can be made) available to children. */
function v2Ready(dir: string): boolean {
  const controllers = read(join(dir, "cgroup.controllers")).split(/\s+/);
  if (!controllers.includes("pids") || !controllers.includes("memory")) return false;
  const enabled = read(join(dir, "cgroup.subtree_control")).split(/\s+/);
  if (enabled.includes("pids") && enabled.includes("memory")) return true;
  try {
    appendFileSync(join(dir, "cgroup.subtree_control"), "+pids +memory");
    return true;
  } catch {
    return false; // e.g. a v2 cgroup that holds processes itself (the no-internal-process rule)
  }
}

/**
 * Finds where per-subject cgroups can be made under `root` (default /sys/fs/cgroup) for a runner
 * with uid `uid`: nested in the runner's own cgroup (`selfCgroup`, /proc/self/cgroup), so every
 * limit above it still applies; on v2, where its own cgroup cannot have children with controllers
 * (it holds processes), at the root. Null when nowhere (not root, read-only, controllers missing).
 */
export function detectCgroups(
  root = "/sys/fs/cgroup",
  uid = process.getuid?.() ?? -1,
  selfCgroup = read("/proc/self/cgroup"),
): CgroupPlan | null {
  if (uid !== 0) return null;
  if (existsSync(join(root, "cgroup.controllers"))) {
    for (const dir of [...new Set([under(root, ownPath(selfCgroup, "")), under(root)])])
      if (v2Ready(dir) && canCreate(dir, "pids.max", "max")) return { version: 2, parents: [dir] };
    return null;
  }
  const pids = under(root, "pids", ownPath(selfCgroup, "pids"));
  const memory = under(root, "memory", ownPath(selfCgroup, "memory"));
  const ok =
    existsSync(join(pids, "tasks")) &&
    existsSync(join(memory, "tasks")) &&
    canCreate(pids, "pids.max", "max") &&
    canCreate(memory, "memory.limit_in_bytes", "-1");
  return ok ? { version: 1, parents: [pids, memory] } : null;
}

/**
 * The prefix's cgroup lines: per hierarchy, `<parent> <file>=<value>...` setting `limits` (pids, and
 * memory as the sum of all the subject's processes, no swap); a "?" file is written only if present.
 */
export function cgroupLines(plan: CgroupPlan, limits: SubjectLimits): string {
  const bytes = String(limits.memoryMiB * 1024 * 1024);
  const pids = String(limits.pids);
  const files = (parent: string): [string, string][] => {
    if (plan.version === 2)
      return [
        ["pids.max", pids],
        ["memory.max", bytes],
        ["?memory.swap.max", "0"],
      ];
    return parent === plan.parents[0]
      ? [["pids.max", pids]]
      : [
          ["memory.limit_in_bytes", bytes],
          ["?memory.memsw.limit_in_bytes", bytes],
        ];
  };
  return plan.parents.map((p) => [p, ...files(p).map(([f, v]) => `${f}=${v}`)].join(" ")).join("\n");
}

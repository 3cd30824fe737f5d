// What a Harbor trial needs to know of its images, resolved once per task and agent image in a run:
// the image the agent runs in (the task's environment image, with the CLI layered in for a CLI
// harness), its WORKDIR and USER, and of the task's own image (never the agent's snapshot) the PATH
// the verifier gets and the programs in each PATH directory, to tell an agent-made program that
// shadows one of them (tamper.ts). A failure is not kept: the next trial tries again.
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { agentImage } from "./agent-image.ts";
import { type ImageMap, taskImage } from "./image.ts";
import type { HarborTask } from "./task.ts";

/** The engine's PATH for an image that sets none. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The images of a Harbor trial and what the runner reads of them. */
export interface TrialImage {
  /** Where the agent runs: the task image, or it with the agent CLI layered in. */
  image: string;
  /** The task's environment image as built or named (docker_image). */
  taskTag: string;
  /** WORKDIR and USER as the image sets them ("" unset). */
  dir: string;
  user: string;
  /** The task image's PATH: the verifier's. */
  path: string;
  /** Programs of the task image per PATH directory; undefined when they could not be listed. */
  programs?: ReadonlyMap<string, ReadonlySet<string>>;
}

const resolved = new WeakMap<HarborTask, Map<string, Promise<TrialImage>>>();

/** Forgets what was resolved for `task` (its run's options changed). */
export function forgetTrialImages(task: HarborTask): void {
  resolved.delete(task);
}

/**
 * The trial's images for `task` and the image `layer` takes the agent from (a CLI harness's, with its
 * CLI; a command agent's that talks to the model, the forwarder only; none for nop and oracle), cached.
 */
export function trialImage(
  call: DockerCall,
  task: HarborTask,
  map: ImageMap,
  layer?: { image: string; cli: boolean },
): Promise<TrialImage> {
  const mine = resolved.get(task) ?? new Map<string, Promise<TrialImage>>();
  resolved.set(task, mine);
  const key = layer ? `${layer.image}|${layer.cli}` : "";
  const known = mine.get(key);
  if (known) return known;
  const resolving = (async () => {
    const built = await taskImage(call, task, map);
    const image = layer === undefined ? built.tag : await agentImage(call, built.tag, layer.image, layer.cli);
    const inspect = await call([
      "image",
      "inspect",
      "--format",
      "{{.Config.WorkingDir}}|{{.Config.User}}",
      image,
    ]);
    const [dir = "", user = ""] = inspect.stdout.trim().split("|");
    const env = await call(["image", "inspect", "--format", "{{json .Config.Env}}", built.tag]);
    const path = pathOf(env.stdout);
    const programs = await listPrograms(call, built.tag, path.split(":"));
    return { image, taskTag: built.tag, dir, user, path, ...(programs ? { programs } : {}) };
  })();
  mine.set(key, resolving);
  resolving.catch(() => mine.delete(key));
  return resolving;
}

/** PATH from an image's `{{json .Config.Env}}`, or the engine's default. */
export function pathOf(envJson: string): string {
  try {
    const env = JSON.parse(envJson) as unknown;
    if (Array.isArray(env))
      for (const e of env)
        if (typeof e === "string" && e.startsWith("PATH=")) return e.slice(5) || DEFAULT_PATH;
  } catch {
    // not JSON: the default below
  }
  return DEFAULT_PATH;
}

/** Lists each PATH directory of the task image with its own shell (the task's, never the agent's). */
async function listPrograms(call: DockerCall, image: string, dirs: readonly string[]) {
  const script =
    'for d; do for f in "$d"/* "$d"/.[!.]*; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\\n" "$f"; done; done; exit 0';
  const r = await call(
    [
      "run",
      "--rm",
      "--pull=never",
      "--network",
      "none",
      "--cap-drop=ALL",
      "--user",
      "0",
      "--entrypoint",
      "/bin/sh",
      image,
      "-c",
      script,
      "sh",
      ...dirs,
    ],
    { timeoutMs: 60_000 },
  );
  if (r.exitCode !== 0) return undefined;
  const programs = new Map<string, Set<string>>(dirs.map((d) => [d, new Set<string>()]));
  for (const line of r.stdout.split("\n")) {
    const at = line.lastIndexOf("/");
    programs.get(line.slice(0, at))?.add(line.slice(at + 1));
  }
  return programs;
}

// One `docker build` of a Harbor image (the task's environment, or the agent layer over it): BuildKit
// when the docker client has it (`docker buildx version`), else the legacy builder; the engine's own
// network unless the run is --offline (`--network none`); `--force-rm` so a failed legacy step leaves
// no container behind; labelled proctor.harbor=1 so they can be found and removed. Not labelled with
// the run (proctor.run): a run's sweep removes the images carrying its label (its snapshots), and
// these are shared by every later run through their content hash. A run's choices reach a task's
// build through setBuildOptions.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withFileLock } from "../../core/fsx.ts";
import type { ProcResult } from "../../core/proc.ts";
import type { DockerCall } from "../../isolation/docker/engine.ts";

/** A run's choices for the images it builds. */
export interface BuildOptions {
  /** `--offline`: builds get `--network none`, as on an air-gapped machine. */
  offline?: boolean;
  /** Whether the client has BuildKit; probed (`docker buildx version`) when absent. */
  buildkit?: boolean;
}

const options = new WeakMap<object, BuildOptions>();

/** Gives each of `tasks` the run's build options (`agent-eval suite` and `tasks check` call it). */
export function setBuildOptions(tasks: readonly object[], o: BuildOptions): void {
  for (const t of tasks) options.set(t, o);
}

/** The build options given to `task`, or none (online, unlabelled, BuildKit probed). */
export function buildOptionsOf(task: object): BuildOptions {
  return options.get(task) ?? {};
}

let probe: Promise<boolean> | undefined;

/** Whether this docker client builds with BuildKit (it has buildx); asked once per process. */
export function hasBuildKit(call: DockerCall): Promise<boolean> {
  probe ??= call(["buildx", "version"], { timeoutMs: 30_000 }).then((r) => r.exitCode === 0);
  return probe;
}

/** The argv (after "docker") and environment of one build of `tag` from `dockerfile` in `context`. */
export function buildArgs(
  tag: string,
  o: { dockerfile: string; context: string; buildkit: boolean; offline?: boolean },
): { argv: string[]; env: Record<string, string> } {
  return {
    argv: [
      "build",
      // BuildKit's plain progress names the failing step on stderr; the legacy builder's `Step N/M`
      // lines go to stdout (no -q: they name the step that failed). Only the legacy builder leaves
      // intermediate containers.
      ...(o.buildkit ? ["--progress=plain"] : ["--force-rm"]),
      ...(o.offline ? ["--network", "none"] : []),
      "--label",
      "proctor.harbor=1",
      "-t",
      tag,
      "-f",
      o.dockerfile,
      o.context,
    ],
    env: { ...(process.env as Record<string, string>), DOCKER_BUILDKIT: o.buildkit ? "1" : "0" },
  };
}

/**
 * Builds `tag` unless the engine has it; null when it does. Two runs at once would build the same
 * image twice, so the second waits on a file lock and reuses it. The Dockerfile (and `files`) go to
 * a fresh directory, the build context unless `context` names another.
 */
export async function buildOnce(
  call: DockerCall,
  tag: string,
  o: {
    dockerfile: string;
    files?: Record<string, string>;
    context?: string;
    timeoutMs: number;
  } & BuildOptions,
): Promise<ProcResult | null> {
  const here = async () =>
    (await call(["image", "inspect", "--format", "{{.Id}}", tag], { timeoutMs: 60_000 })).exitCode === 0;
  if (await here()) return null;
  const buildkit = o.buildkit ?? (await hasBuildKit(call));
  return withFileLock(join(tmpdir(), `${tag.replace(/[^A-Za-z0-9]/g, "-")}.lock`), async () => {
    if (await here()) return null;
    const scratch = mkdtempSync(join(tmpdir(), "proctor-harbor-build-"));
    try {
      const dockerfile = join(scratch, "Dockerfile");
      writeFileSync(dockerfile, o.dockerfile);
      for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(scratch, name), text);
      const { argv, env } = buildArgs(tag, {
        dockerfile,
        context: o.context ?? scratch,
        buildkit,
        ...(o.offline ? { offline: true } : {}),
      });
      return await call(argv, { env, timeoutMs: o.timeoutMs });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}

// Which image a variant's phases run in under Docker: the variant's own `image`, else the agent
// CLI's eval-<harness>:<version>, else (command, nop, oracle: no CLI of ours inside) the offline base
// image that evals/images/build.ts makes. That base is tagged by content (proctor-base:<hash>), so
// the bare name is resolved to the newest such tag on the engine before a run.
import { ConfigError } from "../../core/errors.ts";
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { type HarnessName, isCliHarness } from "../suite.ts";

/** The base image's repository; a variant that names no image and runs no agent CLI runs in it. */
export const BASE_IMAGE = "proctor-base";

/** The image of a variant; `base` is the resolved base tag (default: the bare repository name). */
export function imageOf(
  v: { harness: HarnessName; version?: string; image?: string },
  base: string = BASE_IMAGE,
): string {
  if (v.image !== undefined) return v.image;
  if (isCliHarness(v.harness)) return `eval-${v.harness}:${v.version || "latest"}`;
  return base;
}

/**
 * The newest proctor-base:<hash> on the engine (docker lists newest first). Throws a ConfigError
 * saying how to build it when there is none.
 */
export async function resolveBaseImage(call: DockerCall): Promise<string> {
  const r = await call(["image", "ls", "--format", "{{.Repository}}:{{.Tag}}", BASE_IMAGE]);
  const tag = r.exitCode === 0 ? r.stdout.split("\n").find((l) => l.startsWith(`${BASE_IMAGE}:`)) : undefined;
  if (tag === undefined || tag.endsWith(":<none>"))
    throw new ConfigError(
      `Cannot find the image ${BASE_IMAGE}:<hash> for the command, nop and oracle harnesses: build it with npx bun evals/images/build.ts, or set the variant's image`,
    );
  return tag.trim();
}

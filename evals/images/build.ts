#!/usr/bin/env bun
// Builds the offline images the Docker runner uses: proctor-base:<hash> (debootstrap bookworm + node)
// and eval-<harness>:<version> for each pinned CLI in evals/clis, reusing any image whose inputs are
// unchanged. Prints one JSON line per image on stdout. `npx bun evals/images/build.ts --harness all`
import { join } from "node:path";
import { defineCommand } from "citty";
import { runTool } from "../../lib/core/cli.ts";
import { checkEngine, dockerCli } from "../../lib/isolation/docker/engine.ts";
import { buildBase, buildHarness, HARNESSES, type Harness } from "../../lib/isolation/docker/image.ts";
import { UsageError } from "../../lib/core/errors.ts";
import { createLogger } from "../../lib/core/log.ts";
import { isMain } from "../../lib/core/runtime.ts";

const command = defineCommand({
  meta: { name: "build-images", description: "build the offline eval images (exit 0 built, 1 error, 2 usage)" },
  args: {
    harness: { type: "string", default: "all", description: `base, all, or one of ${HARNESSES.join(", ")}` },
    mirror: {
      type: "string",
      description: "the Debian mirror for the base image (default: the host's apt sources; or PROCTOR_DEBIAN_MIRROR)",
    },
  },
  async run({ args }) {
    const want = args.harness;
    if (want !== "all" && want !== "base" && !HARNESSES.includes(want as Harness))
      throw new UsageError(`--harness must be all, base or one of ${HARNESSES.join(", ")}, got "${want}"`);
    const log = createLogger("build-images");
    const call = dockerCli();
    await checkEngine(call);
    const base = await buildBase(call, {
      log: (m) => log.info(m),
      ...(args.mirror !== undefined ? { mirror: args.mirror } : {}),
    });
    process.stdout.write(`${JSON.stringify(base)}\n`);
    const harnesses = want === "all" ? HARNESSES : want === "base" ? [] : [want as Harness];
    const dirs = { imagesDir: import.meta.dirname, modulesDir: join(import.meta.dirname, "..", "clis", "node_modules") };
    for (const h of harnesses) process.stdout.write(`${JSON.stringify(await buildHarness(call, h, base, dirs))}\n`);
    return 0;
  },
});

/** The entry: exit 0 when every image is built or reused. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs);
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

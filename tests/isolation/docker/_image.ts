// The image the Docker tests run in: the offline base (debootstrap bookworm + bash, socat, git, node),
// built by the same code as evals/images/build.ts and reused while its content hash holds. A missing
// engine or debootstrap fails here with the install command; nothing skips.
import { checkEngine, dockerCli } from "../../../lib/isolation/docker/engine.ts";
import { buildBase } from "../../../lib/isolation/docker/image.ts";

let built: Promise<string> | undefined;

/** The base image's tag, built on first use (about 2 minutes on a cold machine, 1 s when reused). */
export function testImage(): Promise<string> {
  built ??= (async () => {
    const call = dockerCli();
    await checkEngine(call);
    return (await buildBase(call)).tag;
  })();
  return built;
}

/** The image build can take minutes on a cold cache: the one hook timeout the Docker tests need. */
export const IMAGE_BUILD_MS = 900_000;
/** Per test in tests/isolation/docker: a trial's phases take tens of seconds when the machine is busy. */
export const DOCKER_TEST_MS = 300_000;

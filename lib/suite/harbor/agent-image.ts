// How an agent CLI gets into a Harbor task's environment: a derived image FROM the task's image that
// copies the pinned CLI (/opt/agent) and its node runtime (/usr/local/bin of the CLI image, to
// /opt/proctor/bin, put first on PATH) out of our eval-<harness>:<version> image, plus a small node
// forwarder standing in for socat (task images rarely have it) between the container's loopback
// and the model bridge's socket. COPY only, offline; tagged by a hash of its inputs and reused.
import { ConfigError, ToolError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { BRIDGE_MOUNT, BRIDGE_PORT, type DockerCall, tail } from "../../isolation/docker/engine.ts";
import { buildOnce, imageId } from "./image.ts";

/** Bump when the layer below changes in a way its inputs do not show. */
const RECIPE = 1;
/** The repository of the derived images; the tag is the content hash. */
export const AGENT_IMAGE_REPO = "proctor-harbor-agent";

/** Relays 127.0.0.1:<port> to the bridge's Unix socket, as the Docker runner's socat does. */
export const FORWARDER = [
  'const net = require("node:net");',
  "const [sock, port] = process.argv.slice(2);",
  "net.createServer((inner) => {",
  "  const outer = net.connect(sock);",
  "  const end = () => { inner.destroy(); outer.destroy(); };",
  '  for (const s of [inner, outer]) { s.on("error", end); s.on("close", end); }',
  "  inner.pipe(outer); outer.pipe(inner);",
  '}).listen(Number(port), "127.0.0.1");',
  "",
].join("\n");

/** The derived image's first process when the agent talks to a model: the forwarder. */
export const FORWARDER_COMMAND = [
  "/opt/proctor/bin/node",
  "/opt/proctor/forward.js",
  `${BRIDGE_MOUNT}/model.sock`,
  String(BRIDGE_PORT),
];

/** The Dockerfile of the layer over `taskTag` with the CLI of `cliImage` (or, `withCli` false, its node and the forwarder only). */
export function agentDockerfile(taskTag: string, cliImage: string, withCli = true): string {
  return [
    `FROM ${taskTag}`,
    ...(withCli
      ? [
          `COPY --from=${cliImage} /opt/agent/ /opt/agent/`,
          `COPY --from=${cliImage} /usr/local/bin/ /opt/proctor/bin/`,
        ]
      : // A command agent brings its own program; it gets the forwarder (and its node) only, its PATH untouched.
        [`COPY --from=${cliImage} /usr/local/bin/node /opt/proctor/bin/node`]),
    "COPY forward.js /opt/proctor/forward.js",
    ...(withCli ? ["ENV PATH=/opt/proctor/bin:$PATH"] : []),
    "",
  ].join("\n");
}

const building = new Map<string, Promise<string>>();

/**
 * The task image with the CLI of `cliImage` in it (`withCli` false: only the model forwarder, for a
 * command agent that talks to the model), built or reused. ConfigError when the CLI image is
 * missing (build it with evals/images/build.ts), ToolError for a failed build.
 */
export async function agentImage(
  call: DockerCall,
  taskTag: string,
  cliImage: string,
  withCli = true,
): Promise<string> {
  const [taskId, cliId] = [await imageId(call, taskTag), await imageId(call, cliImage)];
  if (cliId === null)
    throw new ConfigError(
      `Cannot put the agent into a Harbor task: image "${cliImage}" is missing (build it with "npx bun evals/images/build.ts")`,
    );
  if (taskId === null) throw new ToolError(`Cannot derive the agent image: "${taskTag}" is missing`, 1);
  const text = agentDockerfile(taskTag, cliImage, withCli);
  const tag = `${AGENT_IMAGE_REPO}:${sha256Hex(JSON.stringify({ RECIPE, text, taskId, cliId, FORWARDER })).slice(0, 16)}`;
  let p = building.get(tag);
  if (!p) {
    p = derive(call, tag, text);
    building.set(tag, p);
    p.catch(() => building.delete(tag));
  }
  return p;
}

async function derive(call: DockerCall, tag: string, text: string): Promise<string> {
  const r = await buildOnce(call, tag, {
    dockerfile: text,
    files: { "forward.js": FORWARDER },
    timeoutMs: 600_000,
  });
  if (r !== null && r.exitCode !== 0)
    throw new ToolError(`Cannot build ${tag}: ${tail(r.stderr || r.stdout)}`, 1);
  return tag;
}

// The networking proof, without a packet beyond this machine: the agent phase (--network none) has no
// interface but lo and no route, the host's loopback services (a listener this test starts, the mock
// model's own port) are closed from it, and the model still answers through the bridge. The control
// runs the same probe with `--network host` against that same 127.0.0.1 listener and sees it open, so
// a "closed" above is the isolation's doing, not a broken probe. No public address, no docker0
// address, no DNS lookup of a real name: a probe expected to fail would still send traffic the day
// isolation broke.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { run } from "../../../lib/core/proc.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { type MockModel, startMockModel } from "../../support/mock-model.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
let mock: MockModel;
/** A service on the host's 127.0.0.1 (port 0) that counts who reached it. */
let service: { port: number; accepted: number; server: Server };

beforeAll(async () => {
  image = await testImage();
  mock = await startMockModel();
  const server = createServer((s) => {
    service.accepted++;
    s.end("host-service\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  service = { port: (server.address() as { port: number }).port, accepted: 0, server };
}, IMAGE_BUILD_MS);

afterAll(async () => {
  await mock?.close();
  service?.server.close();
});

const PROBE = `probe() { if timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then echo "$1:$2 open"; else echo "$1:$2 closed"; fi; }`;

/** The network namespace's interfaces (/proc/net/dev, bash builtins only) and its IPv4 routes. */
const NAMESPACE = [
  "{ read -r; read -r; while IFS=': ' read -r n _; do printf 'interface:%s ' \"$n\"; done; echo; } </proc/net/dev",
  'echo "routes: $(($(wc -l </proc/net/route) - 1))"',
].join("\n");

/** The model through the forwarder: the first word of its HTTP answer. */
const MODEL = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
  "m=${PROCTOR_MODEL_URL#http://}; exec 3<>/dev/tcp/${m%%:*}/${m##*:}",
  'printf "GET / HTTP/1.1\\r\\nHost: model\\r\\nConnection: close\\r\\n\\r\\n" >&3',
  "head -1 <&3 | cut -c1-8; exec 3<&-",
].join("\n");

const probes = (ports: number[]) => [PROBE, ...ports.map((p) => `probe 127.0.0.1 ${p}`)].join("\n");
const lines = (s: string) => s.split("\n").filter(Boolean);

describe("agent networking", () => {
  test("--network none: only lo, no route, the host's loopback services closed, the model answers", async () => {
    const mockPort = Number(new URL(mock.url).port);
    const res = await agent([MODEL, NAMESPACE, probes([service.port, mockPort])].join("\n"));
    expect({ stdout: lines(res.stdout), accepted: service.accepted }).toEqual({
      stdout: [
        "HTTP/1.1",
        "interface:lo ",
        "routes: 0",
        `127.0.0.1:${service.port} closed`,
        `127.0.0.1:${mockPort} closed`,
      ],
      accepted: 0,
    });
  });

  test("control: the same probe in the host's namespace (--network host) sees that listener open", async () => {
    const before = service.accepted;
    const r = await run(
      [
        "docker",
        "run",
        "--rm",
        "--pull=never",
        "--network",
        "host",
        "--cap-drop=ALL",
        "--user=1000:1000",
        image,
        "bash",
        "-c",
        probes([service.port]),
      ],
      { timeoutMs: 120_000 },
    );
    expect({ exitCode: r.exitCode, stdout: lines(r.stdout), accepted: service.accepted - before }).toEqual({
      exitCode: 0,
      stdout: [`127.0.0.1:${service.port} open`],
      accepted: 1,
    });
  });
});

/** `body` as the agent phase, the suite's way: --network none, the model bridged in. */
async function agent(body: string) {
  const runId = `n${process.pid}`;
  const r = dockerRunner();
  const ws = await r.prepare(runId, undefined);
  try {
    return await r.runPhase(ws, {
      runId,
      image,
      phase: "agent",
      argv: ["bash", "-c", body],
      timeoutMs: 120_000,
      network: "none",
      model: { url: mock.url },
    });
  } finally {
    await r.dispose(ws);
  }
}

// The networking proof: from the agent phase (--network none) the model answers through the bridge,
// while every other address and port, the host's own included, is unreachable and no name resolves.
// The same probes with `--network bridge` reach the host, which shows the probes can see an open port.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { dockerRunner, type PhaseSpec } from "../../lib/docker.ts";
import { type MockModel, startMockModel } from "../support/mock-model.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
let mock: MockModel;
/** Host services on every non-loopback address of the host (docker0 included), port 0 each. */
const hostServices: { host: string; port: number; server: Server }[] = [];

beforeAll(async () => {
  image = await testImage();
  mock = await startMockModel();
  // iproute2, not os.networkInterfaces(): the latter leaves out docker0 while no container is attached.
  const addrs = hostAddresses().map((a) => a.address);
  for (const host of addrs) {
    const server = createServer((s) => s.end("host-service\n"));
    await new Promise<void>((r) => server.listen(0, host, () => r()));
    const port = (server.address() as { port: number }).port;
    hostServices.push({ host, port, server });
  }
}, IMAGE_BUILD_MS);

afterAll(async () => {
  await mock?.close();
  for (const s of hostServices) s.server.close();
});

const PROBE = `probe() { if timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; then echo "$1:$2 open"; else echo "$1:$2 closed"; fi; }`;

function script(targets: string[]): string {
  return [
    PROBE,
    // The model, through the forwarder: the first line of its HTTP answer.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    "m=${PROCTOR_MODEL_URL#http://}; exec 3<>/dev/tcp/${m%%:*}/${m##*:}",
    'printf "GET / HTTP/1.1\\r\\nHost: model\\r\\nConnection: close\\r\\n\\r\\n" >&3',
    "head -1 <&3 | cut -c1-8; exec 3<&-",
    ...targets.map((t) => `probe ${t.replace(":", " ")}`),
    "getent hosts deb.debian.org >/dev/null && echo dns resolves || echo dns fails",
  ].join("\n");
}

describe("agent networking", () => {
  test("--network none: the model answers, nothing else does", async () => {
    const mockPort = new URL(mock.url).port;
    const targets = [
      `127.0.0.1:${mockPort}`, // the host's loopback port, seen from the container's own loopback
      ...hostServices.map((s) => `${s.host}:${s.port}`),
      ...hostServices.map((s) => `${s.host}:${mockPort}`),
      "1.1.1.1:53",
      "151.101.2.132:80", // deb.debian.org's CDN, which the host itself can reach
    ];
    const res = await agent("none", script(targets));
    expect(res.stdout.split("\n").filter(Boolean)).toEqual([
      "HTTP/1.1",
      ...targets.map((t) => `${t} closed`),
      "dns fails",
    ]);
    expect(hostServices.length).toBeGreaterThan(0);
  });

  test("--network bridge (explicit opt-in): the host's services are reachable, so the probes do see open ports", async () => {
    // The bridge's host side is docker0 (this engine's IPAM lists no Gateway field).
    const gateway = hostAddresses().find((a) => a.dev === "docker0")?.address;
    const svc = hostServices.find((s) => s.host === gateway);
    expect(svc?.host).toBe(gateway);
    const res = await agent("bridge", script([`${gateway}:${svc?.port}`]));
    expect(res.stdout.split("\n").filter(Boolean).slice(0, 2)).toEqual([
      "HTTP/1.1",
      `${gateway}:${svc?.port} open`,
    ]);
  });
});

async function agent(network: PhaseSpec["network"], body: string) {
  const runId = `n${process.pid}${network}`;
  const r = dockerRunner();
  const ws = await r.prepare(runId, undefined);
  try {
    return await r.runPhase(ws, {
      runId,
      image,
      phase: "agent",
      argv: ["bash", "-c", body],
      timeoutMs: 120_000,
      network,
      model: { url: mock.url },
    });
  } finally {
    await r.dispose(ws);
  }
}

/** The host's non-loopback IPv4 addresses with their devices (`ip -o -4 addr show`). */
function hostAddresses(): { dev: string; address: string }[] {
  const out = spawnSync("ip", ["-o", "-4", "addr", "show"], { encoding: "utf8" });
  if (out.status !== 0) throw new Error("Missing ip(8): run `apt-get install -y iproute2`");
  return out.stdout
    .split("\n")
    .map((l) => /^\d+:\s+(\S+)\s+inet\s+([\d.]+)\//.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[1] !== "lo")
    .map((m) => ({ dev: m[1] as string, address: m[2] as string }));
}

// The three pinned CLIs, driven by their lib/suite/agents drivers, each in its own hardened image with
// --network none: the only way to the mock model is the bridge, the API key reaches the agent exec
// by name only, and each CLI's own report parses (the suite lane's agent phase, end to end).
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { BRIDGE_PORT, dockerCli } from "../../../lib/isolation/docker/engine.ts";
import { buildBase, buildHarness, HARNESSES } from "../../../lib/isolation/docker/image.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { driverFor } from "../../../lib/suite/agents/index.ts";
import { type MockModel, startMockModel, text } from "../../support/mock-model.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS } from "./_image.ts";

// Every phase is several docker CLI calls, and each CLI takes seconds to start on a busy machine.
setDefaultTimeout(DOCKER_TEST_MS);

const tags = new Map<string, string>();
const MODEL = { claude: "mock-model", codex: "gpt-5.5", gemini: "gemini-2.5-flash" } as const;

beforeAll(async () => {
  const call = dockerCli();
  const base = await buildBase(call);
  const dirs = {
    imagesDir: join(REPO_ROOT, "evals/images"),
    modulesDir: join(REPO_ROOT, "evals/clis/node_modules"),
  };
  for (const h of HARNESSES) tags.set(h, (await buildHarness(call, h, base, dirs)).tag);
}, IMAGE_BUILD_MS);

test.each(HARNESSES)("%s answers through the bridge and its report parses", async (harness) => {
  await using mock: MockModel = await startMockModel({ script: [text("done")] });
  const keyName = `PROCTOR_E2E_KEY_${harness.toUpperCase()}`;
  process.env[keyName] = `sk-e2e-${harness}-${process.pid}`;
  const driver = driverFor(harness);
  const cmd = driver.command({
    modelBaseUrl: `http://127.0.0.1:${BRIDGE_PORT}`,
    apiKeyEnvName: keyName,
    home: "/tmp/home",
    workDir: "/work",
    prompt: "say done",
    model: MODEL[harness],
  });
  // The driver's secretEnv maps the CLI's name to ours; the runner passes names, so give the value both names.
  for (const [target, source] of Object.entries(cmd.secretEnv)) process.env[target] = process.env[source];
  const argvs: string[][] = [];
  const r = dockerRunner({ onDockerCall: (a) => argvs.push(a) });
  const runId = `e2e${process.pid}${harness}`;
  const ws = await r.prepare(runId, undefined);
  const res = await r.runPhase(ws, {
    runId,
    image: tags.get(harness) ?? "",
    phase: "agent",
    argv: ["sh", "-c", `mkdir -p -m 700 ${cmd.dirs.join(" ")} && exec "$@"`, "sh", ...cmd.argv],
    env: { ...cmd.env, PATH: "/usr/local/bin:/usr/bin:/bin" },
    secretEnvNames: Object.keys(cmd.secretEnv),
    files: cmd.files,
    stdin: cmd.stdin,
    timeoutMs: 180_000,
    network: "none",
    model: { url: mock.url },
  });
  await r.dispose(ws);
  const secret = process.env[keyName] ?? "";
  for (const target of Object.keys(cmd.secretEnv)) delete process.env[target];
  delete process.env[keyName];
  const m = driver.parse(res.stdout, res.stderr, res.exitCode ?? -1);
  expect({ exitCode: res.exitCode, infra: res.infraError, failed: m.failed, tokens: m.tokens }).toEqual({
    exitCode: 0,
    infra: undefined,
    failed: false,
    tokens: 110,
  });
  expect(mock.requests.length).toBeGreaterThan(0);
  expect(argvs.filter((a) => a.join(" ").includes(secret))).toEqual([]);
});

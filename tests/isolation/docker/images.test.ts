// The harness images: evals/images/<harness>/image.json is checked, eval-<harness>:<version> is built
// offline over the base (or reused by content hash), and each pinned CLI starts inside the runner's
// hardened container as the unprivileged user with no network.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { dockerCli } from "../../../lib/isolation/docker/engine.ts";
import {
  buildBase,
  buildHarness,
  HARNESSES,
  imageFor,
  loadManifest,
} from "../../../lib/isolation/docker/image.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

const dirs = {
  imagesDir: join(REPO_ROOT, "evals/images"),
  modulesDir: join(REPO_ROOT, "evals/clis/node_modules"),
};
const tags = new Map<string, string>();

beforeAll(async () => {
  const call = dockerCli();
  const base = await buildBase(call);
  for (const h of HARNESSES) tags.set(h, (await buildHarness(call, h, base, dirs)).tag);
}, IMAGE_BUILD_MS);

describe("harness images", () => {
  test("are tagged with the pinned versions", () => {
    expect(Object.fromEntries(tags)).toEqual({
      claude: imageFor("claude", "2.1.197"),
      codex: imageFor("codex", "0.171.0"),
      gemini: imageFor("gemini", "0.61.0"),
    });
  });

  test("a second build reuses every image", async () => {
    const call = dockerCli();
    const base = await buildBase(call);
    const again = [base.reused];
    for (const h of HARNESSES) again.push((await buildHarness(call, h, base, dirs)).reused);
    expect(again).toEqual([true, true, true, true]);
  });

  test("each CLI starts in the hardened agent container", async () => {
    const r = dockerRunner();
    const runId = `img${process.pid}`;
    const ws = await r.prepare(runId, undefined);
    const out: string[] = [];
    for (const h of HARNESSES) {
      const res = await r.runPhase(ws, {
        runId,
        image: tags.get(h) ?? "",
        phase: "agent",
        argv: [h, "--version"],
        timeoutMs: 120_000,
        network: "none",
      });
      out.push(`${res.exitCode} ${res.stdout.trim().split("\n").pop()}`);
    }
    await r.dispose(ws);
    expect(out).toEqual(["0 2.1.197 (Claude Code)", "0 codex-cli 0.171.0", "0 0.61.0"]);
  });
});

describe("loadManifest", () => {
  test.each([
    { name: "not JSON", text: "{", msg: "Cannot load image manifest" },
    {
      name: "wrong version",
      text: '{"version":2,"package":"p","copy":[{"from":"a","to":"/a"}],"bin":{}}',
      msg: "version",
    },
    {
      name: "relative target",
      text: '{"version":1,"package":"p","copy":[{"from":"a","to":"a"}],"bin":{}}',
      msg: "copy[0].to",
    },
    {
      name: "unknown key",
      text: '{"version":1,"package":"p","copy":[{"from":"a","to":"/a"}],"bin":{},"x":1}',
      msg: '"x"',
    },
    { name: "no copy", text: '{"version":1,"package":"p","copy":[],"bin":{}}', msg: "copy" },
  ])("rejects $name", ({ text, msg }) => {
    using dir = tempDir("proctor-manifest");
    const path = join(dir.path, "image.json");
    writeFileSync(path, text);
    expect(() => loadManifest(path)).toThrow(`Cannot load image manifest "${path}"`);
    expect(() => loadManifest(path)).toThrow(msg);
  });

  test.each(HARNESSES)("evals/images/%s/image.json is valid", (h) => {
    expect(loadManifest(join(dirs.imagesDir, h, "image.json")).version).toBe(1);
  });
});

// The agent sandbox: the exact bwrap invocation, what gets bound for an agent's install, and end to
// end proof that a sandboxed agent cannot see the repository or the store, still reaches a model on
// 127.0.0.1, and can run a real CLI that lives outside its run root (read-only).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../lib/core/errors.ts";
import { agentBwrapArgv, resolveAgentInstall } from "../../lib/isolation/agent.ts";
import { agentEval, FIX, makeLane, STUB } from "../promotion/_lane.ts";
import { agentCli, pinnedVersion } from "../support/agent-clis.ts";
import { startMockModel, text } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

// Each case starts the real entry (and agents, in a sandbox) several times; on a loaded machine that
// takes minutes, so these get more than the suite's 60 s default.
setDefaultTimeout(300_000);

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

function runArgs(config: string, ...extra: string[]): string[] {
  return [
    "run",
    "--task-id",
    "demo",
    "--baseline",
    "main",
    "--candidate",
    "feat/x",
    "--agent-config",
    config,
    "--runs",
    "1",
    ...extra,
  ];
}

function transcripts(runDir: string): string[] {
  const key = json(join(runDir, "sealed", "key.json"));
  return Object.keys(key).map((bid) => readFileSync(join(runDir, "raw", bid, "transcript.txt"), "utf8"));
}

describe("agentBwrapArgv", () => {
  test("network shared, everything else unshared, only the run root writable", () => {
    const ctx = { tool: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", drop: true, hide: [] };
    const argv = agentBwrapArgv(ctx, {
      workDir: "/tmp/idd-agent-x",
      cwd: "/tmp/idd-agent-x/run/workspace",
      env: {},
      command: ["agent", "--go"],
      roBinds: [{ host: "/opt/cli", inside: "/opt/cli" }],
    });
    expect(argv.slice(0, 9)).toEqual([
      "/usr/bin/setpriv",
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
      "/usr/bin/bwrap",
    ]);
    expect(argv).not.toContain("--unshare-net");
    expect(argv).not.toContain("--unshare-all");
    for (const flag of [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
    ])
      expect(argv).toContain(flag);
    const pairs = (flag: string) =>
      argv.flatMap((a, i) => (a === flag ? [`${argv[i + 1]}=>${argv[i + 2]}`] : []));
    expect(pairs("--bind")).toEqual(["/tmp/idd-agent-x=>/tmp/idd-agent-x"]);
    expect(pairs("--ro-bind")).toContain("/usr=>/usr");
    expect(pairs("--ro-bind")).toContain("/opt/cli=>/opt/cli");
    expect(
      pairs("--ro-bind").some((p) => p.startsWith("/=>") || p.startsWith("/work") || p.startsWith("/root")),
    ).toBe(false);
    expect(argv.slice(-5)).toEqual(["--chdir", "/tmp/idd-agent-x/run/workspace", "--", "agent", "--go"]);
  });
});

describe("resolveAgentInstall", () => {
  test("an npm CLI binds its whole node_modules; a system binary binds nothing", () => {
    const claude = agentCli("claude");
    expect(resolveAgentInstall([claude, "-p"], "/")).toEqual({
      executable: claude,
      dirs: [join(REPO_ROOT, "evals", "clis", "node_modules")],
    });
    expect(resolveAgentInstall(["evals/clis/node_modules/.bin/codex"], REPO_ROOT).dirs).toEqual([
      join(REPO_ROOT, "evals", "clis", "node_modules"),
    ]);
    expect(resolveAgentInstall(["sh", "-c", "true"], "/", "/usr/bin:/bin")).toEqual({
      executable: "/usr/bin/sh",
      dirs: [],
    });
  });
  test("a script binds its own directory; a missing one cannot start (4)", () => {
    expect(resolveAgentInstall([STUB], "/")).toEqual({ executable: STUB, dirs: [join(FIX, "agent")] });
    let error: unknown;
    try {
      resolveAgentInstall(["no-such-agent-cli"], "/", "/usr/bin");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ToolError);
    expect([(error as ToolError).exitCode, (error as Error).message]).toEqual([
      4,
      'agent cannot start: "no-such-agent-cli" is not an executable file',
    ]);
  });
});

describe("the sandboxed agent", () => {
  test("cannot see the repository, the store, /root or Proctor's files; --no-sandbox can, and says so", async () => {
    using dir = tempDir("promo-sbx");
    const lane = makeLane(dir.path);
    const secret = join(lane.store, "rubrics", "demo.json");
    // Proctor's own files too: only the stub's directory is bound, not its siblings (the fixture store).
    const snoop = [
      lane.repo,
      lane.store,
      secret,
      join(lane.repo, ".git"),
      "/root",
      join(REPO_ROOT, "package.json"),
      join(REPO_ROOT, ".git"),
      join(FIX, "store"),
    ].join(":");
    const r = await agentEval(runArgs(lane.config), lane.repo, { STUB_MODE: "snoop", STUB_SNOOP: snoop });
    expect(r.code).toBe(0);
    for (const t of transcripts(String(r.out.run_dir))) {
      const lines = t.split("\n").filter((l) => l.startsWith("snoop "));
      expect(lines).toEqual(snoop.split(":").map((p) => `snoop ${p} absent`));
    }
    const prov = json(join(String(r.out.run_dir), "provenance.json")) as {
      isolation: { mechanism: string; uid: number; probe: { ok: boolean; paths: Record<string, string> } };
    };
    expect(prov.isolation.mechanism).toBe("bwrap");
    expect(prov.isolation.probe.ok).toBe(true);
    expect(Object.values(prov.isolation.probe.paths)).toEqual(
      Object.values(prov.isolation.probe.paths).map(() => "absent"),
    );
    expect(prov.isolation.probe.paths[lane.repo]).toBe("absent");

    const open = await agentEval(runArgs(lane.config, "--no-sandbox"), lane.repo, {
      STUB_MODE: "snoop",
      STUB_SNOOP: secret,
    });
    expect(open.code).toBe(0);
    for (const t of transcripts(String(open.out.run_dir))) expect(t).toContain(`snoop ${secret} visible`);
    const oprov = json(join(String(open.out.run_dir), "provenance.json")) as {
      isolation: { mechanism: string; probe: unknown };
      posture: { network: string };
    };
    expect([oprov.isolation.mechanism, oprov.isolation.probe]).toEqual(["none", null]);
    expect(oprov.posture.network).toBe("unrestricted (model API); not sandboxed (--no-sandbox)");
  });

  test("reaches a model on 127.0.0.1 (the network stays open)", async () => {
    await using mock = await startMockModel({
      script: [text("hello from the model"), text("hello from the model")],
    });
    using dir = tempDir("promo-sbx");
    const lane = makeLane(dir.path);
    const r = await agentEval(runArgs(lane.config), lane.repo, {
      STUB_MODE: "net",
      STUB_MODEL_URL: mock.url,
    });
    expect(r.code).toBe(0);
    for (const t of transcripts(String(r.out.run_dir))) {
      expect(t).toContain("hello from the model");
      expect(t).toContain("curl exit 0");
    }
    expect(mock.requests.length).toBe(2);
  });

  test("runs a real CLI installed outside its run root, read-only", async () => {
    using dir = tempDir("promo-sbx");
    const lane = makeLane(dir.path);
    const config = join(dir.path, "claude.json");
    writeFileSync(
      config,
      JSON.stringify({
        command: ["evals/clis/node_modules/.bin/claude", "--version"],
        model: "none",
        cli: "claude",
        cli_version: pinnedVersion("claude"),
        tools: ["none"],
        pass_env: [],
      }),
    );
    // A relative argv[0] resolves against the operator's working directory (here Proctor's root).
    const r = await agentEval([...runArgs(config), "--repo", lane.repo], REPO_ROOT);
    expect(r.code).toBe(0);
    const key = json(join(String(r.out.run_dir), "sealed", "key.json")) as Record<string, { exit: unknown }>;
    expect(Object.values(key).map((k) => k.exit)).toEqual([0, 0]);
    for (const t of transcripts(String(r.out.run_dir)))
      expect(t).toContain(`${pinnedVersion("claude")} (Claude Code)`);
  });
});

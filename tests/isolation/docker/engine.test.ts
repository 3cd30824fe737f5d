// The pure parts of the Docker runner: the hardened argv (originals 7.6 TestDockerRunArgs,
// TestDockerExecEnvArgs), run ids, model URLs and the files tar. No engine needed.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PhaseSpec } from "../../../lib/isolation/contract.ts";
import { tarEnd, tarFiles } from "../../../lib/isolation/docker/_tar.ts";
import { forwarderCommand, parseModelUrl, waitForForwarder } from "../../../lib/isolation/docker/bridge.ts";
import { checkRunId, execArgs, runArgs } from "../../../lib/isolation/docker/engine.ts";
import { tempDir } from "../../support/tmp.ts";

const spec: PhaseSpec = {
  runId: "r1",
  image: "eval-claude:2.1.197",
  phase: "agent",
  argv: ["claude", "-p", "x"],
  timeoutMs: 1000,
  network: "none",
  env: { NOT_IN_RUN: "v" },
  secretEnvNames: ["API_KEY"],
};

describe("runArgs", () => {
  test.each([
    {
      name: "defaults: the original's hardening, no env, sleep infinity",
      spec,
      o: { user: "1000:1000", command: ["sleep", "infinity"] } as {
        user: string;
        bridgeDir?: string;
        command: string[];
      },
      extra: [] as string[],
      tail: ["eval-claude:2.1.197", "sleep", "infinity"],
      limits: ["--pids-limit=512", "--memory=4g", "--cpus=2", "--user=1000:1000", "--network", "none"],
    },
    {
      name: "limits, user, bridge mount and forwarder",
      spec: {
        ...spec,
        network: "bridge" as const,
        user: "2000:2000",
        limits: { cpus: 1, memory: "1g", pids: 64 },
      },
      o: { user: "1000:1000", bridgeDir: "/tmp/b", command: forwarderCommand("/run/proctor") },
      extra: ["-v", "/tmp/b:/run/proctor:ro"],
      tail: ["eval-claude:2.1.197", ...forwarderCommand("/run/proctor")],
      limits: ["--pids-limit=64", "--memory=1g", "--cpus=1", "--user=2000:2000", "--network", "bridge"],
    },
  ])("$name", ({ spec, o, extra, tail, limits }) => {
    const args = runArgs(spec, "proctor-eval-abc", o);
    expect(args).toEqual([
      "run",
      "-d",
      "--rm",
      "--pull=never",
      "--name",
      "proctor-eval-abc",
      "--label",
      "proctor.run=r1",
      "--label",
      "proctor.phase=agent",
      "-w",
      "/work",
      "--cap-drop=ALL",
      "--security-opt=no-new-privileges",
      ...limits,
      ...extra,
      ...tail,
    ]);
    expect(args.filter((a) => a === "-e" || a.startsWith("--env"))).toEqual([]);
  });

  test("attached: stdin open, kept after exit for the copy out, non-secret env as K=V, never secrets", () => {
    const args = runArgs(spec, "proctor-eval-abc", {
      user: "1000:1000",
      command: ["sh", "-c", "true"],
      attach: true,
      env: { A: "1", B: "x y" },
    });
    expect(args.slice(0, 3)).toEqual(["run", "-i", "--pull=never"]);
    expect(args.slice(-9)).toEqual([
      "none",
      "-e",
      "A=1",
      "-e",
      "B=x y",
      "eval-claude:2.1.197",
      "sh",
      "-c",
      "true",
    ]);
    expect(
      args.filter((a) => a === "-d" || a === "--rm" || a.includes("API_KEY") || a.includes("NOT_IN_RUN")),
    ).toEqual([]);
  });

  test("attached with nothing to copy out: removed by the engine once the client returns (--rm)", () => {
    const args = runArgs(spec, "proctor-eval-abc", {
      user: "1000:1000",
      command: ["true"],
      attach: true,
      discard: true,
    });
    expect(args.slice(0, 4)).toEqual(["run", "-i", "--rm", "--pull=never"]);
    expect(args.filter((a) => a === "-d")).toEqual([]);
  });

  test("attached: a bad env name is refused", () => {
    expect(() =>
      runArgs(spec, "c", { user: "1000:1000", command: ["true"], attach: true, env: { "A B": "1" } }),
    ).toThrow('Invalid environment variable name "A B"');
  });
});

describe("execArgs", () => {
  test("env as K=V, secrets by name only", () => {
    expect(execArgs("c1", ["codex", "exec", "-"], { A: "1", B: "x y" }, ["API_KEY"])).toEqual([
      "exec",
      "-i",
      "-w",
      "/work",
      "-e",
      "A=1",
      "-e",
      "B=x y",
      "-e",
      "API_KEY",
      "c1",
      "codex",
      "exec",
      "-",
    ]);
  });
  test.each([
    {
      name: "bad env name",
      env: { "A=B": "1" } as Record<string, string>,
      secrets: [] as string[],
      msg: 'Invalid environment variable name "A=B"',
    },
    {
      name: "bad secret name",
      env: {} as Record<string, string>,
      secrets: ["1X"] as string[],
      msg: 'Invalid environment variable name "1X"',
    },
  ])("$name", ({ env, secrets, msg }) => {
    expect(() => execArgs("c", ["true"], env, secrets)).toThrow(msg);
  });
});

describe("checkRunId", () => {
  test.each(["r1", "run_2026-11-30", "a".repeat(64)])("accepts %s", (id) =>
    expect(() => checkRunId(id)).not.toThrow(),
  );
  test.each(["", "a.b", "a/b", "a b", "a".repeat(65), "r1\n"])("rejects %p", (id) => {
    expect(() => checkRunId(id)).toThrow(`Invalid run id "${id}": expected 1-64 characters of [A-Za-z0-9_-]`);
  });
});

describe("parseModelUrl", () => {
  test.each([
    { url: "http://127.0.0.1:8080", want: { tls: false, host: "127.0.0.1", port: 8080, path: "" } },
    { url: "http://localhost:9/v1/", want: { tls: false, host: "localhost", port: 9, path: "/v1" } },
    { url: "https://api.example.com", want: { tls: true, host: "api.example.com", port: 443, path: "" } },
    { url: "http://[::1]:7", want: { tls: false, host: "::1", port: 7, path: "" } },
  ])("$url", ({ url, want }) => expect(parseModelUrl(url)).toEqual(want));
  test.each(["ftp://x", "not a url", "unix:/x", "file:///etc/passwd"])("rejects %s", (url) => {
    expect(() => parseModelUrl(url)).toThrow(
      `Invalid model URL "${url}": expected http://host:port or https://host`,
    );
  });
});

test("waitForForwarder keeps the agent argv intact after the probe", () => {
  expect(waitForForwarder(["gemini", "-p", "a b"]).slice(3)).toEqual([
    "proctor-agent",
    "gemini",
    "-p",
    "a b",
  ]);
});

describe("tarFiles", () => {
  test("GNU tar reads back names, modes and contents", () => {
    using dir = tempDir("proctor-tar");
    const long = `/etc/${"d".repeat(90)}/${"f".repeat(60)}.json`;
    const tar = join(dir.path, "f.tar");
    writeFileSync(
      tar,
      tarFiles(
        [
          { path: "/etc/claude-code/managed-settings.json", content: '{"a":1}' },
          { path: "/usr/local/bin/x", content: "#!/bin/sh\n", mode: 0o755 },
          { path: long, content: "é" },
        ],
        { uid: 1000, gid: 1000 },
      ),
    );
    const list = spawnSync("tar", ["--numeric-owner", "-tvf", tar], { encoding: "utf8" });
    expect(list.status).toBe(0);
    const cols = (l: string) => l.split(/\s+/);
    expect(
      list.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => [cols(l)[0], cols(l)[1], cols(l).pop()]),
    ).toEqual([
      ["drwxr-xr-x", "1000/1000", "etc/claude-code/"],
      ["-rw-r--r--", "1000/1000", "etc/claude-code/managed-settings.json"],
      ["drwxr-xr-x", "1000/1000", "usr/local/"],
      ["drwxr-xr-x", "1000/1000", "usr/local/bin/"],
      ["-rwxr-xr-x", "1000/1000", "usr/local/bin/x"],
      ["drwxr-xr-x", "1000/1000", `${long.slice(1, long.lastIndexOf("/"))}/`],
      ["-rw-r--r--", "1000/1000", long.slice(1)],
    ]);
    const cat = spawnSync("tar", ["-xOf", tar, long.slice(1)], { encoding: "utf8" });
    expect(cat.stdout).toBe("é");
  });
  test.each([
    {
      path: "relative/x",
      msg: 'Cannot write "relative/x" into a container: expected an absolute path without ".."',
    },
    {
      path: "/a/../etc/x",
      msg: 'Cannot write "/a/../etc/x" into a container: expected an absolute path without ".."',
    },
    { path: "/", msg: 'Cannot write "/" into a container: expected an absolute path without ".."' },
  ])("rejects $path", ({ path, msg }) => expect(() => tarFiles([{ path, content: "" }])).toThrow(msg));
});

describe("tarEnd", () => {
  // A GNU tar snapshot (long names, contents that span blocks, record padding) with the files' tar
  // appended at its end: one stream that a reader stopping at the first end-of-archive reads whole.
  test("a snapshot with the files appended reads back both", () => {
    using dir = tempDir("proctor-tar-end");
    const src = join(dir.path, "src");
    const deep = `${"d".repeat(120)}/${"n".repeat(110)}.txt`;
    mkdirSync(join(src, "d".repeat(120)), { recursive: true });
    writeFileSync(join(src, deep), "x".repeat(1500));
    writeFileSync(join(src, "empty"), "");
    const snap = join(dir.path, "work.tar");
    const made = spawnSync("tar", ["-C", src, "--transform", "s,^\\.,work,S", "-cf", snap, "."]);
    expect(made.status).toBe(0);
    const end = tarEnd(snap);
    truncateSync(snap, end);
    appendFileSync(snap, tarFiles([{ path: "/etc/a.json", content: "{}" }]));
    const list = spawnSync("tar", ["-tf", snap], { encoding: "utf8" });
    expect({
      status: list.status,
      names: list.stdout.split("\n").filter(Boolean).sort(),
      end: end % 512,
    }).toEqual({
      status: 0,
      names: ["etc/a.json", "work/", `work/${"d".repeat(120)}/`, `work/${deep}`, "work/empty"].sort(),
      end: 0,
    });
  });

  test("an empty file ends at 0", () => {
    using dir = tempDir("proctor-tar-end");
    const f = join(dir.path, "e.tar");
    writeFileSync(f, "");
    expect(tarEnd(f)).toBe(0);
  });
});

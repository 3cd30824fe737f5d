// The Docker runner against the real engine (originals 7.6): a fresh container per phase with the
// original's verb sequence, only /work carried, nothing setup started survives, files written before
// the exec, timeouts force-remove, a missing image is an infrastructure error, and secrets reach only
// the agent exec: never the docker argv, never `docker inspect`, never setup or check.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UNPACK_MARK } from "../../../lib/isolation/docker/_attach.ts";
import { containersOf } from "../../../lib/isolation/docker/cleanup.ts";
import { dockerRunner, type PhaseResult, type PhaseSpec } from "../../../lib/isolation/docker/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
beforeAll(async () => {
  image = await testImage();
}, IMAGE_BUILD_MS);

const runId = () => `t${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const sh = (script: string) => ["bash", "-c", script];

function base(id: string): Omit<PhaseSpec, "phase" | "argv"> {
  return { runId: id, image, timeoutMs: 60_000, network: "none" };
}

/** A command's clean result (durations zeroed). */
const ok = (stdout: string, commandIndex = 0): PhaseResult => ({
  exitCode: 0,
  stdout,
  stderr: "",
  timedOut: false,
  commandIndex,
  durationMs: 0,
});

type Spec = Partial<PhaseSpec> & Pick<PhaseSpec, "phase" | "argv">;

/** Runs phases in turn on an empty /work of a fresh run; durations zeroed; checks nothing is left. */
async function phases(
  specs: (Partial<PhaseSpec> & Pick<PhaseSpec, "phase" | "argv">)[],
  verbs: string[] = [],
): Promise<PhaseResult[]> {
  const r = dockerRunner({ onDockerCall: (a) => verbs.push(a[0] ?? "") });
  const id = runId();
  const ws = await r.prepare(id, undefined);
  const out: PhaseResult[] = [];
  for (const spec of specs) out.push({ ...(await r.runPhase(ws, { ...base(id), ...spec })), durationMs: 0 });
  await r.dispose(ws);
  expect(await containersOf(id)).toEqual([]);
  return out;
}

describe("phases", () => {
  test.concurrent("fresh container per phase, the original's verbs, only /work carried", async () => {
    using repo = tempDir("proctor-repo");
    mkdirSync(join(repo.path, "src"));
    writeFileSync(join(repo.path, "src", "a.txt"), "one\n");
    symlinkSync("src/a.txt", join(repo.path, "link"));
    const verbs: string[] = [];
    const r = dockerRunner({ onDockerCall: (a) => verbs.push(a[0] ?? "") });
    const id = runId();
    const ws = await r.prepare(id, repo.path);
    const setup = await r.runPhase(ws, {
      ...base(id),
      phase: "setup",
      argv: [],
      commands: [
        sh(
          "echo two >> src/a.txt; hostname > /work/setup-host; touch /tmp/outside; (sleep 600 &) ; echo started",
        ),
        sh("cat src/a.txt; readlink link; stat -c %u:%g src/a.txt"),
      ],
    });
    const agent = await r.runPhase(ws, {
      ...base(id),
      phase: "agent",
      argv: sh(
        [
          'echo three >> src/a.txt; cat /etc/demo.json; echo " $MODE"',
          // A driver's settings under HOME: the CLI must be able to write beside them; /tmp stays the image's.
          'stat -c "%U %a %n" /tmp /tmp/home/.cfg /tmp/home/.cfg/s.json; touch /tmp/home/.cfg/new',
        ].join("; "),
      ),
      env: { MODE: "agent" },
      files: [
        { path: "/etc/demo.json", content: '{"x":1}' },
        { path: "/tmp/home/.cfg/s.json", content: "{}", mode: 0o600 },
      ],
    });
    const check = await r.runPhase(ws, {
      ...base(id),
      phase: "check",
      argv: sh(
        [
          "cat src/a.txt",
          '[ "$(hostname)" != "$(cat setup-host)" ] && echo fresh',
          "ls -A /tmp | wc -l",
          // Nothing setup started survives: no `sleep 600` among this container's processes.
          'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " " | grep -c "slee[p] 600"',
          "echo changed > src/a.txt",
          "id -u",
        ].join("; "),
      ),
    });
    const after = await r.runPhase(ws, { ...base(id), phase: "check", argv: sh("cat src/a.txt") });
    await r.dispose(ws);
    const strip = (x: PhaseResult) => ({ ...x, durationMs: 0 });
    expect([setup, agent, check, after].map(strip)).toEqual([
      ok("one\ntwo\nsrc/a.txt\n1000:1000\n", 1),
      ok('{"x":1} agent\nroot 1777 /tmp\nagent 755 /tmp/home/.cfg\nagent 600 /tmp/home/.cfg/s.json\n'),
      ok("one\ntwo\nthree\nfresh\n0\n0\n1000\n"),
      // A check's changes are never carried.
      ok("one\ntwo\nthree\n"),
    ]);
    // Two setup commands: detached, /work riding the first exec's stdin. An agent file under /etc (not
    // the user's to write): the original's verbs, the files riding in /work's one `docker cp`. A check is
    // one command, attached: one `run` (with /work on stdin, --rm: nothing is copied out of a check).
    expect(verbs.join(" ")).toBe("version run exec exec cp rm run cp exec cp rm run run");
    expect(await containersOf(id)).toEqual([]);
  });

  test.concurrent("setup stops at the first failing command", async () => {
    const [res] = await phases([
      { phase: "setup", argv: [], commands: [sh("exit 0"), sh("echo bad >&2; exit 3"), sh("echo never")] },
    ]);
    expect(res).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: "bad\n",
      timedOut: false,
      commandIndex: 1,
      durationMs: 0,
    });
  });

  test.concurrent.each<{ name: string; commands: string[][]; verbs: string }>([
    {
      name: "attached",
      commands: [sh("echo partial > p.txt; exec sleep 600")],
      // The attached run, then the forced rm straight away: no copy out of a timed-out phase.
      verbs: "version run rm run",
    },
    {
      name: "detached (two commands, the second times out)",
      commands: [sh("echo first > f.txt"), sh("echo partial > p.txt; exec sleep 600")],
      verbs: "version run exec exec rm run",
    },
  ])(
    "a timeout force-removes the container and keeps /work as it was: $name",
    async ({ commands, verbs }) => {
      const seen: string[] = [];
      const [agent, check] = await phases(
        [
          { phase: "agent", timeoutMs: 1500, argv: [], commands },
          { phase: "check", argv: sh("ls -A /work | wc -l") },
        ],
        seen,
      );
      expect([agent?.exitCode, agent?.timedOut, agent?.commandIndex, check?.stdout]).toEqual([
        null,
        true,
        commands.length - 1,
        "0\n",
      ]);
      expect(seen.join(" ")).toBe(verbs);
    },
  );

  test.concurrent("an attached phase: stdin, links, modes and owner carried; the check's changes are not", async () => {
    using repo = tempDir("proctor-repo");
    mkdirSync(join(repo.path, "src"));
    writeFileSync(join(repo.path, "src", "a.txt"), "one\n", { mode: 0o640 });
    writeFileSync(join(repo.path, "run.sh"), "#!/bin/sh\necho ran\n", { mode: 0o755 });
    symlinkSync("src/a.txt", join(repo.path, "link"));
    symlinkSync("/nowhere", join(repo.path, "dangling"));
    const verbs: string[] = [];
    const r = dockerRunner({ onDockerCall: (a) => verbs.push(a[0] ?? "") });
    const id = runId();
    const ws = await r.prepare(id, repo.path);
    const stat = 'stat -c "%U:%G %a %F %n" src src/a.txt run.sh link dangling';
    const out: PhaseResult[] = [];
    for (const spec of [
      {
        phase: "setup",
        argv: sh(`${stat}; readlink dangling; cat link; ./run.sh; cat > from-stdin`),
        stdin: "hello",
      },
      {
        phase: "agent",
        argv: sh(
          'cat from-stdin; echo " $MODE"; stat -c "%U %a %n" /tmp/home /tmp/home/s.json; cat /tmp/home/s.json',
        ),
        env: { MODE: "agent" },
        files: [{ path: "/tmp/home/s.json", content: "{}", mode: 0o600 }],
      },
      { phase: "check", argv: sh("rm link; echo changed > src/a.txt; ls -A /work") },
      { phase: "check", argv: sh("cat link; ls -A /work") },
    ] satisfies Spec[])
      out.push({ ...(await r.runPhase(ws, { ...base(id), ...spec })), durationMs: 0 });
    await r.dispose(ws);
    expect(out).toEqual([
      ok(
        [
          "agent:agent 755 directory src",
          "agent:agent 640 regular file src/a.txt",
          "agent:agent 755 regular file run.sh",
          "agent:agent 777 symbolic link link",
          "agent:agent 777 symbolic link dangling",
          "/nowhere",
          "one",
          "ran",
          "",
        ].join("\n"),
      ),
      ok("hello agent\nagent 755 /tmp/home\nagent 600 /tmp/home/s.json\n{}"),
      ok("dangling\nfrom-stdin\nrun.sh\nsrc\n"),
      ok("one\ndangling\nfrom-stdin\nlink\nrun.sh\nsrc\n"),
    ]);
    expect(verbs.join(" ")).toBe("version run cp rm run cp rm run run");
    expect(await containersOf(id)).toEqual([]);
  });

  test.concurrent.each<{ name: string; commands: string[][]; verbs: string }>([
    {
      name: "an attached phase",
      commands: [sh("id -u; stat -c %u /work; touch x")],
      verbs: "run rm run cp exec cp rm",
    },
    {
      name: "a detached one (its first exec unpacks)",
      commands: [sh("id -u; stat -c %u /work"), sh("touch x")],
      verbs: "run exec cp exec exec cp rm",
    },
  ])(
    "an image whose /work the user cannot write: $name falls back to docker cp",
    async ({ commands, verbs }) => {
      // The image's /work belongs to 1000; as 2000 the container's own tar cannot unpack there, docker cp can.
      const seen: string[] = [];
      const r = dockerRunner({ user: "2000:2000", onDockerCall: (a) => seen.push(a[0] ?? "") });
      const id = runId();
      const ws = await r.prepare(id, undefined);
      const res = await r.runPhase(ws, { ...base(id), phase: "setup", argv: [], commands, stdin: "in" });
      const after = await r.runPhase(ws, { ...base(id), phase: "check", argv: sh("ls /work") });
      await r.dispose(ws);
      expect([res, after].map((x) => ({ ...x, durationMs: 0 }))).toEqual([
        ok(commands.length === 1 ? "2000\n2000\n" : "", commands.length - 1),
        ok("x\n"),
      ]);
      // The check falls back alike.
      expect(seen.join(" ")).toBe(`version ${verbs} run rm run cp exec rm`);
      expect(await containersOf(id)).toEqual([]);
    },
  );

  test.concurrent("a missing image is an infrastructure error, not the agent's failure", async () => {
    const [res] = await phases([{ image: "eval-nope:0.0.0", phase: "agent", argv: ["true"] }]);
    expect(res).toEqual({
      exitCode: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      commandIndex: 0,
      durationMs: 0,
      infraError: 'image "eval-nope:0.0.0" is missing: build it with "npx bun evals/images/build.ts"',
    });
  });

  test.concurrent("an attached command's failure is its own whatever it prints; the engine's refusal is not", async () => {
    const refusal =
      "docker: Error response from daemon: No such image: x\n\nRun 'docker run --help' for more information";
    const failed = (exitCode: number, stderr: string): PhaseResult => ({ ...ok(""), exitCode, stderr });
    const verbs: string[] = [];
    const out = await phases(
      [
        // What `docker run` itself prints when the engine refuses, and its exit.
        { phase: "check", argv: sh(`echo "${refusal}" >&2; exit 125`) },
        // The unpack's own last line and exit: still no fallback, the command ran.
        { phase: "check", argv: sh(`echo '${UNPACK_MARK}' >&2; exit 125`) },
        { phase: "check", argv: sh("no-such-command-here") },
        // The engine refuses the create: no command ran.
        { phase: "check", argv: sh("echo never"), limits: { memory: "1m" } },
      ],
      verbs,
    );
    expect(out).toEqual([
      failed(125, `${refusal}\n`),
      failed(125, `${UNPACK_MARK}\n`),
      failed(127, "bash: line 1: no-such-command-here: command not found\n"),
      {
        ...ok(""),
        exitCode: null,
        infraError: "start: Error response from daemon: Minimum memory limit allowed is 6MB",
      },
    ]);
    // A check that ran went with --rm; the refused one is removed in case the engine left it created.
    expect(verbs.join(" ")).toBe("version run run run run rm");
  });

  test.each([
    {
      name: "secrets in setup",
      phase: "setup" as const,
      extra: { secretEnvNames: ["X"] } as Partial<PhaseSpec>,
    },
    {
      name: "model bridge in check",
      phase: "check" as const,
      extra: { model: { url: "http://127.0.0.1:1" } } as Partial<PhaseSpec>,
    },
  ])("refuses $name", async ({ phase, extra }) => {
    const r = dockerRunner();
    const id = runId();
    const ws = await r.prepare(id, undefined);
    const p = r.runPhase(ws, { ...base(id), phase, argv: ["true"], ...extra });
    await expect(p).rejects.toThrow(
      `Secrets and the model bridge are for the agent phase only, not "${phase}"`,
    );
    await r.dispose(ws);
  });

  test("a repo that cannot be read fails prepare with its path", async () => {
    const r = dockerRunner();
    await expect(r.prepare(runId(), "/nonexistent/repo")).rejects.toThrow(
      'Cannot snapshot repo "/nonexistent/repo"',
    );
  });

  test("a missing docker CLI is a clear error with the install command", async () => {
    const r = dockerRunner({ docker: "/nonexistent/docker" });
    await expect(r.prepare(runId(), undefined)).rejects.toThrow(
      'Cannot run "/nonexistent/docker": install docker.io (apt-get install -y docker.io) and start dockerd',
    );
  });
});

describe("secrets", () => {
  test("reach only the agent exec: not setup, not check, not argv, not docker inspect", async () => {
    const secret = `sk-proctor-${Math.random().toString(36).slice(2)}-${process.pid}`;
    process.env.PROCTOR_TEST_SECRET = secret;
    const argvs: string[][] = [];
    const inspects: string[] = [];
    const r = dockerRunner({
      onDockerCall: (a) => {
        argvs.push(a);
        // Before each container goes: everything docker will say about it.
        const name = a.find((x) => x.startsWith("proctor-eval-"));
        // At `rm` the phase's container still exists (an attached setup's has exited, the agent's runs; the
        // check's removes itself with --rm, and it never had a secret: its argv is checked below).
        if (a[0] === "rm" && name)
          inspects.push(spawnSync("docker", ["inspect", name], { encoding: "utf8" }).stdout);
      },
    });
    const id = runId();
    const ws = await r.prepare(id, undefined);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    const probe = sh('echo "${PROCTOR_TEST_SECRET:-unset}" | md5sum | cut -c1-8');
    const out: string[] = [];
    for (const phase of ["setup", "agent", "check"] as const) {
      const res = await r.runPhase(ws, {
        ...base(id),
        phase,
        argv: probe,
        ...(phase === "agent" ? { secretEnvNames: ["PROCTOR_TEST_SECRET"] } : {}),
      });
      out.push(res.stdout.trim());
    }
    await r.dispose(ws);
    delete process.env.PROCTOR_TEST_SECRET;
    const md5 = (s: string) => spawnSync("md5sum", { input: `${s}\n`, encoding: "utf8" }).stdout.slice(0, 8);
    expect(out).toEqual([md5("unset"), md5(secret), md5("unset")]);
    expect(inspects.length).toBe(2);
    expect(inspects.filter((i) => i.includes(secret) || !i.includes("proctor.run"))).toEqual([]);
    expect(argvs.filter((a) => a.join(" ").includes(secret))).toEqual([]);
    expect(argvs.filter((a) => a.includes("PROCTOR_TEST_SECRET")).map((a) => a[0])).toEqual(["exec"]);
  });
});

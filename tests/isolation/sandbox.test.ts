// Detection (fail closed, with remedies), the exact invocations per mechanism and runner uid, work dir
// preparation, staging host binaries for 65534, and the isolation proof. The escape table is in
// tests/isolation/sandbox/escapes.test.ts.
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ConfigError, UsageError } from "../../lib/core/errors.ts";
import { run } from "../../lib/core/proc.ts";
import {
  accessibleBy,
  DEFAULT_LIMITS,
  type DetectOptions,
  detectSandbox,
  INSTALL_HINT,
  IsolationProofSchema,
  MACOS_PROFILE,
  openProbe,
  prepareWorkDir,
  proveIsolation,
  refusalError,
  type Sandbox,
  type SandboxSpec,
  SUBJECT_ID,
  stageForSubject,
} from "../../lib/isolation/sandbox/index.ts";
import { limitsPrefix } from "../../lib/isolation/sandbox/limits.ts";
import { hostFilter } from "../../lib/isolation/sandbox/seccomp.ts";
import { ETC_BINDS, systemViewArgs } from "../../lib/isolation/sandbox/view.ts";
import { tempDir } from "../support/tmp.ts";

const isRoot = process.getuid?.() === 0;
const required =
  (process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI)) ||
  process.env.IDD_EVAL_REQUIRE_SANDBOX === "1";

/** A directory holding executables named `names` (stand-ins: detection only checks they exist). */
function fakeBin(root: string, names: string[]): string {
  const dir = join(root, "bin");
  mkdirSync(dir, { recursive: true });
  for (const n of names) writeFileSync(join(dir, n), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  return dir;
}

/** A fake /proc with the given user-namespace switches. */
function fakeProc(root: string, switches: Record<string, string>): string {
  const dir = join(root, "proc");
  for (const [rel, value] of Object.entries(switches)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), `${value}\n`);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function mustDetect(opts?: DetectOptions): Promise<Sandbox> {
  const d = await detectSandbox(opts);
  if (!d.ok) throw new Error(`no sandbox: ${d.reason}\nremedy: ${d.remedy}\nin CI run: ${INSTALL_HINT}`);
  return d.sandbox;
}

const real = await detectSandbox();
const realUnshare = await detectSandbox({ prefer: "unshare" });

describe("detectSandbox on this host", () => {
  test("finds a working sandbox (a failure here names the install command when required)", async () => {
    if (!real.ok && !required) return; // a developer machine without a sandbox: escapes skip too
    const sandbox = await mustDetect();
    expect({ mechanism: sandbox.mechanism, uid: sandbox.subjectUid, gid: sandbox.subjectGid }).toEqual({
      mechanism: process.platform === "darwin" ? "sandbox-exec" : "bwrap",
      uid: isRoot ? SUBJECT_ID : null,
      gid: isRoot ? SUBJECT_ID : null,
    });
  });
});

describe("detectSandbox fails closed", () => {
  const failing = async () =>
    "probe exited 1: unshare: write failed /proc/self/uid_map: Operation not permitted";
  const cases: {
    name: string;
    opts: (root: string) => DetectOptions;
    reason: string[];
    remedy: string[];
  }[] = [
    {
      name: "no bwrap and no unshare on the search path",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 1000,
        searchPath: fakeBin(root, []),
        procRoot: fakeProc(root, {}),
      }),
      reason: ["no working Linux sandbox", "bwrap: not installed", "unshare: not installed"],
      remedy: [INSTALL_HINT],
    },
    {
      name: "root without setpriv cannot drop to 65534",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 0,
        searchPath: fakeBin(root, ["bwrap", "unshare"]),
        procRoot: fakeProc(root, {}),
      }),
      reason: ["setpriv (util-linux) was not found"],
      remedy: ["apt-get install -y util-linux"],
    },
    {
      name: "a preferred mechanism that is missing does not fall back",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 1000,
        prefer: "bwrap",
        searchPath: fakeBin(root, ["unshare"]),
        procRoot: fakeProc(root, {}),
        probe: async () => null,
      }),
      reason: ["the requested sandbox bwrap is unavailable", "bwrap: not installed"],
      remedy: [INSTALL_HINT],
    },
    {
      name: "sandbox-exec preferred on Linux",
      opts: () => ({ platform: "linux", prefer: "sandbox-exec" }),
      reason: ["sandbox-exec is macOS only"],
      remedy: [INSTALL_HINT],
    },
    {
      name: "Ubuntu's AppArmor restriction is named with its sysctl",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 1000,
        searchPath: fakeBin(root, ["bwrap", "unshare"]),
        procRoot: fakeProc(root, { "sys/kernel/apparmor_restrict_unprivileged_userns": "1" }),
        probe: failing,
      }),
      reason: [
        "bwrap: probe exited 1",
        "unshare: probe exited 1",
        "kernel.apparmor_restrict_unprivileged_userns=1",
      ],
      remedy: ["sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", INSTALL_HINT],
    },
    {
      name: "Debian's unprivileged_userns_clone=0 is named",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 1000,
        searchPath: fakeBin(root, ["unshare"]),
        procRoot: fakeProc(root, { "sys/kernel/unprivileged_userns_clone": "0" }),
        probe: failing,
      }),
      reason: ["kernel.unprivileged_userns_clone=0"],
      remedy: ["sudo sysctl -w kernel.unprivileged_userns_clone=1"],
    },
    {
      name: "max_user_namespaces=0 is named",
      opts: (root) => ({
        platform: "linux",
        runnerUid: 1000,
        searchPath: fakeBin(root, ["bwrap"]),
        procRoot: fakeProc(root, { "sys/user/max_user_namespaces": "0" }),
        probe: failing,
      }),
      reason: ["user.max_user_namespaces=0"],
      remedy: ["sudo sysctl -w user.max_user_namespaces=15000"],
    },
    {
      name: "macOS as root",
      opts: () => ({ platform: "darwin", runnerUid: 0 }),
      reason: ["refusing to run eval subjects as root on macOS"],
      remedy: ["normal user"],
    },
    {
      name: "macOS without sandbox-exec",
      opts: (root) => ({ platform: "darwin", runnerUid: 501, searchPath: fakeBin(root, []) }),
      reason: ["no supported macOS network sandbox"],
      remedy: ["sandbox-exec"],
    },
    {
      name: "any other OS",
      opts: () => ({ platform: "freebsd" }),
      reason: ["unsupported OS freebsd; refusing unsandboxed eval"],
      remedy: ["Linux"],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using root = tempDir("proctor-sbx-detect");
      const d = await detectSandbox(c.opts(root.path));
      expect(d.ok).toBe(false);
      if (d.ok) return;
      const missing = [
        ...c.reason.filter((r) => !d.reason.includes(r)).map((r) => `reason lacks: ${r}`),
        ...c.remedy.filter((r) => !d.remedy.includes(r)).map((r) => `remedy lacks: ${r}`),
      ];
      expect({ missing, reason: d.reason, remedy: d.remedy }).toEqual({
        missing: [],
        reason: d.reason,
        remedy: d.remedy,
      });
    });
  }

  test("refusalError is a usage error (exit 2) carrying the reason and the remedy", async () => {
    const d = await detectSandbox({ platform: "freebsd" });
    if (d.ok) throw new Error("unreachable");
    const e = refusalError(d);
    expect({ name: e.name, exitCode: e.exitCode, message: e.message }).toEqual({
      name: "UsageError",
      exitCode: 2,
      message:
        "unsupported OS freebsd; refusing unsandboxed eval\n  To fix: run on Linux (bubblewrap) or macOS",
    });
  });

  test("no AppArmor or sysctl text when no switch blocks user namespaces", async () => {
    using root = tempDir("proctor-sbx-detect");
    const d = await detectSandbox({
      platform: "linux",
      runnerUid: 1000,
      searchPath: fakeBin(root.path, ["bwrap"]),
      procRoot: fakeProc(root.path, {
        "sys/kernel/apparmor_restrict_unprivileged_userns": "0",
        "sys/user/max_user_namespaces": "1000",
      }),
      probe: async () => "probe exited 1: bwrap: setting up uid map: Permission denied",
    });
    expect(d.ok ? "ok" : d.remedy.includes("sysctl")).toBe(false);
  });
});

describe("wrap() invocations", () => {
  const spec: SandboxSpec = {
    workDir: "/tmp/w",
    cwd: "/tmp/w/repo",
    env: { PATH: "/w/bin:/usr/bin:/bin", HOME: "/tmp/w/home" },
    command: ["bash", "/tmp/w/case/subject.sh"],
  };
  const bind = { host: "/opt/gh", inside: "/tmp/w/bin/gh" };
  const TOOLS = ["bwrap", "unshare", "setpriv", "sandbox-exec"];
  const drop = (bin: string) => [
    `${bin}/setpriv`,
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
  ];
  // The prefix (run as the runner): rlimits, then the seccomp program opened on fd 3 for bwrap.
  const prefix = limitsPrefix(DEFAULT_LIMITS, hostFilter());
  // biome-ignore format: one flag (and its operands) per line reads like the bwrap man page
  const bwrapTail = (bin: string) => [
    `${bin}/bwrap`,
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...systemViewArgs(),
    "--proc", "/proc",
    "--dev", "/dev",
    "--tmpfs", "/dev/shm",
    "--tmpfs", "/tmp",
    "--tmpfs", "/run",
    "--tmpfs", "/var/tmp",
    "--remount-ro", "/dev",
    "--bind", "/tmp/w", "/tmp/w",
    "--ro-bind", "/opt/gh", "/tmp/w/bin/gh",
    ...(hostFilter() ? ["--seccomp", "3"] : []),
    "--chdir", "/tmp/w/repo",
    "--",
    "bash", "/tmp/w/case/subject.sh",
  ];
  const cases = [
    {
      name: "root runner drops to 65534 before bwrap",
      uid: 0,
      argv: (b: string) => [...prefix, ...drop(b), ...bwrapTail(b)],
      subjectUid: SUBJECT_ID,
    },
    {
      name: "non-root runner runs bwrap directly",
      uid: 1000,
      argv: (b: string) => [...prefix, ...bwrapTail(b)],
      subjectUid: null,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using root = tempDir("proctor-sbx-argv");
      const bin = fakeBin(root.path, TOOLS);
      const sandbox = await mustDetect({
        platform: "linux",
        runnerUid: c.uid,
        searchPath: bin,
        cgroupRoot: join(root.path, "no-cgroups"),
        probe: async () => null,
      });
      const w = sandbox.wrap({ ...spec, roBinds: [bind] });
      expect({ mechanism: sandbox.mechanism, argv: w.argv, env: w.env, uid: sandbox.subjectUid }).toEqual({
        mechanism: "bwrap",
        argv: c.argv(bin),
        env: spec.env,
        uid: c.subjectUid,
      });
    });
  }

  test("unshare: root runner drops first and dies with the runner; stage one gets work dir, cwd, ids, tmpfs size, the /etc list, binds, command", async () => {
    using root = tempDir("proctor-sbx-argv");
    const bin = fakeBin(root.path, TOOLS);
    const sandbox = await mustDetect({
      platform: "linux",
      runnerUid: 0,
      prefer: "unshare",
      searchPath: bin,
      cgroupRoot: join(root.path, "no-cgroups"),
      probe: async () => null,
    });
    const { argv } = sandbox.wrap({ ...spec, roBinds: [bind] });
    const script = argv.lastIndexOf("-c") + 1;
    expect([...argv.slice(0, script), ...argv.slice(script + 1)]).toEqual([
      ...limitsPrefix(DEFAULT_LIMITS, null),
      ...drop(bin).slice(0, -1),
      "--pdeathsig=KILL",
      "--",
      `${bin}/unshare`,
      "--user",
      "--map-root-user",
      "--net",
      "--pid",
      "--ipc",
      "--uts",
      "--mount",
      "--mount-proc",
      "--fork",
      "--kill-child",
      "--",
      "/bin/bash",
      "--norc",
      "--noprofile",
      "-c",
      "proctor-sandbox",
      "/tmp/w",
      "/tmp/w/repo",
      "65534",
      "65534",
      `${bin}/unshare`,
      "1024m",
      ETC_BINDS.join("\n"),
      "1",
      "/opt/gh",
      "/tmp/w/bin/gh",
      "--",
      "bash",
      "/tmp/w/case/subject.sh",
    ]);
  });

  test("sandbox-exec: the deny-network profile, cd into cwd, identity binds only", async () => {
    using root = tempDir("proctor-sbx-argv");
    const bin = fakeBin(root.path, TOOLS);
    const sandbox = await mustDetect({
      platform: "darwin",
      runnerUid: 501,
      searchPath: bin,
      probe: async () => null,
    });
    expect(sandbox.wrap(spec).argv).toEqual([
      `${bin}/sandbox-exec`,
      "-p",
      "(version 1)(allow default)(deny network*)",
      "/bin/sh",
      "-c",
      'cd -- "$1" || exit 126; shift; exec "$@"',
      "sh",
      "/tmp/w/repo",
      "bash",
      "/tmp/w/case/subject.sh",
    ]);
    expect(MACOS_PROFILE).toBe("(version 1)(allow default)(deny network*)");
    expect(() => sandbox.wrap({ ...spec, roBinds: [bind] })).toThrow(UsageError);
    expect(sandbox.wrap({ ...spec, roBinds: [{ host: "/opt/gh", inside: "/opt/gh" }] }).argv[0]).toBe(
      `${bin}/sandbox-exec`,
    );
  });

  const invalid: { name: string; spec: SandboxSpec }[] = [
    { name: "relative workDir", spec: { ...spec, workDir: "w" } },
    { name: "cwd outside workDir", spec: { ...spec, cwd: "/tmp/other" } },
    { name: "empty command", spec: { ...spec, command: [] } },
    { name: "relative bind", spec: { ...spec, roBinds: [{ host: "gh", inside: "/tmp/w/gh" }] } },
    { name: "bad env name", spec: { ...spec, env: { "A=B": "x" } } },
  ];
  for (const c of invalid) {
    test(`refuses a spec with ${c.name}`, async () => {
      using root = tempDir("proctor-sbx-argv");
      const sandbox = await mustDetect({
        platform: "linux",
        runnerUid: 1000,
        searchPath: fakeBin(root.path, TOOLS),
        probe: async () => null,
      });
      expect(() => sandbox.wrap(c.spec)).toThrow(UsageError);
    });
  }
});

// A Sandbox that isolates nothing: what the proof must reject.
const noSandbox: Sandbox = {
  mechanism: "bwrap",
  subjectUid: null,
  subjectGid: null,
  wrap: (spec) => ({ argv: spec.command, env: spec.env }),
};

describe.skipIf(!real.ok && !required)("with the real sandbox", () => {
  const mechanisms = [real, realUnshare].flatMap((d) => (d.ok ? [d.sandbox] : []));

  test.skipIf(!isRoot)("prepareWorkDir hands the tree to 65534 without following links", async () => {
    const sandbox = await mustDetect();
    using work = tempDir("proctor-sbx-prep");
    mkdirSync(join(work.path, "a/b"), { recursive: true });
    writeFileSync(join(work.path, "a/b/f"), "x");
    symlinkSync("/etc/passwd", join(work.path, "a/link"));
    prepareWorkDir(sandbox, work.path);
    const owners = ["", "a", "a/b", "a/b/f", "a/link"].map((p) => lstatSync(join(work.path, p)).uid);
    expect({ owners, passwd: statSync("/etc/passwd").uid }).toEqual({
      owners: Array(5).fill(SUBJECT_ID),
      passwd: 0,
    });
  });

  test.skipIf(!isRoot)("prepareWorkDir refuses a work dir 65534 cannot reach", async () => {
    const sandbox = await mustDetect();
    using closed = tempDir("proctor-sbx-closed");
    chmodSync(closed.path, 0o700);
    mkdirSync(join(closed.path, "w"));
    expect(() => prepareWorkDir(sandbox, join(closed.path, "w"))).toThrow(ConfigError);
  });

  test("prepareWorkDir is a no-op when the subject runs as the runner", () => {
    using work = tempDir("proctor-sbx-prep");
    const before = statSync(work.path).uid;
    prepareWorkDir({ ...noSandbox, subjectUid: null }, work.path);
    expect(statSync(work.path).uid).toBe(before);
  });

  for (const sandbox of mechanisms) {
    test(`${sandbox.mechanism}: a binary staged from an unreadable dir runs inside, bound read-only`, async () => {
      using src = tempDir("proctor-sbx-src");
      using cache = tempDir("proctor-sbx-cache");
      chmodSync(cache.path, 0o755); // mkdtemp makes 0700: 65534 must be able to pass through
      chmodSync(src.path, 0o700);
      const tool = join(src.path, "gh");
      writeFileSync(tool, '#!/bin/sh\necho "shim $*"\n', { mode: 0o755 });
      const staged = stageForSubject(sandbox, tool, join(cache.path, "stage"));
      const again = stageForSubject(sandbox, tool, join(cache.path, "stage"));
      using work = tempDir("proctor-sbx-work");
      mkdirSync(join(work.path, "bin"));
      prepareWorkDir(sandbox, work.path);
      const { argv, env } = sandbox.wrap({
        workDir: work.path,
        cwd: work.path,
        env: { PATH: `${work.path}/bin:/usr/bin:/bin` },
        command: ["/bin/sh", "-c", "gh issue list; /tmp/staged/gh again; echo x > bin/gh || echo read-only"],
        roBinds: [
          { host: staged, inside: join(work.path, "bin/gh") },
          { host: staged, inside: "/tmp/staged/gh" },
        ],
      });
      const r = await run(argv, { env, timeoutMs: 30_000 });
      const uid = sandbox.subjectUid ?? 0;
      expect({
        moved: isRoot ? staged !== tool : staged === tool,
        cached: again === staged,
        readable: accessibleBy(staged, uid, uid, 5),
        same: readFileSync(staged, "utf8") === readFileSync(tool, "utf8"),
        stdout: r.stdout,
        exit: r.exitCode,
      }).toEqual({
        moved: true,
        cached: true,
        readable: true,
        same: true,
        stdout: "shim issue list\nshim again\nread-only\n",
        exit: 0,
      });
    });

    test(`${sandbox.mechanism}: proveIsolation shows every namespace, lo only, uid not 0, egress blocked`, async () => {
      using work = tempDir("proctor-sbx-proof");
      prepareWorkDir(sandbox, work.path);
      const proof = await proveIsolation(sandbox, {
        workDir: work.path,
        cwd: work.path,
        env: { PATH: "/usr/bin:/bin" },
      });
      expect(IsolationProofSchema.parse(proof)).toEqual(proof);
      expect({ ...proof, egress: { ...proof.egress, detail: "" } }).toEqual({
        version: 1,
        mechanism: sandbox.mechanism,
        namespaces: ["user", "net", "pid", "ipc", "mnt"],
        uid: isRoot ? SUBJECT_ID : (process.getuid?.() ?? -1),
        interfaces: ["lo"],
        egress: { target: proof.egress.target, blocked: true, detail: "" },
        confinement: {
          seccomp: sandbox.mechanism === "bwrap",
          pids: String(DEFAULT_LIMITS.pids),
          dataKiB: String(DEFAULT_LIMITS.memoryMiB * 1024),
        },
        ok: true,
        problems: [],
      });
      expect(proof.egress.target).toMatch(/^127\.0\.0\.1:\d+ \(host loopback\)$/);
    });

    test(`${sandbox.mechanism}: the probe runs in the subject's invocation, which cannot forge its report`, async () => {
      using work = tempDir("proctor-sbx-probe-subject");
      prepareWorkDir(sandbox, work.path);
      const spec = { workDir: work.path, cwd: work.path, env: { PATH: "/usr/bin:/bin" } };
      const probe = await openProbe(sandbox, spec);
      // The subject prints a report of its own (no isolation, reached the host, an end line).
      const forged = "ns net:[1]\nuid 0\negress-begin\nCONNECTED\negress-end\nproctor-probe-end 00\n";
      const body = `printf '%s' '${forged}'; readlink /proc/self/ns/net`;
      const { argv, env } = sandbox.wrap({ ...spec, command: probe.command(["/bin/sh", "-c", body]) });
      const v = probe.judge(await run(argv, { env, timeoutMs: 30_000 }));
      const netInside = v.stdout.slice(forged.length).trim();
      expect({
        ok: v.proof.ok,
        started: v.started,
        uid: v.proof.uid,
        forged: v.stdout.startsWith(forged),
        isolatedNet: /^net:\[\d+\]$/.test(netInside) && netInside !== readlinkSync("/proc/self/ns/net"),
        markLeft: existsSync(join(work.path, ".proctor-sandbox-probe")),
      }).toEqual({
        ok: true,
        started: true,
        uid: isRoot ? SUBJECT_ID : (process.getuid?.() ?? -1),
        forged: true,
        isolatedNet: true,
        markLeft: false,
      });
    });

    test(`${sandbox.mechanism}: a sandbox whose wrap() does not apply the filter or limits it promises never starts the subject`, async () => {
      using work = tempDir("proctor-sbx-promise");
      prepareWorkDir(sandbox, work.path);
      const promising: Sandbox = {
        ...sandbox,
        confinement: { seccomp: true, limits: { pids: 77, memoryMiB: 600 }, cgroups: null },
      };
      const spec = { workDir: work.path, cwd: work.path, env: { PATH: "/usr/bin:/bin" } };
      const probe = await openProbe(promising, spec);
      const { argv, env } = promising.wrap({ ...spec, command: probe.command(["/bin/echo", "SUBJECT-RAN"]) });
      const v = probe.judge(await run(argv, { env, timeoutMs: 30_000 }));
      const pids = DEFAULT_LIMITS.pids;
      const data = DEFAULT_LIMITS.memoryMiB * 1024;
      expect({
        ok: v.proof.ok,
        started: v.started,
        ran: v.stdout.includes("SUBJECT-RAN"),
        problems: v.proof.problems,
      }).toEqual({
        ok: false,
        started: false,
        ran: false,
        problems: [
          ...(sandbox.mechanism === "bwrap" ? [] : ["the seccomp filter was not in force"]),
          `limits not in force: processes ${pids} (want 77), data ${data} KiB (want ${600 * 1024})`,
        ],
      });
    });
  }

  test("a probe that never finishes its report starts nothing and proves nothing", async () => {
    using work = tempDir("proctor-sbx-proof");
    // Stands in for a sandbox that breaks the probe: the command never runs, only a partial report.
    const broken: Sandbox = {
      ...noSandbox,
      wrap: (spec) => ({ argv: ["/bin/sh", "-c", "echo uid 1000; exit 3"], env: spec.env }),
    };
    const spec = { workDir: work.path, cwd: work.path, env: { PATH: "/usr/bin:/bin" } };
    const probe = await openProbe(broken, spec);
    const { argv, env } = broken.wrap({ ...spec, command: probe.command(["/bin/true"]) });
    const v = probe.judge(await run(argv, { env }));
    expect({ started: v.started, ok: v.proof.ok, stdout: v.stdout, first: v.proof.problems?.[0] }).toEqual({
      started: false,
      ok: false,
      stdout: "uid 1000\n",
      first: "probe did not finish (exited 3): ",
    });
  });

  test.skipIf(process.platform !== "linux")("proveIsolation rejects a run without isolation", async () => {
    using work = tempDir("proctor-sbx-proof");
    const proof = await proveIsolation(noSandbox, {
      workDir: work.path,
      cwd: work.path,
      env: { PATH: "/usr/bin:/bin" },
    });
    const expected = [
      ...(isRoot ? ["the subject runs as uid 0"] : []),
      "egress not shown blocked: the probe reached the host's loopback server",
      "not in a new user namespace",
      "not in a new net namespace",
      "not in a new pid namespace",
      "not in a new ipc namespace",
      "not in a new mnt namespace",
    ];
    expect({
      ok: proof.ok,
      blocked: proof.egress.blocked,
      namespaces: proof.namespaces,
      problems: proof.problems?.filter((p) => !p.startsWith("interfaces")),
    }).toEqual({
      ok: false,
      blocked: false,
      namespaces: [],
      problems: expected,
    });
  });

  test("stageForSubject refuses a cache root others can write", () => {
    using cache = tempDir("proctor-sbx-cache");
    chmodSync(cache.path, 0o777);
    using src = tempDir("proctor-sbx-src");
    chmodSync(src.path, 0o700);
    writeFileSync(join(src.path, "gh"), "#!/bin/sh\n", { mode: 0o755 });
    const sandbox = { ...noSandbox, subjectUid: SUBJECT_ID, subjectGid: SUBJECT_ID };
    expect(() => stageForSubject(sandbox, join(src.path, "gh"), cache.path)).toThrow(ConfigError);
  });
});

describe.skipIf(!real.ok && !required)("a non-root runner", () => {
  // Run as root, the suite also drives the whole non-root path for real: a bundle of lib/isolation/sandbox/index.ts,
  // run by a staged copy of this bun as uid 65534 (HOME that does not exist), detects, proves and
  // runs a subject. No setpriv is involved, so the subject keeps the runner's uid.
  test("detects without dropping privileges, proves isolation and runs a subject as itself", async () => {
    const sandbox = await mustDetect();
    if (!isRoot) {
      expect({ uid: sandbox.subjectUid, gid: sandbox.subjectGid }).toEqual({ uid: null, gid: null });
      return;
    }
    using dir = tempDir("proctor-sbx-nonroot");
    chmodSync(dir.path, 0o755);
    mkdirSync(join(dir.path, "ws"));
    chownSync(join(dir.path, "ws"), SUBJECT_ID, SUBJECT_ID); // the 65534 runner's own temp space
    const repo = join(import.meta.dirname, "..", "..");
    const entry = join(dir.path, "entry.ts");
    writeFileSync(
      entry,
      `import { mkdtempSync, rmSync, statSync } from "node:fs";
import { detectSandbox, proveIsolation } from ${JSON.stringify(join(repo, "lib/isolation/sandbox/index.ts"))};
import { run } from ${JSON.stringify(join(repo, "lib/core/proc.ts"))};
const out = [];
for (const prefer of ${JSON.stringify(realUnshare.ok ? ["bwrap", "unshare"] : ["bwrap"])}) {
  const d = await detectSandbox({ prefer });
  if (!d.ok) { out.push({ prefer, reason: d.reason }); continue; }
  const w = mkdtempSync(${JSON.stringify(join(dir.path, "ws", "w-"))});
  try {
    const proof = await proveIsolation(d.sandbox, { workDir: w, cwd: w, env: { PATH: "/usr/bin:/bin" } });
    const { argv, env } = d.sandbox.wrap({ workDir: w, cwd: w, env: { PATH: "/usr/bin:/bin" }, command: ["/bin/sh", "-c", "echo x > made; id -u"] });
    const r = await run(argv, { env });
    if (r.exitCode !== 0) console.error(JSON.stringify(r));
    out.push({ prefer, subjectUid: d.sandbox.subjectUid, problems: proof.problems, ok: proof.ok, inside: r.stdout.trim(), owner: statSync(w + "/made").uid });
  } finally {
    rmSync(w, { recursive: true, force: true });
  }
}
console.log(JSON.stringify(out));
`,
    );
    const bundle = join(dir.path, "entry.js");
    const built = await run([process.execPath, "build", entry, "--target=bun", `--outfile=${bundle}`]);
    expect(built.exitCode).toBe(0);
    chmodSync(bundle, 0o644);
    const staged = { ...noSandbox, subjectUid: SUBJECT_ID, subjectGid: SUBJECT_ID };
    using cache = tempDir("proctor-sbx-bun");
    chmodSync(cache.path, 0o755);
    const bun = stageForSubject(staged, process.execPath, join(cache.path, "stage"));
    const r = await run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", bun, bundle], {
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/nonexistent", TMPDIR: "/tmp" },
      cwd: dir.path,
      timeoutMs: 60_000,
    });
    const expected = (realUnshare.ok ? ["bwrap", "unshare"] : ["bwrap"]).map((prefer) => ({
      prefer,
      subjectUid: null,
      problems: [],
      ok: true,
      inside: String(SUBJECT_ID),
      owner: SUBJECT_ID,
    }));
    expect({ exit: r.exitCode, stderr: r.stderr, results: JSON.parse(r.stdout || "null") }).toEqual({
      exit: 0,
      stderr: "",
      results: expected,
    });
  });
});

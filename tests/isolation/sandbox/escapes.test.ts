// The escape table: real subjects run through wrap(), each trying one way out. Every row asserts the
// escape failed AND a control showing the same method works without the sandbox (where that is safe;
// nothing here sends a packet outside loopback), so a broken sandbox makes the row fail.
import { describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer, type Server } from "node:net";
import { homedir, networkInterfaces, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ProcResult, run } from "../../../lib/core/proc.ts";
import {
  accessibleBy,
  detectSandbox,
  INSTALL_HINT,
  prepareWorkDir,
  type Sandbox,
  type SandboxDetection,
  SUBJECT_ID,
  type SubjectLimits,
} from "../../../lib/isolation/sandbox/index.ts";
import { tempDir } from "../../support/tmp.ts";

const REPO = resolve(import.meta.dirname, "..", "..", "..");
const required = isSet(process.env.CI) || process.env.IDD_EVAL_REQUIRE_SANDBOX === "1";

function isSet(v: string | undefined): boolean {
  return v !== undefined && v !== "" && v !== "0" && v !== "false";
}

/** What a row sets up on the host, the subject script, and how to judge it. */
interface Plan {
  /** bash, run as the subject inside the sandbox. */
  script: string;
  /** Extra subject environment (the subject gets PATH and HOME besides). */
  env?: Record<string, string>;
  /** Did the subject get out? Called right after the subject ends. */
  escaped(r: ProcResult): boolean | Promise<boolean>;
  /** Does the same method work without the sandbox? Called after escaped(). */
  control(): boolean | Promise<boolean>;
  cleanup(): void | Promise<void>;
}

interface Escape {
  id: string;
  attempt: string;
  /** Rows that need bwrap's seccomp filter (the unshare fallback has none). */
  only?: "bwrap";
  /** Whether the attempt is expected to get through (default: never); for a documented gap only. */
  gets?: (sandbox: Sandbox) => boolean;
  plan(sandbox: Sandbox, workDir: string): Promise<Plan>;
}

// ---- host-side helpers -------------------------------------------------------------------------

const nonce = () => randomBytes(6).toString("hex");
const BASH = "/bin/bash";
const HOST_ENV = { PATH: "/usr/bin:/bin" };

/** argv prefix that runs a host command with the subject's credentials (outside any sandbox). */
function asSubject(sandbox: Sandbox): string[] {
  if (sandbox.subjectUid === null) return [];
  return [
    "setpriv",
    `--reuid=${sandbox.subjectUid}`,
    `--regid=${sandbox.subjectGid}`,
    "--clear-groups",
    "--",
  ];
}

function listening(server: Server, ...args: unknown[]): Promise<void> {
  return new Promise((res, rej) => {
    server.once("error", rej);
    (server.listen as (...a: unknown[]) => void)(...args, () => res());
  });
}

async function tcpServer(host = "127.0.0.1") {
  let accepted = 0;
  const server = createNetServer((s) => {
    accepted++;
    s.destroy();
  });
  await listening(server, 0, host);
  const addr = server.address();
  return {
    port: typeof addr === "object" && addr ? addr.port : 0,
    accepted: () => accepted,
    close: () => server.close(),
  };
}

/** This machine's first non-loopback IPv4 address (a target that never leaves the machine). */
function hostAddress(): string {
  const a = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === "IPv4" && !i.internal);
  if (!a) throw new Error("The escape table needs a non-loopback IPv4 interface on this machine");
  return a.address;
}

/** Bounded poll: resolves true as soon as cond() holds, false after ~3 s. */
async function eventually(cond: () => boolean): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
}

function hostProcessesMatching(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) pids.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** A directory anyone may write to, so only the sandbox stands between the subject and it. */
function openDir(parent: string, prefix: string): string {
  const dir = mkdtempSync(join(parent, prefix));
  chmodSync(dir, 0o777);
  return dir;
}

/** Small limits for the table, so a fork bomb here never crowds other 65534 processes on the host. */
const TEST_LIMITS: SubjectLimits = { pids: 256, memoryMiB: 256 };

/** A world-readable file in a folder the test makes on the host, outside /tmp, /home and /root. */
function hostFolder(): string {
  const parent =
    process.getuid?.() === 0 && existsSync("/opt") ? "/opt" : join(REPO, "tests/fixtures/sandbox");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, ".proctor-sbx-host-"));
  chmodSync(dir, 0o755);
  return dir;
}

/** True when the subject's uid can read `path` on the host (then only the sandbox stands in the way). */
async function readableOutside(sandbox: Sandbox, path: string, text: string): Promise<boolean> {
  const uid = sandbox.subjectUid ?? -1;
  const as = sandbox.subjectUid === null || accessibleBy(path, uid, uid, 4) ? asSubject(sandbox) : [];
  return (await run([...as, "/usr/bin/cat", path], { env: HOST_ENV })).stdout.includes(text);
}

// Python through ctypes: one system call the seccomp filter refuses, with arguments that make it
// succeed where nothing refuses it. Prints OK or ERR <errno>.
const SYSCALL_PY = `import ctypes, os, sys, platform, struct
libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": {"io_uring_setup": 425, "bpf": 321, "userfaultfd": 323, "keyctl": 250, "perf_event_open": 298, "mount": 165},
      "aarch64": {"io_uring_setup": 425, "bpf": 280, "userfaultfd": 282, "keyctl": 219, "perf_event_open": 241, "mount": 40}}[platform.machine()]
L = ctypes.c_long
buf = ctypes.create_string_buffer(256)
name = sys.argv[1]
if name == "io_uring_setup": args = (L(1), buf)
elif name == "bpf": struct.pack_into("IIII", buf, 0, 2, 4, 4, 1); args = (L(0), buf, L(72))
elif name == "userfaultfd": args = (L(1 | os.O_CLOEXEC),)
elif name == "keyctl": args = (L(0), L(-2), L(1))
elif name == "perf_event_open": struct.pack_into("IIQ", buf, 0, 1, 128, 1); struct.pack_into("Q", buf, 40, 96); args = (buf, L(0), L(-1), L(-1), L(0))
else: args = (b"none", sys.argv[2].encode(), b"tmpfs", L(0), None)
r = libc.syscall(L(NR[name]), *args)
print("OK" if r >= 0 else "ERR %d" % ctypes.get_errno())
`;

// PTRACE_ATTACH to the targets named: "child" (a child it forks) and "init" (the sandbox's pid 1).
const PTRACE_PY = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(w); os.read(r, 1); os._exit(0)
for t in sys.argv[1:]:
    rc = libc.ptrace(16, 1 if t == "init" else child, None, None)
    print(t, "OK" if rc == 0 else "ERR %d" % ctypes.get_errno())
os.kill(child, 9)
`;

// Three children each allocate and touch MIB MiB and hold it; prints how many held it at once (a
// child the OOM killer ends counts as not holding). Bounded: gives up after ~30 s of polling.
const SUM_PY = `import os, select
n, k = int(os.environ["MIB"]), 3
r, w = os.pipe()
r2, w2 = os.pipe()
kids = []
for i in range(k):
    pid = os.fork()
    if pid == 0:
        os.close(w); os.close(r2)
        try:
            b = b"x" * (n << 20)
            os.write(w2, b"1")
        except MemoryError:
            os.write(w2, b"0")
        os.read(r, 1); os._exit(0)
    kids.append(pid)
os.close(w2)
held = dead = 0
for _ in range(300):
    if held + dead >= k:
        break
    if select.select([r2], [], [], 0.1)[0]:
        c = os.read(r2, 1)
        held += c == b"1"
        dead += c == b"0"
    for pid in list(kids):
        if os.waitpid(pid, os.WNOHANG)[0]:
            kids.remove(pid); dead += 1
print("held", held)
`;

// Forks up to N children that wait on a pipe (they end with the parent); prints how many it got.
const FORK_PY = `import os
r, w = os.pipe()
n = 0
for i in range(int(os.environ["N"])):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(w); os.read(r, 1); os._exit(0)
    n += 1
print("forked", n)
`;

/** One row per refused system call: fails inside, succeeds outside (mount: in the runner's own namespace). */
function syscallRow(call: string): Escape {
  return {
    id: `seccomp-${call}`,
    attempt: `${call} with arguments that succeed unsandboxed (seccomp answers EPERM)`,
    only: "bwrap",
    async plan(_sandbox, workDir) {
      const target = join(workDir, "mnt");
      mkdirSync(target, { recursive: true });
      const control = mkdtempSync(join(tmpdir(), "proctor-sbx-mnt-"));
      const script = `python3 -c "$PY" ${call} "$T"`;
      return {
        script,
        env: { PY: SYSCALL_PY, T: target },
        escaped: (r) => r.stdout.trim() !== "ERR 1",
        control: async () => {
          const host = call === "mount" ? ["unshare", "-Urm"] : [];
          const r = await run([...host, "python3", "-c", SYSCALL_PY, call, control], { env: HOST_ENV });
          return r.stdout.trim() === "OK";
        },
        cleanup: () => rmSync(control, { recursive: true, force: true }),
      };
    },
  };
}

// ---- the table -----------------------------------------------------------------------------------

const ESCAPES: Escape[] = [
  {
    id: "tcp-host-loopback",
    attempt: "connect to a TCP server the test started on the host's 127.0.0.1",
    async plan() {
      const srv = await tcpServer();
      const script = 'exec 3<>"/dev/tcp/127.0.0.1/$PORT" && echo CONNECTED';
      const env = { PORT: String(srv.port) };
      return {
        script,
        env,
        escaped: (r) => r.stdout.includes("CONNECTED") || srv.accepted() > 0,
        control: async () =>
          (await run([BASH, "-c", script], { env: { ...HOST_ENV, ...env } })).stdout.includes("CONNECTED"),
        cleanup: () => void srv.close(),
      };
    },
  },
  {
    id: "http-host-localhost",
    attempt: "HTTP GET to a node:http server on the host, by the name localhost",
    async plan() {
      let requests = 0;
      const server = createHttpServer((_req, res) => {
        requests++;
        res.end("reached");
      });
      await listening(server, 0, "127.0.0.1");
      const addr = server.address();
      const env = { PORT: String(typeof addr === "object" && addr ? addr.port : 0) };
      const script =
        'exec 3<>"/dev/tcp/localhost/$PORT" && printf "GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n" >&3 && cat <&3';
      return {
        script,
        env,
        escaped: (r) => r.stdout.includes("reached") || requests > 0,
        control: async () =>
          (await run([BASH, "-c", script], { env: { ...HOST_ENV, ...env } })).stdout.includes("reached"),
        cleanup: () => void server.close(),
      };
    },
  },
  {
    id: "dns-udp-host",
    attempt: "send a DNS query over UDP to a resolver the test runs on the host's 127.0.0.1",
    async plan() {
      const got: string[] = [];
      const sock = createSocket("udp4");
      sock.on("message", (m) => got.push(m.toString("latin1")));
      await new Promise<void>((r) => sock.bind(0, "127.0.0.1", () => r()));
      const port = sock.address().port;
      const script =
        'printf "\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01" ' +
        '> "/dev/udp/127.0.0.1/$PORT" && echo SENT';
      const env = { PORT: String(port) };
      return {
        script,
        env,
        async escaped() {
          // Flush: a sentinel sent now arrives after anything the subject sent before it ended.
          const flush = createSocket("udp4");
          flush.send("sentinel", port, "127.0.0.1", () => flush.close());
          await eventually(() => got.includes("sentinel"));
          return got.some((m) => m.includes("example"));
        },
        async control() {
          const before = got.length;
          await run([BASH, "-c", script], { env: { ...HOST_ENV, ...env } });
          return eventually(() => got.slice(before).some((m) => m.includes("example")));
        },
        cleanup: () => void sock.close(),
      };
    },
  },
  {
    id: "interface-out",
    attempt: "find a way out for a name lookup or a connection: any interface but lo in the sandbox",
    async plan() {
      // No public name is looked up and no address beyond this machine is tried: such a probe would
      // send packets off the machine the day isolation broke. With lo alone there is no route out.
      const script =
        "{ read -r; read -r; while IFS=': ' read -r n _; do echo \"IF:$n\"; done; } </proc/net/dev";
      const names = (r: ProcResult) => r.stdout.split("\n").filter((l) => l.startsWith("IF:"));
      return {
        script,
        escaped: (r) => names(r).join(" ") !== "IF:lo",
        control: async () =>
          names(await run([BASH, "-c", script], { env: HOST_ENV })).some((n) => n !== "IF:lo"),
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "reach-host-address",
    attempt: "connect to a TCP server the test started on the host's own non-loopback address",
    async plan() {
      const addr = hostAddress();
      const srv = await tcpServer(addr);
      const script = '(exec 3<>"/dev/tcp/$ADDR/$P" && echo CONNECTED) 2>&1';
      const env = { ADDR: addr, P: String(srv.port) };
      return {
        script,
        env,
        escaped: (r) =>
          r.stdout.includes("CONNECTED") ||
          srv.accepted() > 0 ||
          !r.stdout.includes("Network is unreachable"),
        // The same connection from the host: the address is this machine's own, so nothing leaves it.
        control: async () =>
          (await run([BASH, "-c", script], { env: { ...HOST_ENV, ...env } })).stdout.includes("CONNECTED"),
        cleanup: () => void srv.close(),
      };
    },
  },
  {
    id: "write-case-dir",
    attempt: "write into a case directory in the repository (mode 0777: only the sandbox protects it)",
    async plan(sandbox) {
      mkdirSync(join(REPO, "tests/fixtures/sandbox"), { recursive: true });
      const caseDir = openDir(join(REPO, "tests/fixtures/sandbox"), ".case-");
      const mark = join(caseDir, "escaped");
      return {
        script: `echo x > "$CASE/escaped"; echo x >> "$CASE/case.json"`,
        env: { CASE: caseDir },
        escaped: () => existsSync(mark) || existsSync(join(caseDir, "case.json")),
        control: async () => {
          // As the subject's uid when it can reach the repository (then only the sandbox stopped it),
          // else as the runner (a checkout under /root: the uid alone already keeps 65534 out).
          const uid = sandbox.subjectUid ?? -1;
          const reachable = sandbox.subjectUid === null || accessibleBy(caseDir, uid, uid, 3);
          const as = reachable ? asSubject(sandbox) : [];
          await run([...as, BASH, "-c", `echo x > "${caseDir}/control"`], { env: HOST_ENV });
          return existsSync(join(caseDir, "control"));
        },
        cleanup: () => rmSync(caseDir, { recursive: true, force: true }),
      };
    },
  },
  {
    id: "write-repository",
    attempt: "create files in the repository root and its .git directory",
    async plan() {
      const n = nonce();
      const marks = [join(REPO, `.proctor-escape-${n}`), join(REPO, ".git", `proctor-escape-${n}`)];
      return {
        script: 'touch "$REPO/.proctor-escape-$N"; mkdir "$REPO/.git/proctor-escape-$N"',
        env: { REPO, N: n },
        escaped: () => marks.some((m) => existsSync(m)),
        control: () => {
          const probe = join(REPO, `.proctor-control-${n}`);
          writeFileSync(probe, "");
          const ok = existsSync(probe);
          rmSync(probe, { force: true });
          return ok;
        },
        cleanup: () => {
          for (const m of marks) rmSync(m, { recursive: true, force: true });
        },
      };
    },
  },
  {
    id: "write-host-home",
    attempt: "write into the host's HOME (a 0777 directory there, and HOME itself)",
    async plan() {
      const dir = openDir(homedir(), ".proctor-sbx-");
      const n = nonce();
      const marks = [join(dir, "escaped"), join(homedir(), `.proctor-escape-${n}`)];
      return {
        script: 'echo x > "$DIR/escaped"; echo x > "$HOSTHOME/.proctor-escape-$N"',
        env: { DIR: dir, HOSTHOME: homedir(), N: n },
        escaped: () => marks.some((m) => existsSync(m)),
        control: () => {
          writeFileSync(join(dir, "control"), "");
          return existsSync(join(dir, "control"));
        },
        cleanup: () => {
          rmSync(dir, { recursive: true, force: true });
          rmSync(marks[1]!, { force: true });
        },
      };
    },
  },
  {
    id: "read-home-secret",
    attempt: "read a secrets file in the runner's HOME (like ~/.config/gh/hosts.yml)",
    async plan() {
      const dir = openDir(homedir(), ".proctor-sbx-");
      const secret = `gho_secret_${nonce()}`;
      writeFileSync(join(dir, "hosts.yml"), `oauth_token: ${secret}\n`, { mode: 0o644 });
      return {
        script: 'cat "$FILE"',
        env: { FILE: join(dir, "hosts.yml") },
        escaped: (r) => r.stdout.includes(secret),
        control: () => readFileSync(join(dir, "hosts.yml"), "utf8").includes(secret),
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    id: "read-root-only",
    attempt: "read /etc/shadow and list /root",
    async plan() {
      const rootEntries = process.getuid?.() === 0 ? readdirSync("/root") : [];
      return {
        script: "cat /etc/shadow; ls -A /root",
        escaped: (r) =>
          r.stdout.includes("root:") || rootEntries.some((e) => r.stdout.split("\n").includes(e)),
        control: () =>
          process.getuid?.() === 0
            ? readFileSync("/etc/shadow", "utf8").includes("root:")
            : existsSync("/etc/shadow"),
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "inherit-secrets",
    attempt: "read GH_TOKEN, GITHUB_TOKEN and proxy variables the runner's parent had",
    async plan() {
      const secret = `secret-${nonce()}`;
      const names = ["GH_TOKEN", "GITHUB_TOKEN", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "GIT_DIR"];
      const saved = names.map((n) => [n, process.env[n]] as const);
      for (const n of names) process.env[n] = `${secret}-${n}`;
      return {
        script: "env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null",
        escaped: (r) => r.stdout.includes(secret),
        control: async () => (await run(["/usr/bin/env"])).stdout.includes(`${secret}-GH_TOKEN`),
        cleanup: () => {
          for (const [n, v] of saved) {
            if (v === undefined) delete process.env[n];
            else process.env[n] = v;
          }
        },
      };
    },
  },
  {
    id: "host-gh",
    attempt: "call a real gh placed first on the runner's PATH",
    async plan() {
      const binDir = openDir(tmpdir(), "proctor-sbx-gh-");
      const marker = join(binDir, "gh-ran");
      writeFileSync(join(binDir, "gh"), `#!/bin/sh\necho FAKE-GH-RAN\ntouch "${marker}"\n`, { mode: 0o755 });
      chmodSync(join(binDir, "gh"), 0o755);
      const savedPath = process.env.PATH;
      process.env.PATH = `${binDir}:${savedPath ?? ""}`;
      return {
        script: "gh api user; command -v gh && echo FOUND",
        escaped: (r) => r.stdout.includes("FAKE-GH-RAN") || r.stdout.includes("FOUND") || existsSync(marker),
        control: async () => {
          await run(["sh", "-c", "gh api user"]);
          return existsSync(marker);
        },
        cleanup: () => {
          process.env.PATH = savedPath;
          rmSync(binDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    id: "signal-runner",
    attempt: "signal the runner and a host process of the subject's own uid (kill -0)",
    async plan(sandbox) {
      const cmd = [...asSubject(sandbox), "sleep", "1000"];
      const victim: ChildProcess = spawn(cmd[0]!, cmd.slice(1), { stdio: "ignore" });
      const env = { VICTIM: String(victim.pid), RUNNER: String(process.pid) };
      const script = 'kill -0 "$VICTIM" && echo SIGNALLED-VICTIM; kill -0 "$RUNNER" && echo SIGNALLED-RUNNER';
      return {
        script,
        env,
        escaped: (r) => r.stdout.includes("SIGNALLED"),
        control: async () =>
          (
            await run([...asSubject(sandbox), BASH, "-c", script], { env: { ...HOST_ENV, ...env } })
          ).stdout.includes("SIGNALLED-VICTIM"),
        cleanup: () => {
          victim.kill("SIGKILL");
        },
      };
    },
  },
  {
    id: "leave-process",
    attempt: "leave background processes running after the case ends (&, nohup, setsid -f)",
    async plan() {
      const tag = `9${Math.floor(Math.random() * 1e6)}.${Math.floor(Math.random() * 1e6)}`;
      const ctag = `8${Math.floor(Math.random() * 1e6)}.${Math.floor(Math.random() * 1e6)}`;
      return {
        script:
          'sleep "$TAG" & nohup sleep "$TAG" >/dev/null 2>&1 & disown; setsid -f sleep "$TAG" >/dev/null 2>&1; echo started',
        env: { TAG: tag },
        escaped: async (r) => {
          if (!r.stdout.includes("started")) return true; // the attempt itself must have run
          const gone = await eventually(() => hostProcessesMatching(tag).length === 0);
          return !gone;
        },
        control: async () => {
          await run([BASH, "-c", `setsid -f sleep ${ctag} >/dev/null 2>&1`], { env: HOST_ENV });
          return eventually(() => hostProcessesMatching(ctag).length > 0);
        },
        cleanup: () => killAll([...hostProcessesMatching(tag), ...hostProcessesMatching(ctag)]),
      };
    },
  },
  {
    id: "become-root",
    attempt: "become root: sudo, su, and the uid and capabilities the subject holds",
    async plan() {
      const script =
        "id -u; timeout 5 sudo -n id -u 2>&1; timeout 5 su -c 'id -u' root </dev/null 2>&1; grep CapEff /proc/self/status";
      return {
        script,
        escaped: (r) => {
          const lines = r.stdout.split("\n").map((l) => l.trim());
          const firstUid = lines[0] ?? "";
          const cap = lines.find((l) => l.startsWith("CapEff:")) ?? "CapEff: missing";
          return !/^\d+$/.test(firstUid) || lines.includes("0") || !/^CapEff:\s+0+$/.test(cap);
        },
        control: async () =>
          (await run([BASH, "-c", "id -u"], { env: HOST_ENV })).stdout.trim() === String(process.getuid?.()),
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "host-unix-socket",
    attempt:
      "connect to a host unix socket where services keep theirs (/run; 0777, so only the sandbox protects it)",
    async plan(sandbox) {
      const parent = process.getuid?.() === 0 ? "/run" : (process.env.XDG_RUNTIME_DIR ?? tmpdir());
      const dir = openDir(parent, "proctor-sbx-");
      const path = join(dir, "s.sock");
      let accepted = 0;
      const server = createNetServer((s) => {
        accepted++;
        s.destroy();
      });
      await listening(server, path);
      chmodSync(path, 0o777);
      const script =
        '/usr/bin/python3 -c \'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("CONNECTED")\' "$SOCK"';
      const env = { SOCK: path };
      return {
        script,
        env,
        escaped: (r) => r.stdout.includes("CONNECTED") || accepted > 0,
        control: async () =>
          (
            await run([...asSubject(sandbox), BASH, "-c", script], { env: { ...HOST_ENV, ...env } })
          ).stdout.includes("CONNECTED"),
        cleanup: () => {
          server.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    id: "write-shared-tmp",
    attempt: "leave a file in the host's shared /tmp or /dev/shm for a later case or process",
    async plan(sandbox) {
      const n = nonce();
      const dirs = ["/tmp", "/dev/shm"].filter((d) => existsSync(d));
      const marks = dirs.map((d) => join(d, `proctor-escape-${n}`));
      const cmarks = dirs.map((d) => join(d, `proctor-control-${n}`));
      return {
        script: 'for d in /tmp /dev/shm; do echo x > "$d/proctor-escape-$N"; done',
        env: { N: n },
        escaped: () => marks.some((m) => existsSync(m)),
        control: async () => {
          const script = cmarks.map((m) => `echo x > ${m}`).join("; ");
          await run([...asSubject(sandbox), BASH, "-c", script], { env: HOST_ENV });
          return cmarks.every((m) => existsSync(m));
        },
        cleanup: () => {
          for (const m of [...marks, ...cmarks]) rmSync(m, { force: true });
        },
      };
    },
  },
  {
    id: "fork-bomb",
    attempt: `fork 2,000 processes (bounded by RLIMIT_NPROC ${TEST_LIMITS.pids} for the subject's uid)`,
    async plan(sandbox, workDir) {
      return {
        script: 'python3 -c "$PY"',
        env: { PY: FORK_PY, N: "2000" },
        escaped: (r) => {
          const n = Number(/forked (\d+)/.exec(r.stdout)?.[1] ?? "-1");
          return n < 0 || n >= TEST_LIMITS.pids;
        },
        // A harmless version inside: 32 children are fine.
        control: async () =>
          (await inSandbox(sandbox, workDir, 'python3 -c "$PY"', { PY: FORK_PY, N: "32" })).stdout.trim() ===
          "forked 32",
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "memory-hog",
    attempt: `allocate and touch 2 GiB in one process (RLIMIT_DATA ${TEST_LIMITS.memoryMiB} MiB)`,
    async plan(sandbox, workDir) {
      const script =
        "python3 -c \"import os; b = bytearray(int(os.environ['MIB']) << 20); print('ALLOCATED')\"";
      return {
        script,
        env: { MIB: "2048" },
        escaped: (r) => r.stdout.includes("ALLOCATED"),
        control: async () =>
          (await inSandbox(sandbox, workDir, script, { MIB: "64" })).stdout.trim() === "ALLOCATED",
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "memory-sum",
    attempt: `hold 3 x 200 MiB at once in three processes, each under RLIMIT_DATA (the sum is over ${TEST_LIMITS.memoryMiB} MiB)`,
    // rlimits bound each process only: without a writable cgroup (not root) the sum gets through.
    gets: (sandbox) => !sandbox.confinement?.cgroups,
    async plan(sandbox, workDir) {
      return {
        script: 'python3 -c "$PY"',
        env: { PY: SUM_PY, MIB: "200" },
        escaped: (r) => r.stdout.trim() === "held 3",
        // A harmless version inside: three processes of 16 MiB hold it together.
        control: async () =>
          (await inSandbox(sandbox, workDir, 'python3 -c "$PY"', { PY: SUM_PY, MIB: "16" })).stdout.trim() ===
          "held 3",
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "tmpfs-hog",
    attempt: `write past the ${TEST_LIMITS.memoryMiB} MiB cap in each private tmpfs (/tmp, /var/tmp, /run, /dev/shm), and in /dev`,
    async plan(sandbox, workDir) {
      const script =
        'for d in /tmp /var/tmp /run /dev/shm; do head -c "$SIZE" /dev/zero > "$d/fill" 2>/dev/null; stat -c "%s" "$d/fill"; rm -f "$d/fill"; done; touch /dev/fill 2>/dev/null && echo DEV';
      return {
        script,
        env: { SIZE: String((TEST_LIMITS.memoryMiB + 16) << 20) },
        escaped: (r) => {
          // A size over the cap, or /dev written. A writer the memory cgroup killed (root runners)
          // prints no size: that is the cap holding too (the control shows the writes themselves work).
          const lines = r.stdout
            .trim()
            .split("\n")
            .filter((l) => l !== "");
          return lines.some((l) => !/^\d+$/.test(l) || Number(l) > TEST_LIMITS.memoryMiB << 20);
        },
        control: async () =>
          (await inSandbox(sandbox, workDir, script, { SIZE: String(1 << 20) })).stdout ===
          `${"1048576\n".repeat(4)}`,
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "ptrace",
    attempt: "PTRACE_ATTACH to its own child and to the sandbox's init (pid 1), which once hung the runner",
    only: "bwrap",
    async plan() {
      return {
        script: 'python3 -c "$PY" child init',
        env: { PY: PTRACE_PY },
        escaped: (r) => r.stdout !== "child ERR 1\ninit ERR 1\n",
        control: async () =>
          (await run(["python3", "-c", PTRACE_PY, "child"], { env: HOST_ENV })).stdout === "child OK\n",
        cleanup: () => undefined,
      };
    },
  },
  ...["io_uring_setup", "bpf", "userfaultfd", "keyctl", "perf_event_open", "mount"].map(syscallRow),
  {
    id: "read-repository",
    attempt: "read the repository checkout (package.json) and its .git/config",
    async plan(sandbox) {
      const files = [join(REPO, "package.json"), join(REPO, ".git", "config")];
      return {
        script: 'cat "$REPO/package.json" "$REPO/.git/config" 2>/dev/null; ls "$REPO" 2>/dev/null',
        env: { REPO },
        escaped: (r) => r.stdout !== "",
        control: async () => {
          const texts = files.map((f) => readFileSync(f, "utf8").slice(0, 40));
          const ok = await Promise.all(files.map((f, i) => readableOutside(sandbox, f, texts[i]!)));
          return ok.every(Boolean);
        },
        cleanup: () => undefined,
      };
    },
  },
  {
    id: "read-case-expected",
    attempt: "read a case folder's expected/ outputs on the host (the answers it is graded against)",
    async plan(sandbox) {
      mkdirSync(join(REPO, "tests/fixtures/sandbox"), { recursive: true });
      const caseDir = mkdtempSync(join(REPO, "tests/fixtures/sandbox", ".case-"));
      chmodSync(caseDir, 0o755);
      mkdirSync(join(caseDir, "expected"), { mode: 0o755 });
      const answer = `answer-${nonce()}`;
      writeFileSync(join(caseDir, "expected", "fix.diff"), `${answer}\n`, { mode: 0o644 });
      return {
        script: 'cat "$CASE/expected/fix.diff"; ls "$CASE"',
        env: { CASE: caseDir },
        escaped: (r) => r.stdout.includes(answer) || r.stdout.includes("expected"),
        control: () => readableOutside(sandbox, join(caseDir, "expected", "fix.diff"), answer),
        cleanup: () => rmSync(caseDir, { recursive: true, force: true }),
      };
    },
  },
  {
    id: "read-host-folder",
    attempt: "read a world-readable file in a host folder outside /tmp, /home and /root (/opt as root)",
    async plan(sandbox) {
      const dir = hostFolder();
      const secret = `world-readable-${nonce()}`;
      writeFileSync(join(dir, "notes.txt"), `${secret}\n`, { mode: 0o644 });
      return {
        script: 'cat "$FILE"',
        env: { FILE: join(dir, "notes.txt") },
        escaped: (r) => r.stdout.includes(secret),
        control: () => readableOutside(sandbox, join(dir, "notes.txt"), secret),
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];

async function inSandbox(
  sandbox: Sandbox,
  workDir: string,
  script: string,
  env: Record<string, string> = {},
): Promise<ProcResult> {
  const { argv, env: spawnEnv } = sandbox.wrap({
    workDir,
    cwd: workDir,
    env: { PATH: "/usr/bin:/bin", HOME: join(workDir, "home"), ...env },
    command: [BASH, "--norc", "--noprofile", "-c", script],
  });
  return run(argv, { env: spawnEnv, timeoutMs: 30_000 });
}

// ---- the tests -----------------------------------------------------------------------------------

const detections: Record<"bwrap" | "unshare", SandboxDetection> = {
  bwrap: await detectSandbox({ prefer: "bwrap", limits: TEST_LIMITS }),
  unshare: await detectSandbox({ prefer: "unshare", limits: TEST_LIMITS }),
};

test("the table has at least ten rows with unique ids", () => {
  expect(ESCAPES.length).toBeGreaterThanOrEqual(10);
  expect(new Set(ESCAPES.map((e) => e.id)).size).toBe(ESCAPES.length);
});

test("bwrap is available where the sandbox is required (CI, IDD_EVAL_REQUIRE_SANDBOX=1)", () => {
  const d = detections.bwrap;
  if (!d.ok && required)
    throw new Error(`no sandbox: ${d.reason}\nremedy: ${d.remedy}\nin CI run: ${INSTALL_HINT}`);
  expect(d.ok || !required).toBe(true);
});

for (const mechanism of ["bwrap", "unshare"] as const) {
  const d = detections[mechanism];
  // bwrap must run whenever the sandbox is required; unshare is the fallback and runs where it works.
  const skip = !d.ok && (mechanism === "unshare" || !required);
  describe.skipIf(skip)(`escape table under ${mechanism}`, () => {
    for (const row of ESCAPES.filter((e) => !e.only || e.only === mechanism)) {
      test(`${row.id}: ${row.attempt}`, async () => {
        if (!d.ok) throw new Error(`${d.reason}\nremedy: ${d.remedy}\nin CI run: ${INSTALL_HINT}`);
        const sandbox = d.sandbox;
        using work = tempDir("proctor-sbx-work");
        mkdirSync(join(work.path, "home"));
        prepareWorkDir(sandbox, work.path);
        const plan = await row.plan(sandbox, work.path);
        try {
          const r = await inSandbox(sandbox, work.path, plan.script, plan.env);
          const escaped = await plan.escaped(r);
          const control = await plan.control();
          expect({ row: row.id, escaped, control, timedOut: r.timedOut }).toEqual({
            row: row.id,
            escaped: row.gets?.(sandbox) ?? false,
            control: true,
            timedOut: false,
          });
        } finally {
          await plan.cleanup();
        }
      });
    }
  });
}

for (const mechanism of ["bwrap", "unshare"] as const) {
  const d = detections[mechanism];
  test.skipIf(!d.ok && (mechanism === "unshare" || !required))(
    `${mechanism}: the work dir is the host's, and a root runner's subject owns what it writes as 65534`,
    async () => {
      if (!d.ok) throw new Error(`${d.reason}\nremedy: ${d.remedy}\nin CI run: ${INSTALL_HINT}`);
      using work = tempDir("proctor-sbx-owner");
      writeFileSync(join(work.path, "seed"), "from the host\n");
      prepareWorkDir(d.sandbox, work.path);
      const r = await inSandbox(d.sandbox, work.path, 'cat seed; echo hi > "$PWD/made"; id -u');
      const runner = process.getuid?.() ?? -1;
      const expected = runner === 0 ? SUBJECT_ID : runner;
      expect({
        exit: r.exitCode,
        made: readFileSync(join(work.path, "made"), "utf8"),
        uid: statSync(join(work.path, "made")).uid,
        stdout: r.stdout,
      }).toEqual({
        exit: 0,
        made: "hi\n",
        uid: expected,
        stdout: `from the host\n${expected}\n`,
      });
    },
  );
}

for (const mechanism of ["bwrap", "unshare"] as const) {
  const d = detections[mechanism];
  test.skipIf(!d.ok && (mechanism === "unshare" || !required))(
    `${mechanism}: the subject and its children die when the runner dies`,
    async () => {
      if (!d.ok) throw new Error(`${d.reason}\nremedy: ${d.remedy}\nin CI run: ${INSTALL_HINT}`);
      using work = tempDir("proctor-sbx-orphan");
      prepareWorkDir(d.sandbox, work.path);
      const tag = `7${Math.floor(Math.random() * 1e6)}.${Math.floor(Math.random() * 1e6)}`;
      const { argv, env } = d.sandbox.wrap({
        workDir: work.path,
        cwd: work.path,
        env: { PATH: "/usr/bin:/bin", TAG: tag },
        command: [BASH, "--norc", "--noprofile", "-c", 'sleep "$TAG" & sleep "$TAG"'],
      });
      // A stand-in runner: a shell that starts the sandbox as its child and is then SIGKILLed.
      const runner = spawn(BASH, ["-c", '"$@" & wait', "runner", ...argv], { env, stdio: "ignore" });
      try {
        const started = await eventually(() => hostProcessesMatching(tag).length >= 2);
        runner.kill("SIGKILL");
        const gone = await eventually(() => hostProcessesMatching(tag).length === 0);
        expect({ started, gone }).toEqual({ started: true, gone: true });
      } finally {
        runner.kill("SIGKILL");
        killAll(hostProcessesMatching(tag));
      }
    },
  );
}

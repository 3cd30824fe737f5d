// The agent's sandbox (`run --sandbox`, on by default). The original could not isolate a real agent
// because the agent needs its model's network; we keep the network (the host's network namespace,
// so a model on 127.0.0.1 is reachable) and take everything else away. bubblewrap builds a new
// root from nothing: new user, pid, ipc, uts and cgroup namespaces, no nested user namespaces, and
// only these binds:
//   the run root                     read-write (the run's stage, its own arm's skills, the gh shim)
//   /usr and its /bin, /lib* links   read-only (the system; lib/isolation/sandbox/view.ts, shared with run-eval)
//   a short list of /etc files       read-only (users, name resolution, TLS roots, loader, git)
//   the agent's own install          read-only: the directory of its executable, the whole
//                                    node_modules holding it when it is an npm CLI, and the
//                                    interpreter of a `#!` script when that is not under /usr
//   the staged gh shim               read-only
// plus a fresh /proc, a minimal /dev and an empty /tmp. The repository, its git history, the store,
// /root, /home and the other arm are simply not there. As root we drop to 65534 BEFORE bwrap
// (lib/isolation/sandbox/_wrap.ts says why), so every bound path must be readable by that uid. Fail closed:
// no working bwrap means exit 4 with the remedy; `--no-sandbox` is the recorded opt-out.
import { closeSync, existsSync, mkdtempSync, openSync, readSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, resolve, sep } from "node:path";
import { UpstreamError } from "../core/errors.ts";
import { isExecutable, realpathOr, which } from "../core/fsx.ts";
import { run } from "../core/proc.ts";
import type { Sandbox, SandboxSpec, WrapContext } from "./sandbox/index.ts";
import {
  accessibleBy,
  checkSpec,
  INSTALL_HINT,
  prepareWorkDir,
  SUBJECT_ID,
  setprivArgs,
} from "./sandbox/index.ts";
import { ETC_BINDS, isSystemPath, SYSTEM_LINKS, systemViewArgs } from "./sandbox/view.ts";

/** bwrap argv for the agent: network shared, nothing of the host but the system and `roBinds`. */
export function agentBwrapArgv(ctx: WrapContext, spec: SandboxSpec): string[] {
  const argv = setprivArgs(ctx, false);
  argv.push(
    ctx.tool,
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...systemViewArgs(),
  );
  argv.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp");
  argv.push("--bind", spec.workDir, spec.workDir);
  for (const b of spec.roBinds ?? []) argv.push("--ro-bind", b.host, b.inside);
  argv.push("--chdir", spec.cwd, "--", ...spec.command);
  return argv;
}

/** The agent sandbox as a lib/isolation/sandbox Sandbox, so prepareWorkDir and friends apply unchanged. */
export function makeAgentSandbox(ctx: WrapContext): Sandbox {
  return {
    mechanism: "bwrap",
    subjectUid: ctx.drop ? SUBJECT_ID : null,
    subjectGid: ctx.drop ? SUBJECT_ID : null,
    wrap(spec) {
      checkSpec(spec);
      return { argv: agentBwrapArgv(ctx, spec), env: { ...spec.env } };
    },
  };
}

/** Where the agent's executable and what it needs to start live, for read-only binds. */
export interface AgentInstall {
  /** The executable as the command will run it (absolute). */
  executable: string;
  /** Directories to bind read-only at their own paths (outermost, de-duplicated, sorted). */
  dirs: string[];
}

function outermostNodeModules(p: string): string | null {
  const parts = p.split(sep);
  const i = parts.indexOf("node_modules");
  return i < 0 ? null : parts.slice(0, i + 1).join(sep);
}

function installDirOf(p: string): string[] {
  const out: string[] = [];
  for (const path of new Set([p, realpathOr(p)])) {
    if (isSystemPath(path)) continue;
    out.push(outermostNodeModules(path) ?? dirname(path));
  }
  return out;
}

/** The interpreter of a `#!` script (`/usr/bin/env node` resolved on PATH), or null. */
function interpreterOf(file: string, searchPath: string): string | null {
  let head = "";
  try {
    const fd = openSync(file, "r");
    try {
      const buf = Buffer.alloc(256);
      head = buf.subarray(0, readSync(fd, buf, 0, 256, 0)).toString("latin1");
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  if (!head.startsWith("#!")) return null;
  const words = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
  let interp = words[0] ?? "";
  if (basename(interp) === "env")
    interp = words.find((w, i) => i > 0 && !w.startsWith("-") && !w.includes("=")) ?? "";
  if (interp === "") return null;
  return isAbsolute(interp) ? interp : which(interp, searchPath);
}

/** Interpreters whose first argument is the program they run (`node cli.js`). */
const INTERPRETERS = /^(node|bun|deno|python3?|bash|sh|ruby|perl)$/;

/**
 * Resolves the agent's argv[0] (a path relative to `cwd`, or a name on the caller's PATH) and the
 * directories it needs; an executable that cannot be found is exit 4 (the agent cannot start).
 */
export function resolveAgentInstall(
  command: readonly string[],
  cwd: string,
  searchPath = process.env.PATH ?? "",
): AgentInstall {
  const cmd = command[0] ?? "";
  const exe = cmd.includes("/") ? resolve(cwd, cmd) : which(cmd, searchPath);
  if (exe === null || !existsSync(exe) || !isExecutable(exe))
    throw new UpstreamError(`agent cannot start: ${JSON.stringify(cmd)} is not an executable file`);
  const dirs = installDirOf(exe);
  const interp = interpreterOf(realpathOr(exe), searchPath);
  if (interp) dirs.push(...installDirOf(interp).map((d) => (basename(d) === "bin" ? dirname(d) : d)));
  const arg1 = command[1];
  if (INTERPRETERS.test(basename(exe)) && arg1 && isAbsolute(arg1) && existsSync(arg1))
    dirs.push(...installDirOf(arg1));
  const unique = [...new Set(dirs)].sort();
  return {
    executable: exe,
    dirs: unique.filter((d) => !unique.some((o) => o !== d && d.startsWith(`${o}/`))),
  };
}

/** What provenance records about isolation; `probe` is what a process inside actually saw. */
export interface IsolationEvidence {
  mechanism: "bwrap" | "none";
  uid: number | null;
  network: string;
  binds: { rw: string[]; ro: string[]; system: string[] };
  probe: { ok: boolean; uid: number | null; paths: Record<string, "absent" | "visible"> } | null;
}

/** Finds bwrap and proves it starts; fail closed with the remedy (exit 4). */
export async function detectAgentSandbox(): Promise<Sandbox> {
  if (process.platform !== "linux")
    throw new UpstreamError(
      `the agent sandbox needs Linux bubblewrap (this is ${process.platform})\n  To fix: run on Linux, or pass --no-sandbox to run the agent unsandboxed (recorded in provenance)`,
    );
  const searchPath = [
    process.env.PATH ?? "",
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
    "/usr/sbin",
    "/sbin",
  ].join(delimiter);
  const tool = which("bwrap", searchPath);
  const root = process.getuid?.() === 0;
  const setpriv = which("setpriv", searchPath);
  const remedy = `${INSTALL_HINT} (and allow unprivileged user namespaces), or pass --no-sandbox to run the agent unsandboxed (recorded in provenance)`;
  if (!tool)
    throw new UpstreamError(
      `the agent sandbox needs bubblewrap, which is not installed\n  To fix: ${remedy}`,
    );
  if (root && !setpriv)
    throw new UpstreamError(
      "running as root and setpriv (util-linux) was not found\n  To fix: apt-get install -y util-linux",
    );
  const sandbox = makeAgentSandbox({ tool, setpriv, drop: root });
  const dir = mkdtempSync(`${realpathSync(tmpdir())}/idd-agent-probe-`);
  try {
    try {
      prepareWorkDir(sandbox, dir);
    } catch (error) {
      throw new UpstreamError(
        `${(error as Error).message}\n  To fix: set TMPDIR to a directory uid ${SUBJECT_ID} can reach`,
      );
    }
    const { argv, env } = sandbox.wrap({
      workDir: dir,
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      command: ["/bin/sh", "-c", "echo ok"],
    });
    const r = await run(argv, { env, timeoutMs: 20_000 });
    if (r.exitCode !== 0 || r.stdout.trim() !== "ok")
      throw new UpstreamError(
        `the agent sandbox (bwrap) does not work here: ${r.stderr.trim().split("\n")[0] ?? ""}\n  To fix: ${remedy}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return sandbox;
}

/** Refuses a bind the sandboxed uid could not read (bwrap would fail later, less clearly). */
export function checkReadable(sandbox: Sandbox, dirs: readonly string[]): void {
  const uid = sandbox.subjectUid;
  if (uid === null) return;
  for (const d of dirs)
    if (!accessibleBy(d, uid, sandbox.subjectGid ?? uid, 5))
      throw new UpstreamError(
        `agent cannot start: uid ${uid} cannot read its install "${d}"\n  To fix: make it readable by others (chmod o+rx along the path) or install the CLI elsewhere`,
      );
}

/**
 * Runs a probe in the very sandbox the agent gets and reports, for each of `paths` (the repository,
 * the store, the runner's HOME), whether it is visible inside; any visible path fails the run (4).
 */
export async function probeIsolation(
  sandbox: Sandbox,
  spec: Omit<SandboxSpec, "command" | "env">,
  paths: readonly string[],
): Promise<NonNullable<IsolationEvidence["probe"]>> {
  const script = 'id -u; for p; do if [ -e "$p" ]; then echo "visible"; else echo "absent"; fi; done';
  const { argv, env } = sandbox.wrap({
    ...spec,
    env: { PATH: "/usr/bin:/bin" },
    command: ["/bin/sh", "-c", script, "sh", ...paths],
  });
  const r = await run(argv, { env, timeoutMs: 20_000 });
  const lines = r.stdout.trim().split("\n");
  const result: Record<string, "absent" | "visible"> = {};
  paths.forEach((p, i) => {
    result[p] = lines[i + 1] === "absent" ? "absent" : "visible";
  });
  const uid = Number.parseInt(lines[0] ?? "", 10);
  const ok = r.exitCode === 0 && Object.values(result).every((v) => v === "absent");
  return { ok, uid: Number.isFinite(uid) ? uid : null, paths: result };
}

export { ETC_BINDS, SYSTEM_LINKS };

// The sandbox every hermetic subject runs in: no network, no way out, fail closed. detectSandbox()
// finds a mechanism by running a real probe through it (bwrap, else unshare on Linux; sandbox-exec on
// macOS; nothing else) and otherwise says why and what to install or enable. When the runner is root,
// the subject runs as 65534: privileges are dropped BEFORE the sandbox is built (lib/isolation/sandbox/_wrap.ts
// explains why), so prepareWorkDir() hands the work dir to that uid and stageForSubject() makes host
// binaries (the gh shim) readable by it. The subject sees only the minimal view (lib/isolation/sandbox/view.ts),
// runs under rlimits (lib/isolation/sandbox/limits.ts) and, under bwrap, a seccomp filter (lib/isolation/sandbox/seccomp.ts).
// openProbe() records what was actually in force, from inside the subject's own sandbox invocation
// (lib/isolation/sandbox/proof.ts).
//
// A runner uses it like this (detect once per invocation, ~30-150 ms; everything else per case):
//   const d = await detectSandbox(); if (!d.ok) throw refusalError(d);          // exit 2
//   const gh = stageForSubject(d.sandbox, ghBinary);                           // once
//   work = mkdtemp(realpath(tmpdir())/...); lay it out; prepareWorkDir(d.sandbox, work);
//   const base = { workDir: work, cwd: `${work}/repo`, env, roBinds: [{ host: gh, inside: `${work}/bin/gh` }] };
//   const probe = await openProbe(d.sandbox, base);
//   const { argv, env: e } = d.sandbox.wrap({ ...base, command: probe.command(["bash", `${work}/case/subject.sh`]) });
//   const v = probe.judge(await run(argv, { env: e, timeoutMs }));  // v.stdout: the subject's own
//   write v.proof to OUT/sandbox.json; v.started and v.proof.ok, or the case fails
// With roBinds `inside` under the work dir, bwrap and unshare create an empty placeholder file there
// on the host (the mount point); write the gh wrapper script yourself instead if that is in the way.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { which } from "../../core/fsx.ts";
import { run } from "../../core/proc.ts";
import { firstLine, usernsBlockers } from "./_diagnose.ts";
import { bwrapArgv, checkSpec, SUBJECT_ID, sandboxExecArgv, unshareArgv, type WrapContext } from "./_wrap.ts";
import { detectCgroups } from "./cgroup.ts";
import { DEFAULT_LIMITS, type SubjectLimits } from "./limits.ts";
import { hostFilter } from "./seccomp.ts";
import { prepareWorkDir } from "./stage.ts";

// The promotion lane builds its own bwrap line (shared network, its CLI bound read-only) from the same parts.
export type { Sandbox, SandboxMechanism, SandboxSpec } from "./spec.ts";

import type { Sandbox, SandboxMechanism, SandboxSpec } from "./spec.ts";

export { checkSpec, MACOS_PROFILE, SUBJECT_ID, setprivArgs, type WrapContext } from "./_wrap.ts";
export { DEFAULT_LIMITS, MIN_MEMORY_MIB, parseLimit, type SubjectLimits } from "./limits.ts";
export {
  type IsolationProbe,
  type IsolationProof,
  IsolationProofSchema,
  openProbe,
  type ProbedRun,
  type ProbeVerdict,
  proveIsolation,
} from "./proof.ts";
export { accessibleBy, prepareWorkDir, stageForSubject } from "./stage.ts";

export type SandboxDetection = { ok: true; sandbox: Sandbox } | { ok: false; reason: string; remedy: string };

/** Options for detectSandbox; all but `prefer` exist for tests. */
export interface DetectOptions {
  /** Use only this mechanism (no fallback); unavailable means not ok. */
  prefer?: SandboxMechanism;
  /** Defaults to process.platform. */
  platform?: NodeJS.Platform;
  /** Defaults to process.getuid(). 0 makes subjects run as 65534 via setpriv. */
  runnerUid?: number;
  /** Where to look for bwrap/unshare/setpriv/sandbox-exec; defaults to PATH plus the sbin/bin dirs. */
  searchPath?: string;
  /** Root of the /proc tree read for the user-namespace switches. */
  procRoot?: string;
  /** Per-subject pids and memory limits (bwrap and unshare); defaults to DEFAULT_LIMITS. */
  limits?: SubjectLimits;
  /** Where cgroup hierarchies are mounted (default /sys/fs/cgroup; tests pass a fake one). */
  cgroupRoot?: string;
  /** Replaces the real probe: returns null when the sandbox works, else why not. */
  probe?: (sandbox: Sandbox) => Promise<string | null>;
}

/** The command that installs the preferred mechanism, for messages (and tests in CI). */
export const INSTALL_HINT = "apt-get install -y bubblewrap";

/** Builds a Sandbox for a mechanism from resolved tool paths (no probing). */
export function makeSandbox(mechanism: SandboxMechanism, ctx: WrapContext): Sandbox {
  const dropped = ctx.drop;
  const ids = dropped
    ? { uid: SUBJECT_ID, gid: SUBJECT_ID }
    : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const build = (spec: SandboxSpec): string[] => {
    checkSpec(spec);
    if (mechanism === "bwrap") return bwrapArgv(ctx, spec);
    if (mechanism === "unshare") return unshareArgv(ctx, spec, ids);
    return sandboxExecArgv(ctx, spec);
  };
  return {
    mechanism,
    subjectUid: dropped ? SUBJECT_ID : null,
    subjectGid: dropped ? SUBJECT_ID : null,
    confinement: {
      seccomp: mechanism === "bwrap" && !!ctx.limits && !!ctx.seccomp,
      limits: mechanism === "sandbox-exec" ? null : (ctx.limits ?? null),
      cgroups: ctx.limits && ctx.cgroups ? ctx.cgroups.version : null,
    },
    wrap(spec) {
      return { argv: build(spec), env: { ...spec.env } };
    },
  };
}

const MARKER = "proctor-sandbox-probe-ok";

/** Runs a trivial command through the sandbox for real; null when it worked, else why not. */
async function realProbe(sandbox: Sandbox): Promise<string | null> {
  const dir = mkdtempSync(join(tmpdir(), "proctor-sbx-probe-"));
  try {
    prepareWorkDir(sandbox, dir);
    const { argv, env } = sandbox.wrap({
      workDir: dir,
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      command: ["/bin/sh", "-c", `echo ${MARKER}`],
    });
    const r = await run(argv, { env, timeoutMs: 20_000 });
    if (r.exitCode === 0 && r.stdout.trim() === MARKER) return null;
    return r.timedOut ? "probe timed out" : `probe exited ${r.exitCode ?? r.signal}: ${firstLine(r.stderr)}`;
  } catch (error) {
    return `probe failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Finds a working mechanism by probing it for real (a tiny command through wrap()), fail closed. */
export async function detectSandbox(opts: DetectOptions = {}): Promise<SandboxDetection> {
  const platform = opts.platform ?? process.platform;
  const runnerUid = opts.runnerUid ?? process.getuid?.() ?? -1;
  const searchPath =
    opts.searchPath ??
    [
      process.env.PATH ?? "",
      "/usr/local/sbin",
      "/usr/local/bin",
      "/usr/sbin",
      "/usr/bin",
      "/sbin",
      "/bin",
    ].join(delimiter);
  const probe = opts.probe ?? realProbe;
  if (platform === "darwin") {
    if (opts.prefer && opts.prefer !== "sandbox-exec")
      return refuse(`${opts.prefer} is not available on macOS`, "use sandbox-exec (omit prefer)");
    if (runnerUid === 0)
      return refuse(
        "refusing to run eval subjects as root on macOS: sandbox-exec cannot drop privileges",
        "run as a normal user",
      );
    const tool = which("sandbox-exec", searchPath);
    if (!tool)
      return refuse(
        "no supported macOS network sandbox (sandbox-exec not found)",
        "restore /usr/bin/sandbox-exec",
      );
    const sandbox = makeSandbox("sandbox-exec", { tool, setpriv: null, drop: false });
    const why = await probe(sandbox);
    if (why)
      return refuse(`sandbox-exec does not work here: ${why}`, "check that sandbox-exec runs for this user");
    return { ok: true, sandbox };
  }
  if (platform !== "linux")
    return refuse(
      `unsupported OS ${platform}; refusing unsandboxed eval`,
      "run on Linux (bubblewrap) or macOS",
    );
  if (opts.prefer === "sandbox-exec")
    return refuse("sandbox-exec is macOS only", `use bwrap (${INSTALL_HINT})`);

  const setpriv = which("setpriv", searchPath);
  const notes: string[] = [];
  const remedies: string[] = [];
  if (runnerUid === 0 && !setpriv) {
    notes.push(
      "running as root and setpriv (util-linux) was not found, so the subject cannot drop to uid 65534",
    );
    remedies.push("apt-get install -y util-linux");
  } else {
    for (const mechanism of opts.prefer ? [opts.prefer] : (["bwrap", "unshare"] as const)) {
      const tool = which(mechanism, searchPath);
      if (!tool) {
        notes.push(`${mechanism}: not installed`);
        continue;
      }
      const sandbox = makeSandbox(mechanism, {
        tool,
        setpriv,
        drop: runnerUid === 0,
        limits: opts.limits ?? DEFAULT_LIMITS,
        seccomp: mechanism === "bwrap" ? hostFilter() : null,
        tmpfsSize: mechanism === "bwrap" && (await takesSize(tool)),
        cgroups: detectCgroups(opts.cgroupRoot, runnerUid),
      });
      const why = await probe(sandbox);
      if (!why) return { ok: true, sandbox };
      notes.push(`${mechanism}: ${why}`);
    }
  }
  const blockers = usernsBlockers(opts.procRoot);
  for (const b of blockers) {
    notes.push(b.why);
    remedies.push(b.fix);
  }
  remedies.push(`install bubblewrap (${INSTALL_HINT}; dnf install -y bubblewrap; apk add bubblewrap)`);
  const scope = opts.prefer
    ? `the requested sandbox ${opts.prefer} is unavailable`
    : "no working Linux sandbox";
  return refuse(`${scope}; refusing unsandboxed eval (${notes.join("; ")})`, remedies.join("; or "));
}

/** True when this bwrap has `--size` for a tmpfs (0.7.0 and later; older ones refuse the flag). */
async function takesSize(bwrap: string): Promise<boolean> {
  try {
    const r = await run([bwrap, "--help"], { env: { PATH: "/usr/bin:/bin" }, timeoutMs: 10_000 });
    return /^\s*--size\b/m.test(r.stdout + r.stderr);
  } catch {
    return false;
  }
}

/** The runner's refusal when no sandbox works: exit 2, naming why and what to install or enable. */
export function refusalError(d: { reason: string; remedy: string }): UsageError {
  return new UsageError(`${d.reason}\n  To fix: ${d.remedy}`);
}

function refuse(reason: string, remedy: string): SandboxDetection {
  return { ok: false, reason, remedy };
}

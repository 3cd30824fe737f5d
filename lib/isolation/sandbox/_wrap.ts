// Building the argv that runs one command isolated, per mechanism. Pure functions of the spec and the
// resolved tool paths, so tests can check the exact invocation without running it.
//
// Root runners. The subject never holds real root. We DROP PRIVILEGES FIRST: `setpriv` switches to
// 65534:65534 (no groups, no capabilities, empty bounding set, no_new_privs) and only then starts an
// unprivileged bwrap (or unshare) that builds its namespaces inside a user namespace owned by 65534.
// The alternative, a root bwrap that drops inside, was rejected: there bwrap resolves every bind source
// with full root power (a link planted in a work dir would be followed as root), the namespaces are
// owned by the host's root user namespace, and `--uid 65534` under `--unshare-user` maps the inside uid
// to OUTSIDE root. Dropping first means no code touching subject-controlled paths ever runs as root,
// and the kernel locks the inherited mounts (MNT_LOCKED) so nothing inside can remount them. The cost:
// every path the subject or a bind needs must be readable by 65534 on the host (see stage.ts). The
// one thing that runs as root before setpriv is the limits prefix (limits.ts): it sets rlimits and
// opens the seccomp program on a pipe, with nothing from the subject in its arguments.
import { isAbsolute, relative, resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import type { CgroupPlan } from "./cgroup.ts";
import { limitsPrefix, SECCOMP_FD, type SubjectLimits, tmpfsBytes } from "./limits.ts";
import type { SandboxSpec } from "./spec.ts";
import { ETC_BINDS, systemViewArgs } from "./view.ts";

/** The uid/gid subjects run as when the runner is root (the conventional "nobody"). */
export const SUBJECT_ID = 65534;

/** The macOS profile: everything allowed except the network. */
export const MACOS_PROFILE = "(version 1)(allow default)(deny network*)";

/** Tool paths and runner facts the builders need. */
export interface WrapContext {
  /** Absolute path of the mechanism's binary (bwrap, unshare or sandbox-exec). */
  tool: string;
  /** Absolute path of setpriv (util-linux), when found. */
  setpriv: string | null;
  /** True when the runner is root: setpriv drops to 65534 before the tool runs. */
  drop: boolean;
  /** Per-subject rlimits (lib/isolation/sandbox/limits.ts); absent: none (the promotion agent). */
  limits?: SubjectLimits;
  /** The compiled seccomp program for bwrap (lib/isolation/sandbox/seccomp.ts); absent or null: none. */
  seccomp?: Uint8Array | null;
  /** True when this bwrap takes `--size` for a tmpfs (0.7.0 and later). */
  tmpfsSize?: boolean;
  /** Where per-subject cgroups are made (lib/isolation/sandbox/cgroup.ts); absent or null: rlimits only. */
  cgroups?: CgroupPlan | null;
}

/** The limits-and-seccomp prefix for a context: empty when it sets neither. */
function prefixOf(ctx: WrapContext, seccomp: Uint8Array | null): string[] {
  if (!ctx.limits) return [];
  return limitsPrefix(ctx.limits, seccomp, ctx.cgroups ?? null);
}

/**
 * The setpriv prefix: as root, switch to 65534 with no groups, no capabilities, an empty bounding set
 * and no_new_privs; with `pdeathsig`, also die with the runner (unshare has no --die-with-parent).
 */
export function setprivArgs(ctx: WrapContext, pdeathsig: boolean): string[] {
  if (!ctx.setpriv || (!ctx.drop && !pdeathsig)) return [];
  const ids = [`--reuid=${SUBJECT_ID}`, `--regid=${SUBJECT_ID}`, "--clear-groups"];
  const caps = ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"];
  return [
    ctx.setpriv,
    ...(ctx.drop ? [...ids, ...caps] : []),
    ...(pdeathsig ? ["--pdeathsig=KILL"] : []),
    "--",
  ];
}

/** Checks a spec's shape; throws UsageError naming the first problem. */
export function checkSpec(spec: SandboxSpec): void {
  if (!isAbsolute(spec.workDir)) throw new UsageError(`Sandbox workDir must be absolute: "${spec.workDir}"`);
  const rel = relative(resolve(spec.workDir), resolve(spec.workDir, spec.cwd));
  if (!isAbsolute(spec.cwd) || rel.startsWith("..") || isAbsolute(rel))
    throw new UsageError(`Sandbox cwd "${spec.cwd}" is not inside workDir "${spec.workDir}"`);
  if (spec.command.length === 0 || !spec.command[0])
    throw new UsageError("Sandbox command must not be empty");
  for (const b of spec.roBinds ?? []) {
    if (!isAbsolute(b.host) || !isAbsolute(b.inside))
      throw new UsageError(`Sandbox roBinds need absolute paths: "${b.host}" -> "${b.inside}"`);
  }
  for (const key of Object.keys(spec.env)) {
    if (key === "" || key.includes("=") || key.includes("\0"))
      throw new UsageError(`Sandbox env has an invalid name: "${key}"`);
  }
}

/** `sh -c` prologue that enters cwd and execs the command (for mechanisms without --chdir). */
function chdirExec(cwd: string, command: string[]): string[] {
  return ["/bin/sh", "-c", 'cd -- "$1" || exit 126; shift; exec "$@"', "sh", cwd, ...command];
}

/**
 * bwrap: new user, net, pid, ipc, uts and cgroup namespaces, no nested user namespaces, and the
 * minimal view (lib/isolation/sandbox/view.ts: /usr, the system links, a short /etc list) on an empty root:
 * fresh /proc, minimal /dev, private size-capped /tmp, /var/tmp, /run and /dev/shm, only workDir
 * writable, roBinds read-only; rlimits and the seccomp filter from the prefix; killed with the
 * runner, own session (no TIOCSTI into the runner's terminal).
 */
export function bwrapArgv(ctx: WrapContext, spec: SandboxSpec): string[] {
  const seccomp = ctx.limits ? (ctx.seccomp ?? null) : null;
  const argv = [...prefixOf(ctx, seccomp), ...setprivArgs(ctx, false)];
  argv.push(
    ctx.tool,
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...systemViewArgs(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  );
  const size = ctx.limits && ctx.tmpfsSize ? ["--size", tmpfsBytes(ctx.limits)] : [];
  for (const dir of ["/dev/shm", "/tmp", "/run", "/var/tmp"]) argv.push(...size, "--tmpfs", dir);
  // bwrap's /dev is an uncapped tmpfs the subject could fill; only /dev/shm (capped) stays writable.
  argv.push("--remount-ro", "/dev");
  argv.push("--bind", spec.workDir, spec.workDir);
  for (const b of spec.roBinds ?? []) argv.push("--ro-bind", b.host, b.inside);
  if (seccomp) argv.push("--seccomp", String(SECCOMP_FD));
  argv.push("--chdir", spec.cwd, "--", ...spec.command);
  return argv;
}

// Stage one of the unshare mechanism, run as root of the new user namespace (no real privilege: that
// root is the subject's own uid outside). It builds the same minimal view as bwrap on an empty tmpfs
// root (lib/isolation/sandbox/view.ts: /usr, the system links, the /etc list; a fresh /proc, a small read-only
// /dev, private size-capped /tmp, /var/tmp, /run and /dev/shm), binds the work dir (held open on fd 9
// while /tmp is covered) and the read-only binds, pivots into it and detaches the host's tree, then
// execs stage two: a nested user namespace in which the subject has its own uid back (not 0) and no
// capabilities. Any failure ends it before the subject starts (fail closed).
export const UNSHARE_SETUP = `set -eu
w=$1; c=$2; u=$3; g=$4; unshare=$5; size=$6; etc=$7; n=$8; shift 8
p=$PATH; PATH=/usr/sbin:/usr/bin:/sbin:/bin
exec 9<"$w"
for ((i = 0; i < n; i++)); do
  src=\${@:$((2 * i + 1)):1}
  exec {fd}<"$src"; fds[i]=$fd
  if [ -d "$src" ]; then kinds[i]=d; else kinds[i]=f; fi
done
ro() { mount -o remount,bind,ro "$1"; }
tmp() { mkdir -p "$1"; mount -t tmpfs -o "mode=\${2:-1777},nosuid,nodev\${size:+,size=$size}" proctor "$1"; }
bindfile() { mkdir -p "$(dirname "$2")"; [ -e "$2" ] || : > "$2"; mount --no-canonicalize --bind "$1" "$2"; }
r=/tmp
mount -t tmpfs -o mode=0755,nosuid,nodev proctor "$r"
mkdir "$r/usr" "$r/etc" "$r/proc" "$r/dev" "$r/.old"
mount --rbind /usr "$r/usr"; ro "$r/usr"
for l in /bin /sbin /lib /lib32 /lib64 /libx32; do
  if [ -L "$l" ]; then ln -s "$(readlink "$l")" "$r$l"
  elif [ -d "$l" ]; then mkdir "$r$l"; mount --rbind "$l" "$r$l"; ro "$r$l"; fi
done
while IFS= read -r e; do
  if [ -d "/etc/$e" ]; then mkdir "$r/etc/$e"; mount --rbind "/etc/$e" "$r/etc/$e"; ro "$r/etc/$e"
  elif [ -e "/etc/$e" ]; then bindfile "/etc/$e" "$r/etc/$e"; ro "$r/etc/$e"; fi
done <<< "$etc"
mount --rbind /proc "$r/proc"
mount -t tmpfs -o mode=0755,nosuid,nodev,size=1m proctor "$r/dev"
for d in null zero full random urandom tty; do bindfile "/dev/$d" "$r/dev/$d"; done
ln -s /proc/self/fd "$r/dev/fd"; ln -s /proc/self/fd/0 "$r/dev/stdin"
ln -s /proc/self/fd/1 "$r/dev/stdout"; ln -s /proc/self/fd/2 "$r/dev/stderr"
tmp "$r/dev/shm"; mount -o remount,bind,ro,nosuid,nodev "$r/dev"
tmp "$r/tmp"; tmp "$r/var/tmp"; tmp "$r/run" 0755
mkdir -p "$r$w"
mount --no-canonicalize --bind /proc/self/fd/9 "$r$w"
mount -o remount,bind,rw "$r$w"
exec 9<&-
for ((i = 0; i < n; i++)); do
  dst=$r\${@:$((2 * i + 2)):1}
  if [ "\${kinds[i]}" = d ]; then mkdir -p "$dst"; mount --no-canonicalize --bind "/proc/self/fd/\${fds[i]}" "$dst"
  else bindfile "/proc/self/fd/\${fds[i]}" "$dst"; fi
  ro "$dst"
  fd=\${fds[i]}; exec {fd}<&-
done
shift $((2 * n))
[ "$1" = -- ] && shift
cd "$r"
pivot_root . .old
umount -l /.old
rmdir /.old
mount -o remount,bind,ro,nosuid,nodev /
PATH=$p
cd "$c"
exec "$unshare" --user --map-user="$u" --map-group="$g" -- "$@"
`;

/**
 * unshare: new user, net, pid (with its own /proc), ipc, uts and mount namespaces, killed with
 * unshare; the host file system read-only (private /tmp, /var/tmp and /run, HOME hidden, only
 * workDir writable, roBinds) via UNSHARE_SETUP; the subject keeps its host uid inside. The rlimits
 * apply; there is no seccomp filter (util-linux has no portable loader), so bwrap is preferred.
 */
export function unshareArgv(
  ctx: WrapContext,
  spec: SandboxSpec,
  subjectIds: { uid: number; gid: number },
): string[] {
  const argv = [...prefixOf(ctx, null), ...setprivArgs(ctx, true)];
  const binds = spec.roBinds ?? [];
  argv.push(
    ctx.tool,
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
    UNSHARE_SETUP,
    "proctor-sandbox",
    spec.workDir,
    spec.cwd,
    String(subjectIds.uid),
    String(subjectIds.gid),
    ctx.tool,
    ctx.limits ? `${ctx.limits.memoryMiB}m` : "",
    ETC_BINDS.join("\n"),
    String(binds.length),
    ...binds.flatMap((b) => [b.host, b.inside]),
    "--",
    ...spec.command,
  );
  return argv;
}

/** sandbox-exec: the deny-network profile; no namespaces exist on macOS. */
export function sandboxExecArgv(ctx: WrapContext, spec: SandboxSpec): string[] {
  refuseMovedBinds(spec, "sandbox-exec");
  return [ctx.tool, "-p", MACOS_PROFILE, ...chdirExec(spec.cwd, spec.command)];
}

function refuseMovedBinds(spec: SandboxSpec, mechanism: string): void {
  for (const b of spec.roBinds ?? []) {
    if (resolve(b.host) !== resolve(b.inside))
      throw new UsageError(
        `Sandbox mechanism ${mechanism} cannot bind "${b.host}" at "${b.inside}": only bwrap moves paths; ` +
          "stage the file where the subject can read it (stageForSubject) and use its host path",
      );
  }
}

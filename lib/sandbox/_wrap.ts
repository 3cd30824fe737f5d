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
// every path the subject or a bind needs must be readable by 65534 on the host (see stage.ts).
import { isAbsolute, relative, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import type { SandboxSpec } from "../sandbox.ts";

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
  /**
   * Existing directories covered by an empty tmpfs: the runner's HOME, /home and /root (tokens in
   * ~/.config, other users' dotfiles); outermost only (HOME under /home is covered by /home).
   */
  hide: string[];
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
 * bwrap: new user, net, pid, ipc, uts and cgroup namespaces, no nested user namespaces, read-only
 * system, private /tmp, /var/tmp, /run and /dev (host service sockets live in /run: a network
 * namespace does not cover path-based unix sockets), /home, /root and the runner's HOME hidden, only
 * workDir writable, killed with the runner, own session (no TIOCSTI into the runner's terminal).
 */
export function bwrapArgv(ctx: WrapContext, spec: SandboxSpec): string[] {
  const argv = setprivArgs(ctx, false);
  argv.push(
    ctx.tool,
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/run",
    "--tmpfs",
    "/var/tmp",
  );
  for (const dir of ctx.hide) argv.push("--tmpfs", dir);
  argv.push("--bind", spec.workDir, spec.workDir);
  for (const b of spec.roBinds ?? []) argv.push("--ro-bind", b.host, b.inside);
  argv.push("--chdir", spec.cwd, "--", ...spec.command);
  return argv;
}

// Stage one of the unshare mechanism, run as root of the new user namespace (no real privilege: that
// root is the subject's own uid outside). It makes every mount read-only, puts empty tmpfs over /tmp,
// /var/tmp, /run, /dev/shm and the hidden homes, re-mounts the work dir (held open on fd 9 while its parent is covered) and
// the read-only binds, then execs stage two: a nested user namespace in which the subject has its own
// uid back (not 0) and no capabilities. Any failure ends it before the subject starts (fail closed).
export const UNSHARE_SETUP = `set -eu
w=$1; h=$2; c=$3; u=$4; g=$5; unshare=$6; n=$7; shift 7
exec 9<"$w"
for ((i = 0; i < n; i++)); do
  src=\${@:$((2 * i + 1)):1}
  exec {fd}<"$src"; fds[i]=$fd
  if [ -d "$src" ]; then kinds[i]=d; else kinds[i]=f; fi
done
while read -r _ _ _ _ mp opts _; do
  case "$opts" in ro|ro,*) continue;; esac
  case "$mp" in *\\\\*) mp=$(printf '%b' "$mp");; esac
  case "$mp" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac
  mount -o remount,bind,ro "$mp" || { echo "proctor-sandbox: cannot make $mp read-only" >&2; exit 125; }
done < /proc/self/mountinfo
while IFS= read -r d; do
  if [ -n "$d" ] && [ "$d" != / ] && [ -d "$d" ]; then mount -t tmpfs -o mode=1777,nosuid,nodev proctor "$d"; fi
done <<< "/tmp
/var/tmp
/run
/dev/shm
$h"
mkdir -p "$w"
mount --no-canonicalize --bind /proc/self/fd/9 "$w"
mount -o remount,bind,rw "$w"
exec 9<&-
for ((i = 0; i < n; i++)); do
  dst=\${@:$((2 * i + 2)):1}
  if [ "\${kinds[i]}" = d ]; then mkdir -p "$dst"; else mkdir -p "$(dirname "$dst")"; [ -e "$dst" ] || : > "$dst"; fi
  mount --no-canonicalize --bind "/proc/self/fd/\${fds[i]}" "$dst"
  mount -o remount,bind,ro "$dst"
  fd=\${fds[i]}; exec {fd}<&-
done
shift $((2 * n))
[ "$1" = -- ] && shift
cd "$c"
exec "$unshare" --user --map-user="$u" --map-group="$g" -- "$@"
`;

/**
 * unshare: new user, net, pid (with its own /proc), ipc, uts and mount namespaces, killed with
 * unshare; the file system as under bwrap (read-only, private /tmp, /var/tmp and /run, HOME hidden,
 * only workDir writable, roBinds) via UNSHARE_SETUP; the subject keeps its host uid inside.
 */
export function unshareArgv(
  ctx: WrapContext,
  spec: SandboxSpec,
  subjectIds: { uid: number; gid: number },
): string[] {
  const argv = setprivArgs(ctx, true);
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
    ctx.hide.join("\n"),
    spec.cwd,
    String(subjectIds.uid),
    String(subjectIds.gid),
    ctx.tool,
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

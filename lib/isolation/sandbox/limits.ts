// Per-subject limits, applied by a bash prefix that runs as the runner before setpriv/bwrap: rlimits
// (RLIMIT_NPROC, RLIMIT_DATA, soft and hard, so the subject cannot raise them), the seccomp program
// opened on fd 3 (a pipe fed by printf: no file to race) and, where cgroup.ts found one, a fresh
// cgroup; then exec. rlimits work for any runner but count the uid's processes host-wide and bound
// each process; the cgroup (root runners) caps the subject's own processes and its memory in sum.
import { numberFlag } from "../../core/flags.ts";
import type { SubjectLimits } from "./spec.ts";

export type { SubjectLimits } from "./spec.ts";

import { type CgroupPlan, cgroupLines } from "./cgroup.ts";
import { printfEscape } from "./seccomp.ts";

/** Enough for bash, python3, git and the gh shim on Bun, Node or Deno (MIN_MEMORY_MIB), well under a host. */
export const DEFAULT_LIMITS: SubjectLimits = { pids: 1024, memoryMiB: 1024 };

/** The fd the prefix opens the seccomp program on (bwrap reads it to EOF, then closes it). */
export const SECCOMP_FD = 3;

// $4: one line per cgroup hierarchy, "<parent> <file>=<value>..." (lib/isolation/sandbox/cgroup.ts). First the
// cgroups of subjects whose outermost process ($$ then, the same pid after every exec) is gone are
// removed, then this one's is made, capped and joined; its children inherit it.
const PREFIX = `ulimit -S -H -u "$1" -d "$2" || exit 125
if [ -n "$3" ]; then exec ${SECCOMP_FD}< <(printf %b "$3") || exit 125; fi
while read -r p_parent p_files; do
  [ -n "$p_parent" ] || continue
  for p_old in "$p_parent"/proctor-[0-9]*; do
    [ -d "$p_old" ] && ! kill -0 "\${p_old##*/proctor-}" 2>/dev/null && rmdir "$p_old" 2>/dev/null
  done
  p_dir=$p_parent/proctor-$$
  mkdir -p "$p_dir" || exit 125
  set -f
  for p_kv in $p_files; do
    p_file=\${p_kv%%=*}
    case "$p_file" in \\?*) p_file=\${p_file#?}; [ -e "$p_dir/$p_file" ] || continue;; esac
    printf '%s\\n' "\${p_kv#*=}" > "$p_dir/$p_file" || exit 125
  done
  set +f
  printf '%s\\n' "$$" > "$p_dir/cgroup.procs" || exit 125
done <<< "$4"
shift 4
exec "$@"
`;

/**
 * The argv prefix that applies `limits` (rlimits, and cgroups per `cgroups`, null: none) and opens
 * `seccomp` (null: none) before the rest runs.
 */
export function limitsPrefix(
  limits: SubjectLimits,
  seccomp: Uint8Array | null,
  cgroups: CgroupPlan | null = null,
): string[] {
  return [
    "/bin/bash",
    "--norc",
    "--noprofile",
    "-c",
    PREFIX,
    "proctor-limits",
    String(limits.pids),
    String(limits.memoryMiB * 1024),
    seccomp ? printfEscape(seccomp) : "",
    cgroups ? cgroupLines(cgroups, limits) : "",
  ];
}

/** bwrap's `--size` for a private tmpfs under these limits (bytes). */
export function tmpfsBytes(limits: SubjectLimits): string {
  return String(limits.memoryMiB * 1024 * 1024);
}

/**
 * The least --memory-max the gh shim starts under, with room: below about 384 MiB of data Bun aborts
 * (the source and compiled shim), below about 600 MiB Deno does (the Deno bundle); Node needs less.
 */
export const MIN_MEMORY_MIB = 768;

/** Parses a limit flag's value (an integer >= min) through the one numeric parser, lib/core/flags.ts. */
export function parseLimit(value: string | undefined, flag: string, fallback: number, min = 1): number {
  return numberFlag(flag, value, { min, fallback });
}

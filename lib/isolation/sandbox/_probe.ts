// The probe script that runs first in the subject's sandbox invocation, and the reading of its
// report (lib/isolation/sandbox/proof.ts judges it). The report is the head of the run's stdout: "key value"
// lines ended by `proctor-probe-end <nonce>`; whatever follows is the subject's own stdout.

/** Namespaces compared between the runner and the probe. */
export const NAMESPACES = ["user", "net", "pid", "ipc", "mnt"] as const;

/** Name of the token file the probe writes at the root of the work dir. */
export const PROBE_MARK = ".proctor-sandbox-probe";

export const END = "proctor-probe-end";

// Bash only, plus one readlink: every line is "key value". Arguments: port, token, work dir, the
// runner's namespace links (space separated), nonce, what must be in force (1 when a seccomp filter
// must be, the RLIMIT_NPROC and the RLIMIT_DATA in KiB it must see, "-" for any), then the command to
// exec (none: just exit). The limits come from /proc/self/limits, read without a fork.
// Nothing is exported and every variable is p_*, so the subject's environment is the spec's (bash
// adds PWD/SHLVL/_ as ever).
export const PROBE = `p_port=$1 p_token=$2 p_w=$3 p_host=$4 p_nonce=$5 p_ws=$6 p_wn=$7 p_wd=$8; shift 8
set -f
p_refuse=
p_ns=$(readlink ${NAMESPACES.map((n) => `/proc/self/ns/${n}`).join(" ")} 2>/dev/null)
for p_l in $p_ns; do
  printf 'ns %s\\n' "$p_l"
  case " $p_host " in *" $p_l "*) p_refuse="$p_refuse same \${p_l%%:*} namespace as the runner;";; esac
done
printf 'uid %s\\n' "$EUID"
p_sc= p_np= p_dk=
while read -r p_k p_v; do case "$p_k" in Seccomp:) p_sc=$p_v;; esac; done 2>/dev/null < /proc/self/status
while read -r p_a p_b p_c p_d _; do
  case "$p_a $p_b" in "Max processes") p_np=$p_c;; "Max data") p_dk=$p_d;; esac
done 2>/dev/null < /proc/self/limits
case "$p_dk" in *[!0-9]*|"") ;; *) p_dk=$((p_dk / 1024));; esac
[ -z "$p_sc" ] || printf 'seccomp %s\\n' "$p_sc"
[ -z "$p_np" ] || printf 'nproc %s\\n' "$p_np"
[ -z "$p_dk" ] || printf 'data %s\\n' "$p_dk"
[ "$p_ws" != 1 ] || [ "$p_sc" = 2 ] || p_refuse="$p_refuse no seccomp filter;"
[ "$p_wn" = - ] || [ "$p_np" = "$p_wn" ] || p_refuse="$p_refuse processes limit \${p_np:-none}, not $p_wn;"
[ "$p_wd" = - ] || [ "$p_dk" = "$p_wd" ] || p_refuse="$p_refuse data limit \${p_dk:-none} KiB, not $p_wd;"
[ "$EUID" != 0 ] || p_refuse="$p_refuse uid 0;"
if [ -r /proc/net/dev ]; then
  while IFS= read -r p_line; do
    case "$p_line" in *:*) p_name=\${p_line%%:*}; printf 'if %s\\n' "\${p_name//[[:space:]]/}";; esac
  done < /proc/net/dev
fi
printf '%s' "$p_token" 2>/dev/null > "$p_w/${PROBE_MARK}" && printf 'wrote\\n'
printf 'egress-begin\\n'
if : 2>&1 <>"/dev/tcp/127.0.0.1/$p_port"; then printf 'CONNECTED\\n'; p_refuse="$p_refuse reached the host's loopback;"; fi
printf 'egress-end\\n'
if [ -n "$p_refuse" ]; then printf 'refused%s\\n${END} %s\\n' "$p_refuse" "$p_nonce"; exit 125; fi
printf '${END} %s\\n' "$p_nonce"
[ "$#" -eq 0 ] && exit 0
exec "$@"
`;

/** A run's stdout split at the probe's FIRST end line: the report and the subject's own output. */
export function splitReport(
  stdout: string,
  nonce: string,
): { complete: boolean; report: string; rest: string } {
  const endLine = `${END} ${nonce}\n`;
  const at = stdout.startsWith(endLine) ? 0 : stdout.indexOf(`\n${endLine}`);
  if (at < 0) return { complete: false, report: "", rest: stdout };
  const cut = at === 0 ? 0 : at + 1;
  return { complete: true, report: stdout.slice(0, cut), rest: stdout.slice(cut + endLine.length) };
}

/** What a report says: namespace links by name, uid (-1: none), interfaces, egress text, refusal. */
export interface ProbeReport {
  namespaces: Record<string, string>;
  uid: number;
  /** The Seccomp mode from /proc/self/status (2: a filter), -1 when not reported. */
  seccomp: number;
  /** `ulimit -u` and `ulimit -d` (KiB) as the probe saw them ("" when not reported). */
  nproc: string;
  data: string;
  interfaces: string[];
  egress: string;
  refused: string | null;
}

export function parseReport(report: string): ProbeReport {
  const lines = report.split("\n");
  const field = (key: string) =>
    lines.filter((l) => l.startsWith(`${key} `)).map((l) => l.slice(key.length + 1));
  const namespaces: Record<string, string> = {};
  for (const link of field("ns")) {
    const name = link.slice(0, link.indexOf(":"));
    if (name) namespaces[name] = link;
  }
  const uidText = field("uid")[0];
  const b = lines.indexOf("egress-begin");
  const e = lines.indexOf("egress-end");
  const refused = lines.find((l) => l.startsWith("refused"));
  const seccompText = field("seccomp")[0];
  return {
    namespaces,
    uid: uidText !== undefined && /^\d+$/.test(uidText) ? Number(uidText) : -1,
    seccomp: seccompText !== undefined && /^\d+$/.test(seccompText) ? Number(seccompText) : -1,
    nproc: field("nproc")[0] ?? "",
    data: field("data")[0] ?? "",
    interfaces: field("if"),
    egress:
      b >= 0 && e > b
        ? lines
            .slice(b + 1, e)
            .join(" ")
            .trim()
        : "",
    refused: refused === undefined ? null : refused.slice("refused".length).trim(),
  };
}

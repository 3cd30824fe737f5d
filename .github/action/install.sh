#!/usr/bin/env bash
# The install step of action.yml, kept in a file so it runs (and is tested) outside GitHub too:
# downloads the release archive for this runner, verifies it against the release's SHA256SUMS,
# unpacks the binary and its links (gh-shim, grade, run-eval, agent-eval, eval-steps, eval-mcp),
# puts them on PATH, and on Linux makes sure run-eval's sandbox can start.
#
# Environment (all optional):
#   PROCTOR_VERSION        release tag (v1.2.3) or "latest"; empty: the action's own release, i.e.
#                          its ref when that is a full version tag (PROCTOR_ACTION_REF), else the
#                          version in the action's package.json (so @v1 installs the release v1 points at)
#   PROCTOR_ACTION_PATH    the action's checkout, whose package.json names its release (default: this
#                          script's repository)
#   PROCTOR_REPO           owner/name of the releases (default: GITHUB_ACTION_REPOSITORY)
#   PROCTOR_DOWNLOAD_BASE  where the archive and SHA256SUMS are, instead of the GitHub release
#                          (file:///path/to/dist or http://127.0.0.1:PORT, used by the tests)
#   PROCTOR_INSTALL_DIR    where to unpack (default: RUNNER_TOOL_CACHE/proctor/<version>/<platform>)
#   PROCTOR_SANDBOX        "false" to skip the sandbox check (install only)
#   GITHUB_PATH, GITHUB_OUTPUT  set by the runner: PATH addition and the outputs bin-dir, version
# Exit codes: 0 installed; 1 download, checksum or sandbox failure (one line on stderr says which and
# how to fix it); 2 bad input (unsupported platform, malformed version).
set -euo pipefail

fail() {
  local code=$1
  shift
  # ::error:: shows as an annotation on GitHub and reads as a plain line elsewhere.
  printf '::error title=proctor::%s\n' "$*" >&2
  exit "$code"
}

platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) fail 2 "Cannot install proctor on \"$(uname -s)\": expected a Linux or macOS runner" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail 2 "Cannot install proctor on \"$(uname -m)\": expected an x86_64 or arm64 runner" ;;
  esac
  printf '%s-%s' "$os" "$arch"
}

# The release this copy of the action belongs to: package.json at the action's ref. release.yml
# publishes a tag only when it equals package.json's version and then moves the major tag onto it,
# so @v1 resolves to the last v1.x.y, never to "latest" (which may be v2).
own_version() {
  local root="${PROCTOR_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}" v
  [ -r "$root/package.json" ] || return 0
  v="$(sed -n 's/^  "version": *"\([^"]*\)".*/\1/p' "$root/package.json" | head -n 1)"
  [ -z "$v" ] || printf 'v%s' "$v"
}

resolve_version() {
  local v="${PROCTOR_VERSION:-}" ref="${PROCTOR_ACTION_REF:-}" major
  if [ -z "$v" ]; then
    if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then v="$ref"; else v="$(own_version)"; fi
    [ -n "$v" ] ||
      fail 2 "Cannot tell which proctor to install: the action's package.json has no version; set the version input (v1.2.3 or latest)"
    # A major tag (v1) whose package.json says another major is a broken release, not a choice.
    if [[ "$ref" =~ ^v([0-9]+)$ ]]; then
      major="${BASH_REMATCH[1]}"
      [[ "$v" == "v${major}."* ]] ||
        fail 2 "Cannot install proctor ${v} for action ref ${ref}: its package.json is not a v${major} release; set the version input to choose one"
    fi
  fi
  [[ "$v" == latest || "$v" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
    fail 2 "Cannot install proctor version \"$v\": expected a release tag like v1.2.3, or latest"
  printf '%s' "$v"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

download() {
  curl --fail --silent --show-error --location --retry 3 --output "$2" "$1" ||
    fail 1 "Cannot download $1: check that release ${version} has the asset ${asset}"
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

# Ubuntu 23.10+ (the ubuntu-24.04 runners) restricts unprivileged user namespaces through AppArmor;
# run-eval's sandbox needs them and refuses to run unsandboxed.
sandbox_ready() {
  # PROCTOR_USERNS_KNOB: the tests point it at a file of their own.
  local knob="${PROCTOR_USERNS_KNOB:-/proc/sys/kernel/apparmor_restrict_unprivileged_userns}" fix
  fix="sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
  if [ -r "$knob" ] && [ "$(cat "$knob")" != 0 ]; then
    if as_root sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 >/dev/null 2>&1; then
      echo "proctor: allowed unprivileged user namespaces for run-eval's sandbox ($fix)" >&2
    else
      fail 1 "Cannot enable run-eval's sandbox: unprivileged user namespaces are restricted by AppArmor; run \`$fix\` in a step before this one (or set sandbox: false to only install)"
    fi
  fi
  if ! command -v bwrap >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && as_root true 2>/dev/null; then
    # bubblewrap is run-eval's preferred sandbox; without it, it falls back to unshare(1).
    as_root apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null 2>&1 ||
      echo "proctor: could not install bubblewrap; run-eval will use unshare" >&2
  fi
}

plat="$(platform)"
version="$(resolve_version)"
asset="proctor-${plat}.tar.gz"
repo="${PROCTOR_REPO:-${GITHUB_ACTION_REPOSITORY:-}}"
if [ -n "${PROCTOR_DOWNLOAD_BASE:-}" ]; then
  base="${PROCTOR_DOWNLOAD_BASE%/}"
elif [ -z "$repo" ]; then
  fail 2 "Cannot tell where to download proctor from: set PROCTOR_REPO (owner/name) or PROCTOR_DOWNLOAD_BASE"
elif [ "$version" = latest ]; then
  base="https://github.com/${repo}/releases/latest/download"
else
  base="https://github.com/${repo}/releases/download/${version}"
fi

dest="${PROCTOR_INSTALL_DIR:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/proctor/${version}/${plat}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

download "${base}/SHA256SUMS" "$work/SHA256SUMS"
download "${base}/${asset}" "$work/${asset}"
want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
[ -n "$want" ] || fail 1 "Cannot verify ${asset}: SHA256SUMS of ${version} has no line for it"
got="$(sha256_of "$work/${asset}")"
[ "$got" = "$want" ] || fail 1 "Cannot verify ${asset}: sha256 is ${got}, SHA256SUMS says ${want}"

mkdir -p "$work/unpack"
tar -xzf "$work/${asset}" -C "$work/unpack"
bin="$work/unpack/proctor-${plat}"
[ -x "$bin/proctor" ] || fail 1 "Cannot install ${asset}: it holds no proctor-${plat}/proctor"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$bin" "$dest"

installed="$("$dest/proctor" --version)" || fail 1 "Cannot run $dest/proctor on this runner"
[ "${PROCTOR_SANDBOX:-true}" = false ] || [ "$(uname -s)" != Linux ] || sandbox_ready

[ -z "${GITHUB_PATH:-}" ] || echo "$dest" >>"$GITHUB_PATH"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "bin-dir=$dest" >>"$GITHUB_OUTPUT"
  echo "version=$installed" >>"$GITHUB_OUTPUT"
fi
echo "proctor ${installed} (${plat}) installed in ${dest}" >&2

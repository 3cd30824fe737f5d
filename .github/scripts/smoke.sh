#!/usr/bin/env bash
# Smoke test of one release archive, run by release.yml before anything is published and by
# tests/dist/release.test.ts: unpacks it, checks the layout (proctor plus one link per tool), the
# version, that every link answers like `proctor <tool>`, and two real jobs: a branch lint through
# grade and a hermetic case through run-eval (sandboxed, so the sandbox must be able to start).
#   bash .github/scripts/smoke.sh dist/proctor-linux-x64.tar.gz 0.1.0 evals/cases/issue-creator/basic
# Prints one "ok ..." line per check on stderr; exits 1 at the first failure, naming it.
set -euo pipefail

archive="${1:?usage: smoke.sh ARCHIVE VERSION CASE_DIR}"
want_version="${2:?usage: smoke.sh ARCHIVE VERSION CASE_DIR}"
case_dir="$(cd "${3:?usage: smoke.sh ARCHIVE VERSION CASE_DIR}" && pwd)"
tools=(agent-eval eval-mcp eval-steps gh-shim grade run-eval)

fail() {
  printf '::error title=smoke::%s\n' "$*" >&2
  exit 1
}
ok() { printf 'ok %s\n' "$*" >&2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
dir="$(find "$work" -mindepth 1 -maxdepth 1 -type d)"
[ "$(printf '%s\n' "$dir" | wc -l)" = 1 ] || fail "$archive: expected one top-level folder"

got="$(cd "$dir" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ')"
expected="$(printf '%s\n' proctor "${tools[@]}" | sort | tr '\n' ' ')"
[ "$got" = "$expected" ] || fail "$archive holds \"$got\", expected \"$expected\""
for t in "${tools[@]}"; do
  [ "$(readlink "$dir/$t")" = proctor ] || fail "$archive: $t is not a link to proctor"
done
ok "layout: proctor and ${#tools[@]} links"

version="$("$dir/proctor" --version)" || fail "$dir/proctor --version exited $?"
[ "$version" = "$want_version" ] || fail "proctor --version printed \"$version\", expected \"$want_version\""
ok "version $version"

for t in "${tools[@]}"; do
  set +e
  via_link="$("$dir/$t" --help 2>&1)"
  link_rc=$?
  via_word="$("$dir/proctor" "$t" --help 2>&1)"
  word_rc=$?
  set -e
  if [ "$link_rc" != "$word_rc" ] || [ "$via_link" != "$via_word" ]; then
    fail "$t --help (exit $link_rc) differs from proctor $t --help (exit $word_rc)"
  fi
done
ok "every link answers like proctor <tool>"

"$dir/grade" lint-branch fix/1-release-smoke >/dev/null || fail "grade lint-branch exited $?"
ok "grade lint-branch"

"$dir/run-eval" "$case_dir" >"$work/run-eval.log" 2>&1 || {
  cat "$work/run-eval.log" >&2
  fail "run-eval $case_dir exited $?"
}
ok "run-eval $(basename "$case_dir")"

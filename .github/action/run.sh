#!/usr/bin/env bash
# The run step of action.yml, kept in a file so it runs (and is tested) outside GitHub too: builds one
# Proctor command from the action's inputs, runs it, and when compare-to is given compares the run's
# JSON against that base (Markdown into the job summary, and a pull-request comment when a token is
# given). Runs nothing when neither cases nor args is given (install only).
#
# Environment (the action's inputs; all optional):
#   PROCTOR_CASES       folder of cases (or one case): run-eval --junit PROCTOR_JUNIT [-j PROCTOR_JOBS]
#   PROCTOR_ARGS        a Proctor command line instead: "agent-eval suite s.yaml --trials t.jsonl",
#                       split like a shell does (quotes, backslashes) but never expanded or run by one
#   PROCTOR_SHARD       K/N, appended as --shard K/N (K 0-based: a matrix index or $JOB_COMPLETION_INDEX)
#   PROCTOR_REPORT      appended as --report FILE (the action uploads FILE as an artifact)
#   PROCTOR_KEEP        appended as --keep DIR (the action uploads DIR as an artifact)
#   PROCTOR_RESULT      the run's JSON: with cases, run-eval --json writes it; with args, the command
#                       must (e.g. --scorecard FILE); default proctor-result.json when comparing
#   PROCTOR_COMPARE_TO  the base JSON: `<tool> compare BASE RESULT` (tool: run-eval, or args' first word)
#   GH_TOKEN            with compare-to on a pull request: post the comparison as a comment (gh api);
#                       kept from the command: not in its environment, nor in this script's
#                       /proc/<pid>/environ, nor on an open descriptor
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_REPOSITORY, GITHUB_REF  set by the runner
# Exit codes: the command's own; else the comparison's (1 something got worse, 2 a base it refuses);
# 2 bad input here.
set -uo pipefail

fail() {
  printf '::error title=proctor::%s\n' "$*" >&2
  exit 2
}

# The token is for gh alone, after the command: neither the command (nor the agents and subjects
# under it) nor compare may read it. `unset` is not enough: /proc/<pid>/environ keeps the
# environment a process was started with, and any process of the same user can read it (a --local
# agent among them). So this script runs itself again without GH_TOKEN (exec: same pid, a new
# environ), handed the token on a descriptor it reads and closes before the command starts. From then
# on the token is only in this shell's memory, which (unlike environ and open descriptors) needs
# ptrace rights to read, and a process the command starts has none over its parent. It reaches gh's
# environment alone, once the command has exited.
if [ -n "${GH_TOKEN:-}" ]; then
  token="$GH_TOKEN"
  unset GH_TOKEN
  PROCTOR_TOKEN_FD=3 exec "$BASH" "${BASH_SOURCE[0]}" ${1+"$@"} 3<<<"$token"
fi
unset GH_TOKEN
token=""
if [ "${PROCTOR_TOKEN_FD:-}" = 3 ]; then
  IFS= read -r token <&3 || true
  exec 3<&-
fi
unset PROCTOR_TOKEN_FD
cases="${PROCTOR_CASES:-}" args="${PROCTOR_ARGS:-}" shard="${PROCTOR_SHARD:-}"
report="${PROCTOR_REPORT:-}" keep="${PROCTOR_KEEP:-}" base="${PROCTOR_COMPARE_TO:-}"
if [ -z "$cases" ] && [ -z "$args" ]; then
  for input in shard report keep compare-to; do
    v="PROCTOR_$(printf '%s' "$input" | tr a-z- A-Z_)"
    [ -z "${!v:-}" ] || fail "Cannot use the $input input without cases or args: name what to run"
  done
  exit 0
fi
[ -z "$cases" ] || [ -z "$args" ] || fail "Cannot use both cases and args: cases runs run-eval, args any command; give one"
[ -z "$shard" ] || [[ "$shard" =~ ^[0-9]+/[0-9]+$ ]] ||
  fail "Cannot use shard \"$shard\": expected K/N with 0 <= K < N (K 0-based: 0/4 .. 3/4)"
result="${PROCTOR_RESULT:-}"
[ -z "$base" ] || result="${result:-proctor-result.json}"

if [ -n "$cases" ]; then
  tool=run-eval
  cmd=(run-eval --junit "${PROCTOR_JUNIT:-proctor-junit.xml}")
  [ -z "${PROCTOR_JOBS:-}" ] || cmd+=(-j "$PROCTOR_JOBS")
else
  # xargs splits like a shell (quotes, backslashes) without expanding $, globs or backquotes; read
  # -d '' instead of mapfile keeps macOS's bash 3.2 working.
  split="$(mktemp)"
  printf '%s' "$args" | xargs printf '%s\0' >"$split" 2>/dev/null ||
    { rm -f "$split"; fail "Cannot split args \"$args\": unmatched quote or trailing backslash"; }
  words=()
  while IFS= read -r -d '' w; do words+=("$w"); done <"$split"
  rm -f "$split"
  # "proctor agent-eval ..." and "agent-eval ..." are the same command.
  [ "${words[0]:-}" != proctor ] || words=("${words[@]:1}")
  [ -n "${words[0]:-}" ] || fail "Cannot run args \"$args\": expected a command such as agent-eval suite SUITE.yaml"
  tool="${words[0]}"
  cmd=(proctor "${words[@]}")
  # --local runs agents on the runner itself, as this user: nothing isolates them from it.
  if [ -n "$token" ] && [[ " ${words[*]} " == *" --local "* ]]; then
    echo "::warning title=proctor::--local runs the agents on this runner with no isolation: the token is kept from them, but they can change what later steps run (the tools on PATH) or outlive the command" >&2
  fi
fi
[ -z "$shard" ] || cmd+=(--shard "$shard")
[ -z "$report" ] || cmd+=(--report "$report")
[ -z "$keep" ] || cmd+=(--keep "$keep")

# Artifact names must differ between a matrix's jobs: the shard goes into them.
suffix="${shard:+-shard-${shard%/*}-of-${shard#*/}}"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "report-artifact=proctor-report${suffix}"
    echo "keep-artifact=proctor-keep${suffix}"
    echo "result=${result}"
  } >>"$GITHUB_OUTPUT"
fi

echo "proctor: ${cmd[*]}${cases:+${result:+ --json >$result}}" >&2
if [ -n "$cases" ] && [ -n "$result" ]; then
  cmd+=(--json "$cases")
  "${cmd[@]}" >"$result"
else
  [ -z "$cases" ] || cmd+=("$cases")
  "${cmd[@]}"
fi
code=$?
[ -n "$base" ] || exit "$code"

# The comparison: Markdown on stdout, into the summary and (with a token, on a pull request) a comment.
[ -f "$base" ] || fail "Cannot compare against \"$base\": no such file (compare-to takes a path, or artifact:NAME/FILE)"
[ -f "$result" ] || {
  printf '::error title=proctor::Cannot compare: the run wrote no %s (with args, write it with the command, e.g. --scorecard %s)\n' "$result" "$result" >&2
  exit $((code ? code : 2))
}
md="$(mktemp)"
trap 'rm -f "$md"' EXIT
"$tool" compare "$base" "$result" >"$md"
compared=$?
# 0 compared; 1 compared, and something got worse (run-eval compare): the Markdown says what.
if [ "$compared" -le 1 ]; then
  [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$md" >>"$GITHUB_STEP_SUMMARY"
  if [ -n "$token" ] && [[ "${GITHUB_REF:-}" =~ ^refs/pull/([0-9]+)/ ]]; then
    # gh reads the token from GH_TOKEN: it is never on a command line or in the log.
    GH_TOKEN="$token" gh api --method POST "repos/${GITHUB_REPOSITORY}/issues/${BASH_REMATCH[1]}/comments" -F "body=@$md" --silent ||
      echo "::warning title=proctor::Cannot post the comparison on pull request ${BASH_REMATCH[1]}: it is in the job summary" >&2
  fi
fi
exit $((code ? code : compared))

#!/usr/bin/env bash
# Stand-in for issue-resolver asked to fix an issue that is already closed as completed (#5). The
# resolver reads the issue once, cuts no branch, makes no commit and opens no PR; it records why
# and writes an already_resolved run-log row with pr null.
# Artifacts: issue.json, issue.md, skip.md, run-record.json.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"
cd "$OUT"

issue=5

# json_str KEY < JSON: the string field KEY of the gh --json object on stdin, unescaped; exit 1
# when the object has no such string.
json_str() { python3 -c 'import json, sys; v = json.load(sys.stdin.buffer).get(sys.argv[1]); isinstance(v, str) or sys.exit(1); sys.stdout.buffer.write(v.encode())' "$1"; }

issue_json=$(gh issue view "$issue" --json number,title,state,stateReason,labels,body)
printf '%s\n' "$issue_json" > issue.json
json_str body <<< "$issue_json" > issue.md
echo >> issue.md
state=$(json_str state <<< "$issue_json") || state="unknown"
reason=$(json_str stateReason <<< "$issue_json") || reason=""

if [[ $state == OPEN ]]; then
  echo "✗ issue #$issue is open: this stand-in covers only the already-resolved path" >&2
  exit 1
fi

reason=${reason,,}
printf 'Issue #%d is %s (%s): nothing to resolve. No branch, commit or PR was made.\n' \
  "$issue" "${state,,}" "${reason:-no reason given}" > skip.md
printf '{"ts":"2026-08-12T09:30:00Z","issue":%d,"mode":"auto","skill":"issue-resolver","complexity":"low","profile":"light","qa_cycles":0,"outcome":"already_resolved","pr":null,"duration_s":3,"skipped_reason":"issue %s as %s"}\n' \
  "$issue" "${state,,}" "${reason:-unknown}" > run-record.json

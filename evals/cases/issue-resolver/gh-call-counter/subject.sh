#!/usr/bin/env bash
# Stand-in for issue-resolver's repeated reads of one issue (#7), done by the repository's own
# cached issue reader gi-issue.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR, never the checkout's).
# The resolver's read pattern, and what each read costs:
#   read 1       preflight          cache miss  -> gh issue view
#   read 2       planning           TTL hit     -> no gh call
#   invalidate   after editing #7   entries dropped, no gh call
#   read 3       acceptance check   cache miss  -> gh issue view
#   read 4       closing report     --refresh   -> gh issue view
# so the shim's call log must hold exactly 3 identical issue views. --ttl 86400 makes read 2 a hit
# on any clock; the cache lives in the scratch working directory (.gitissue/cache).
# Artifacts: reads.txt (one outcome per step), issue.md (the body from the last read).
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"
mkdir -p "$OUT"

issue=7
reader="$SCRIPTS/gi-issue.py"

# read_issue [FLAG...]: one cached read of #7; prints "fetched" or "cached" and keeps the payload.
read_issue() {
  python3 "$reader" "$issue" --fields number,title,body,labels,state --ttl 86400 "$@" > "$OUT/.last-read.json"
  python3 -c 'import json, sys; print("cached" if json.load(open(sys.argv[1]))["cached"] else "fetched")' "$OUT/.last-read.json"
}

{
  echo "read-1 $(read_issue)"
  echo "read-2 $(read_issue)"
  dropped=$(python3 "$reader" "$issue" --invalidate | python3 -c 'import json, sys; print(json.load(sys.stdin)["dropped"])')
  echo "invalidate dropped=$dropped"
  echo "read-3 $(read_issue)"
  echo "read-4 $(read_issue --refresh)"
} > "$OUT/reads.txt"

python3 -c 'import json, sys; sys.stdout.write(json.load(open(sys.argv[1]))["issue"]["body"] + "\n")' "$OUT/.last-read.json" > "$OUT/issue.md"
rm -f "$OUT/.last-read.json"

expected=$(printf '%s\n' 'read-1 fetched' 'read-2 cached' 'invalidate dropped=1' 'read-3 fetched' 'read-4 fetched')
if [[ $(< "$OUT/reads.txt") != "$expected" ]]; then
  echo "✗ unexpected cache outcomes:" >&2
  cat "$OUT/reads.txt" >&2
  exit 1
fi

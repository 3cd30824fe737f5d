#!/usr/bin/env bash
# Stand-in for auto-pilot's QA loop on #21 (PR #31, whose test check keeps failing). Each QA cycle
# reads the PR's checks; a failing check means one more fix-and-recheck cycle, but never more than
# the class ceiling (profile light: 1; complexity high: 5; otherwise 2). At the ceiling auto-pilot
# stops, explains why on the PR, leaves it open and writes a left_open run-log row whose qa_cycles
# equals the ceiling. controls/one-more-cycle.json is the row an uncapped loop would have written
# (one cycle over the ceiling, no breach_reason); the run-log validator must reject it.
# Artifacts: issue.json, qa/cycle-<n>.json, qa-stop.md, run-record.json, controls/one-more-cycle.json.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT/qa" "$OUT/controls"
cd "$OUT"

issue=21
branch="fix/21-invoice-rounding"
profile=full

gh issue view "$issue" --json number,title,state,labels > issue.json
complexity=$(python3 -c '
import json, sys
names = [l["name"] for l in json.load(open(sys.argv[1]))["labels"]]
print(next((n.split(":", 1)[1] for n in names if n.startswith("complexity:")), "medium"))' issue.json)
case $complexity in trivial) complexity=low ;; complex) complexity=high ;; esac
if [[ $profile == light ]]; then ceiling=1; elif [[ $complexity == high ]]; then ceiling=5; else ceiling=2; fi

pr=$(gh pr list --head "$branch" --state open --json number | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["number"])')

cycles=0
verdict=fail
while ((cycles < ceiling)); do
  cycles=$((cycles + 1))
  gh pr checks "$pr" --json name,bucket > "qa/cycle-$cycles.json"
  verdict=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print("pass" if c and all(x["bucket"] in ("pass", "skipping") for x in c) else "fail")' "qa/cycle-$cycles.json")
  [[ $verdict == pass ]] && break
done

if [[ $verdict == pass ]]; then
  echo "✗ this stand-in covers only the ceiling path" >&2
  exit 1
fi

failing=$(python3 -c 'import json, sys; print(", ".join(x["name"] for x in json.load(open(sys.argv[1])) if x["bucket"] not in ("pass", "skipping")))' "qa/cycle-$cycles.json")
{
  echo "auto-pilot stopped after $cycles QA cycles: the ceiling for a $complexity issue on the $profile profile is $ceiling."
  echo
  echo "Still failing: $failing. The PR stays open for a human."
} > qa-stop.md
gh pr comment "$pr" --body-file qa-stop.md > /dev/null

row() { # row QA_CYCLES
  printf '{"ts":"2026-10-05T07:30:00Z","issue":%d,"mode":"auto","skill":"auto-pilot","complexity":"%s","profile":"%s","qa_cycles":%d,"outcome":"left_open","pr":%d,"duration_s":1480}\n' \
    "$issue" "$complexity" "$profile" "$1" "$pr"
}
row "$cycles" > run-record.json
row $((ceiling + 1)) > controls/one-more-cycle.json

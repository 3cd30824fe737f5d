#!/usr/bin/env bash
# Stand-in for auto-pilot's merge gate over its queue (open issues labelled auto-pilot). Per issue,
# in ascending order:
#   dependency gate  a `Depends on #M` line whose issue is still open blocks the issue;
#   checks gate      every check of its PR must pass;
#   review gate      the PR's review decision must be APPROVED;
# and only a PR through all three is merged. Each gate outcome is recorded as an empty file
# gates/<issue>.<outcome>, each issue's run-log row as runs/<issue>.json. Two deliberately invalid
# rows under controls/ (a resolver outcome in an auto-pilot row; qa_cycles over the class ceiling
# without breach_reason) and their corrected twin prove the run-log validator is not vacuous.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT/gates" "$OUT/runs" "$OUT/controls"
cd "$OUT"

# json_str KEY < JSON: the string field KEY of the gh --json object on stdin, unescaped; exit 1
# when the object has no such string.
json_str() { python3 -c 'import json, sys; v = json.load(sys.stdin.buffer).get(sys.argv[1]); isinstance(v, str) or sys.exit(1); sys.stdout.buffer.write(v.encode())' "$1"; }
# json_all KEY < JSON: every KEY value of the gh --json array of objects on stdin, one per line.
json_all() { python3 -c 'import json, sys; [print(o[sys.argv[1]]) for o in json.load(sys.stdin.buffer) if sys.argv[1] in o]' "$1"; }

# What the resolver reported per issue (complexity, profile, qa_cycles, duration_s).
declare -A complexity=([1]=low [2]=medium [3]=high [4]=medium)
declare -A profile=([1]=light [2]=full [3]=full [4]=full)
declare -A qa_cycles=([1]=1 [2]=2 [3]=4 [4]=0)
declare -A duration=([1]=240 [2]=610 [3]=1320 [4]=5)

gate() { : > "gates/$1.$2"; }

row() { # row ISSUE OUTCOME PR
  printf '{"ts":"2026-09-01T12:00:00Z","issue":%d,"mode":"auto","skill":"auto-pilot","complexity":"%s","profile":"%s","qa_cycles":%d,"outcome":"%s","pr":%s,"duration_s":%d}\n' \
    "$1" "${complexity[$1]}" "${profile[$1]}" "${qa_cycles[$1]}" "$2" "$3" "${duration[$1]}" > "runs/$1.json"
}

issues=$(gh issue list --label auto-pilot --state open --json number,title)
queue=$(json_all number <<< "$issues" | sort -n)

# Each PR's issue is the number its branch carries (<type>/<issue>-<slug>).
declare -A pr_of=()
prs=$(gh pr list --state open --label auto-pilot --json number,headRefName)
mapfile -t heads < <(json_all headRefName <<< "$prs")
mapfile -t numbers < <(json_all number <<< "$prs")
for k in "${!heads[@]}"; do
  if [[ ${heads[k]} =~ ^[a-z]+/([0-9]+)- ]]; then
    pr_of[${BASH_REMATCH[1]}]=${numbers[k]}
  fi
done

for issue in $queue; do
  view=$(gh issue view "$issue" --json body)
  body=$(json_str body <<< "$view") || body=""
  blocked=""
  while IFS= read -r line; do
    if [[ ${line,,} =~ depends\ on\ #([0-9]+) ]]; then
      dep=${BASH_REMATCH[1]}
      dep_view=$(gh issue view "$dep" --json state)
      state=$(json_str state <<< "$dep_view") || state="unknown"
      if [[ $state == OPEN ]]; then
        blocked=$dep
      fi
    fi
  done <<< "$body"
  if [[ -n $blocked ]]; then
    gate "$issue" "blocked-by-$blocked"
    row "$issue" blocked_by_dependency null
    continue
  fi

  pr=${pr_of[$issue]:-}
  if [[ -z $pr ]]; then
    gate "$issue" no-pr
    row "$issue" failed null
    continue
  fi

  checks_json=$(gh pr checks "$pr" --json name,bucket)
  buckets=$(json_all bucket <<< "$checks_json")
  [[ -n $buckets ]] || buckets=pending # no checks reported yet
  checks=pass
  while IFS= read -r bucket; do
    case $bucket in
      pass | skipping) ;;
      pending) [[ $checks == fail ]] || checks=pending ;;
      *) checks=fail ;;
    esac
  done <<< "$buckets"
  gate "$issue" "checks-$checks"
  if [[ $checks != pass ]]; then
    row "$issue" left_open "$pr"
    continue
  fi

  review_json=$(gh pr view "$pr" --json reviewDecision)
  decision=$(json_str reviewDecision <<< "$review_json") || decision=""
  case $decision in
    APPROVED) gate "$issue" review-approved ;;
    CHANGES_REQUESTED) gate "$issue" review-changes-requested ;;
    *) gate "$issue" review-required ;;
  esac
  if [[ $decision != APPROVED ]]; then
    row "$issue" left_open "$pr"
    continue
  fi

  gh pr merge "$pr" --squash --delete-branch
  gate "$issue" merged
  row "$issue" merged "$pr"
done

# Controls: the validator must reject these two rows and accept the corrected one.
printf '{"ts":"2026-09-01T12:00:00Z","issue":1,"mode":"auto","skill":"auto-pilot","complexity":"low","profile":"light","qa_cycles":1,"outcome":"success","pr":11,"duration_s":240}\n' \
  > controls/wrong-vocabulary.json
printf '{"ts":"2026-09-01T12:00:00Z","issue":2,"mode":"auto","skill":"auto-pilot","complexity":"medium","profile":"full","qa_cycles":3,"outcome":"left_open","pr":12,"duration_s":610}\n' \
  > controls/over-ceiling.json
printf '{"ts":"2026-09-01T12:00:00Z","issue":2,"mode":"auto","skill":"auto-pilot","complexity":"medium","profile":"full","qa_cycles":3,"breach_reason":"flaky e2e suite retried once","outcome":"left_open","pr":12,"duration_s":610}\n' \
  > controls/over-ceiling-with-reason.json

#!/usr/bin/env bash
# Stand-in for plan-to-issues given a plan by file path (docs/plans/login-hardening.md in the
# fixture repository, the subject's working directory). It lists the repository's issues through
# `gh api` (title and labels), creates the plan label, files the plan as a parent issue and each
# task as a child issue unless an issue with that title exists (then it only adds the missing
# label), and links every task not yet under the parent as a sub-issue (the REST sub_issues API
# takes the issue's id, not its number). Running it again over a filed plan files nothing.
# Artifacts: issues/<slug>.md (one normalized body per filed issue), issue-map.tsv.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
plan_path="docs/plans/login-hardening.md"
plan="$PWD/$plan_path"
[[ -f $plan ]] || {
  echo "✗ plan not found: $plan_path" >&2
  exit 1
}
mkdir -p "$OUT"
cd "$OUT"

repo="repos/eval/harness"
label="plan/login-hardening"

slug() {
  local s=${1,,}
  s=${s//[^a-z0-9]/-}
  while [[ $s == *--* ]]; do s=${s//--/-}; done
  s=${s#-}
  printf '%s' "${s%-}"
}

# Parse the plan: "# Plan: <title>", then "### <task>" blocks. "- Key: value" lines belong to the
# block above them; slot 0 is the plan itself, slots 1.. are its tasks in plan order.
declare -a titles=("") currents=("") expecteds=("") priorities=("") efforts=("") criteria=("")
i=0
while IFS= read -r line || [[ -n $line ]]; do
  case $line in
    "# Plan: "*) titles[0]=${line#"# Plan: "} ;;
    "### "*)
      i=${#titles[@]}
      titles[i]=${line#"### "}
      currents[i]="" expecteds[i]="" priorities[i]="" efforts[i]="" criteria[i]=""
      ;;
    "- "*": "*)
      key=${line#- }
      key=${key%%:*}
      value=${line#*: }
      case $key in
        Current) currents[i]=$value ;;
        Expected) expecteds[i]=$value ;;
        Priority) priorities[i]=$value ;;
        Effort) efforts[i]=$value ;;
        Criterion) criteria[i]+="${value}"$'\n' ;;
      esac
      ;;
  esac
done < "$plan"

# write_body FILE SLOT PARENT: a normalized IDD issue body (Type Bug) for the plan (slot 0) or a task.
write_body() {
  local file=$1 i=$2 parent=$3 item
  mkdir -p "${file%/*}"
  {
    echo "<!-- gitissue:normalized v1 -->"
    echo
    echo "## Type"
    echo
    echo "Bug"
    echo
    echo "## Description"
    echo
    if [[ -n $parent ]]; then
      echo "Part of #$parent"
      echo
    fi
    echo "**Current behavior:**"
    echo "${currents[i]^}"
    echo
    echo "**Expected behavior:**"
    echo "${expecteds[i]^}"
    echo
    echo "> **Reporter Context**"
    echo "> Filed by plan-to-issues from $plan_path"
    echo
    echo "## Acceptance Criteria"
    echo
    if ((i == 0)); then
      for ((t = 1; t < ${#titles[@]}; t++)); do
        echo "- [ ] ${titles[t]}"
      done
    else
      while IFS= read -r item; do
        [[ -z $item ]] || echo "- [ ] ${item^}"
      done <<< "${criteria[i]}"
    fi
    echo
    echo "## Metadata"
    echo
    echo "**Priority:** ${priorities[i]}"
    echo "**Effort:** ${efforts[i]}"
    echo "**Labels:** bug, $label"
  } > "$file"
}

# 1. What is already filed: number<TAB>title<TAB>labels per issue (pull requests excluded).
declare -A existing=() labels_of=()
listing=$(gh api --paginate "$repo/issues" \
  --jq '.[] | select(.pull_request == null) | [.number, .title, ([.labels[].name] | join(","))] | @tsv')
while IFS=$'\t' read -r number title names; do
  [[ -z $number ]] && continue
  existing[$title]=$number
  labels_of[$number]=",$names,"
done <<< "$listing"

# 2. The label every issue of this plan carries (--force: creating it again is not an error).
gh label create "$label" --color 5319E7 --description "Filed from $plan_path" --force

# 3. The parent issue, then each task: file what is new; label what exists but lacks the label.
number_of() { # number_of URL
  local n=${1##*/}
  [[ $n =~ ^[0-9]+$ ]] || {
    echo "✗ unexpected issue URL: $1" >&2
    return 1
  }
  printf '%s' "$n"
}
: > issue-map.tsv
file_or_label() { # file_or_label SLOT PARENT ROLE: sets $n to the issue for plan slot SLOT
  local title=${titles[$1]} body url
  if [[ -n ${existing[$title]:-} ]]; then
    n=${existing[$title]}
    if [[ ${labels_of[$n]} != *",$label,"* ]]; then
      gh issue edit "$n" --add-label "$label" > /dev/null
    fi
    printf '%s\t%s\t%s\texisting\n' "$n" "$title" "$3" >> issue-map.tsv
  else
    body="issues/$(slug "$title").md"
    write_body "$body" "$1" "$2"
    url=$(gh issue create --title "$title" --body-file "$body" --label "$label")
    n=$(number_of "$url")
    printf '%s\t%s\t%s\tcreated\n' "$n" "$title" "$3" >> issue-map.tsv
  fi
}
file_or_label 0 "" parent
parent=$n
declare -a children=()
for ((t = 1; t < ${#titles[@]}; t++)); do
  file_or_label "$t" "$parent" task
  children+=("$n")
done

# 4. Link every task not yet under the parent (the REST API takes the issue's id, not its number);
#    the parent's sub-issue total must grow by one with each link.
linked=$(gh api "$repo/issues/$parent/sub_issues" --jq '.[].number')
total_now=0
declare -A is_linked=()
while IFS= read -r number; do
  [[ -z $number ]] && continue
  is_linked[$number]=1
  total_now=$((total_now + 1))
done <<< "$linked"
for n in "${children[@]}"; do
  [[ -z ${is_linked[$n]:-} ]] || continue
  id=$(gh api "$repo/issues/$n" --jq .id)
  total=$(gh api --method POST "$repo/issues/$parent/sub_issues" -F "sub_issue_id=$id" --jq .sub_issues_summary.total)
  total_now=$((total_now + 1))
  if [[ $total != "$total_now" ]]; then
    echo "✗ linking #$n under #$parent: expected $total_now sub-issues, GitHub reports $total" >&2
    exit 1
  fi
done

#!/usr/bin/env bash
# Stand-in for issue-creator given a report too thin to normalize ("login broken pls fix": no
# current or expected behavior, nothing to write acceptance criteria from). The skill keeps the body
# as received, checks for a duplicate, and asks for the missing facts instead of filing an issue.
# Artifacts: issue.md (the raw body, which must fail idd-lint), needs-info.md; no issue-url.txt.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"
cd "$OUT"

body="login broken pls fix"
printf '%s\n' "$body" > issue.md

matches=$(gh issue list --search "login broken" --state open --json number,title,url)
if [[ $matches != "[]" ]]; then
  printf 'Possible duplicate of an open issue:\n%s\n' "$matches" > needs-info.md
  exit 0
fi

missing=()
[[ $body == *"**Current behavior:**"* ]] || missing+=("What happens now (exact steps, device, error text)?")
[[ $body == *"**Expected behavior:**"* ]] || missing+=("What should happen instead?")
[[ $body == *"- [ ] "* ]] || missing+=("How will we know it is fixed (acceptance criteria)?")

if ((${#missing[@]} > 0)); then
  {
    echo "Not filed: the report is too thin to normalize into an IDD issue."
    echo
    for question in "${missing[@]}"; do
      echo "- $question"
    done
  } > needs-info.md
  exit 0
fi

echo "✗ unreachable: a one-line report never carries the structured fields" >&2
exit 1

#!/usr/bin/env bash
# Stand-in for issue-creator given a bug report that states what happens and what should happen,
# but gives nothing to verify a fix against. The skill drafts the normalized issue from what it was
# told, searches for a duplicate, and checks the draft before filing: with no acceptance criterion
# (no `- [ ]` item under `## Acceptance Criteria`) it does not invent one and does not file; it asks
# the reporter for the criteria instead.
# Artifacts: draft.md (must fail idd-lint on the missing criteria), needs-info.md; no issue-url.txt.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"
cd "$OUT"

current="Importing a CSV saved by Excel as UTF-8 drops the first column: its header starts with a byte order mark and no longer matches."
expected="The importer ignores a leading byte order mark, so the first column is imported like the others."
context="Seen by two customers this week; both files come from Excel's 'CSV UTF-8' save option."
criteria=() # the report named none

{
  echo "<!-- gitissue:normalized v1 -->"
  echo
  echo "## Type"
  echo
  echo "Bug"
  echo
  echo "## Description"
  echo
  echo "**Current behavior:**"
  echo "$current"
  echo
  echo "**Expected behavior:**"
  echo "$expected"
  echo
  echo "> **Reporter Context**"
  echo "> $context"
  echo
  echo "## Acceptance Criteria"
  echo
  if ((${#criteria[@]} == 0)); then
    echo "_None given yet._"
  else
    printf -- '- [ ] %s\n' "${criteria[@]}"
  fi
  echo
  echo "## Metadata"
  echo
  echo "**Priority:** P2"
  echo "**Effort:** S"
  echo "**Labels:** bug, import"
} > draft.md

matches=$(gh issue list --search "csv import byte order mark" --state open --json number,title,url)
if [[ $matches != "[]" ]]; then
  printf 'Possible duplicate of an open issue:\n%s\n' "$matches" > needs-info.md
  exit 0
fi

if ! grep -Eq '^[[:space:]]*[-*] \[[ xX]\] [^[:space:]]' draft.md; then
  {
    echo "Not filed: the draft has no acceptance criteria, and a fix cannot be verified without them."
    echo
    echo "- How will we know the import is fixed? For example: which file should import, and which columns must match?"
  } > needs-info.md
  exit 0
fi

echo "✗ unreachable: this report carries no acceptance criteria" >&2
exit 1

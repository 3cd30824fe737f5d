#!/usr/bin/env bash
# Stand-in for issue-creator: turns a one-line bug report into a normalized IDD issue, checks for a
# duplicate, files the issue, reads it back and names the branch the resolver will work on.
# Artifacts: request.txt, issue.md, issue-url.txt, issue.json, branch.txt.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"
cd "$OUT"

request="Create a bug issue for mobile login redirect loop"
title="Mobile login redirect loop"
slug="mobile-login-redirect"
printf '%s\n' "$request" > request.txt

# Duplicate check first: an open or closed issue with the same subject is reused, not refiled.
matches=$(gh issue list --search "mobile login redirect" --state all --json number,title,state)
if [[ $matches != "[]" ]]; then
  echo "✗ possible duplicate, not filing: $matches" >&2
  exit 1
fi

cat > issue.md <<EOF
<!-- gitissue:normalized v1 -->

## Type

Bug

## Description

**Current behavior:**
Mobile users hit a redirect loop after login: the app returns to the login screen instead of the home screen.

**Expected behavior:**
Login completes and lands on the home screen.

> **Reporter Context**
> ${request}

## Acceptance Criteria

- [ ] Mobile login completes without a redirect loop
- [ ] Desktop login continues to work

## Metadata

**Priority:** P1
**Effort:** S
**Labels:** bug, auth
EOF

url=$(gh issue create --title "$title" --body-file issue.md)
printf '%s\n' "$url" > issue-url.txt
number=${url##*/}
case $number in
  '' | *[!0-9]*)
    echo "✗ unexpected issue URL: $url" >&2
    exit 1
    ;;
esac

# Read the issue back: it must exist and be open before a branch is named after it.
gh issue view "$number" --json number,title,state > issue.json
if [[ $(< issue.json) != *'"state":"OPEN"'* ]]; then
  echo "✗ issue #$number is not open" >&2
  exit 1
fi
printf 'fix/%s-%s\n' "$number" "$slug" > branch.txt

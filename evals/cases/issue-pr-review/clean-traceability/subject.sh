#!/usr/bin/env bash
# Stand-in for issue-pr-review on PR #8, a clean delivery of issue #7: conventional title and
# branch, `Closes #7`, a Decision Record and a passing AC table. The reviewer approves.
# Artifacts: pr-title.txt, branch.txt, pr-body.md, issue.json, review.md.
# The review itself is the repository's gi-pr-review.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR):
# it reads the PR and its issue through gh, writes the artifacts and submits the verdict.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"
mkdir -p "$OUT"
cd "$OUT"

python3 "$SCRIPTS/gi-pr-review.py" 8

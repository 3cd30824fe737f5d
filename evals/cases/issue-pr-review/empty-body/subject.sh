#!/usr/bin/env bash
# Stand-in for issue-pr-review on PR #61 for issue #44, opened with an empty body: a conventional
# title and branch, but no `Closes #44`, no Decision Record and no acceptance-criteria evidence.
# The reviewer must list all three and request changes, never approve.
# Artifacts: pr-title.txt, branch.txt, pr-body.md (empty but for its newline), issue.json, review.md.
# The review itself is the repository's gi-pr-review.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR):
# it reads the PR and its issue through gh, writes the artifacts and submits the verdict.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"
mkdir -p "$OUT"
cd "$OUT"

python3 "$SCRIPTS/gi-pr-review.py" 61

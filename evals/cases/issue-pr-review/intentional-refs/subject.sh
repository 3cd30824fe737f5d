#!/usr/bin/env bash
# Stand-in for issue-pr-review on two intentional partial deliveries of issue #42 (`Refs #42`):
# PR #43 delivers one criterion and defers the other (approve); PR #44 defers every criterion, so
# nothing is delivered and `Refs` is not a valid link (request changes).
# Artifacts: pr-43/ and pr-44/, each with pr-title.txt, branch.txt, pr-body.md, issue.json, review.md.
# The review itself is the repository's gi-pr-review.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR):
# it reads the PR and its issue through gh, writes the artifacts and submits the verdict.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"
mkdir -p "$OUT"
cd "$OUT"

python3 "$SCRIPTS/gi-pr-review.py" 43 --dir pr-43
python3 "$SCRIPTS/gi-pr-review.py" 44 --dir pr-44

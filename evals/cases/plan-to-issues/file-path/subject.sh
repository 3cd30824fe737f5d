#!/usr/bin/env bash
# Stand-in for plan-to-issues given a plan by file path (docs/plans/login-hardening.md in the
# fixture repository, the subject's working directory). It lists the repository's issues through
# `gh api` (title and labels), creates the plan label, files the plan as a parent issue and each
# task as a child issue unless an issue with that title exists (then it only adds the missing
# label), and links every task not yet under the parent as a sub-issue (the REST sub_issues API
# takes the id, not its number). Running it again over a filed plan files nothing.
# Artifacts: issues/<slug>.md (one normalized body per filed issue), issue-map.tsv.
# The work is the repository's gi-plan.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR); it reads the
# plan from the working directory and writes the artifacts into $OUT.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"

python3 "$SCRIPTS/gi-plan.py" docs/plans/login-hardening.md --repo eval/harness --label plan/login-hardening --out "$OUT"

#!/usr/bin/env bash
# Stand-in for plan-to-issues re-run over a plan that is already filed (sync). The plan, its parent
# issue #12 and all three tasks exist; #9 was filed by hand before the plan and lacks the plan
# label, and #14 is not linked under the parent yet. The same stand-in as plan-to-issues/file-path
# must file nothing, add the one missing label and link only #14.
# Artifacts: issue-map.tsv (no issues/ bodies: nothing is filed).
# The work is the repository's gi-plan.py (a repo_scripts copy in $EVAL_SCRIPTS_DIR); it reads the
# plan from the working directory and writes the artifacts into $OUT.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
SCRIPTS="${EVAL_SCRIPTS_DIR:?EVAL_SCRIPTS_DIR is required}"

python3 "$SCRIPTS/gi-plan.py" docs/plans/login-hardening.md --repo eval/harness --label plan/login-hardening --out "$OUT"

#!/usr/bin/env bash
# Stand-in for issue-resolver on #11, whose title ("Crash when exporting a report with empty rows.")
# is what a careless agent would paste in as the commit message. The resolver drafts that message,
# checks it against the conventional-commit grammar, and because it fails, rewrites it from the
# issue: type from the labels (bug -> fix, enhancement -> feat, else chore), scope from an
# `area:<scope>` label, the title with a lowercase first letter and no final period, then ` (#11)`.
# Only the rewritten message is committed (in a throwaway git repository with a pinned identity and
# date) and used as the PR title. Artifacts: issue.json, commit-draft.txt, commit-check.txt,
# commit.txt, branch.txt, pr-title.txt, pr-body.md, pr-url.txt.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Eval Resolver" GIT_AUTHOR_EMAIL="resolver@eval.invalid"
export GIT_COMMITTER_NAME="Eval Resolver" GIT_COMMITTER_EMAIL="resolver@eval.invalid"
export GIT_AUTHOR_DATE="2026-10-02T14:00:00Z" GIT_COMMITTER_DATE="2026-10-02T14:00:00Z"

issue=11
gh issue view "$issue" --json number,title,state,labels,body > "$OUT/issue.json"

# conventional MSG: the commit grammar's first-line rules (type, optional scope, lowercase start,
# no final period, `(#N)` at the end); prints what is wrong, exits 1 when anything is.
conventional() {
  local re='^(feat|fix|refactor|docs|test|chore|style|perf)(\([a-z0-9._-]+\))?: (.+) \(#[0-9]+\)$'
  if [[ ! $1 =~ $re ]]; then
    echo "not <type>(<scope>): <description> (#N)"
    return 1
  fi
  local desc=${BASH_REMATCH[3]}
  if [[ $desc == [A-Z]* ]]; then echo "description starts uppercase"; return 1; fi
  if [[ $desc == *. ]]; then echo "description ends with a period"; return 1; fi
}

fields=$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
names = [l["name"] for l in i["labels"]]
kind = "fix" if "bug" in names else "feat" if "enhancement" in names else "chore"
scope = next((n.split(":", 1)[1] for n in names if n.startswith("area:")), "")
print(kind); print(scope); print(i["title"])' "$OUT/issue.json")
{ read -r kind; read -r scope; read -r issue_title; } <<< "$fields"

draft=$issue_title
printf '%s\n' "$draft" > "$OUT/commit-draft.txt"
if why=$(conventional "$draft"); then
  echo "✗ this stand-in covers only a non-conventional draft" >&2
  exit 1
fi
printf 'draft rejected: %s\n' "$why" > "$OUT/commit-check.txt"

desc=${issue_title%.}
desc="${desc,}"
message="${kind}${scope:+($scope)}: ${desc} (#${issue})"
why=$(conventional "$message") || { echo "✗ rewritten message still fails: $why" >&2; exit 1; }
printf 'rewritten: %s\n' "$message" >> "$OUT/commit-check.txt"

slug=$(tr 'A-Z' 'a-z' <<< "$desc" | tr -cs 'a-z0-9' '\n' | head -n 5 | paste -sd- -)
branch="${kind}/${issue}-${slug}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q -b main
mkdir -p src
printf 'def rows(table):\n    return [r[0] for r in table]\n' > src/export.py
git add -A
git commit -q -m "chore: seed export module"
git checkout -q -b "$branch"
printf 'def rows(table):\n    return [r[0] for r in table if r]\n' > src/export.py
git add -A
git commit -q -m "$message"
git branch --show-current > "$OUT/branch.txt"
git log -1 --format=%s > "$OUT/commit.txt"
sha=$(git rev-parse --short=7 HEAD)

cd "$OUT"
cp commit.txt pr-title.txt
cat > pr-body.md <<PR
Closes #${issue}

## Summary

Skip empty rows when exporting, so a report with blank separator rows exports its data.

## Decision Record

- **Root cause:** rows() indexed the first cell of every row, and an empty row has none.
- **Options considered:** Option 1 — strip empty rows before rendering the table; Option 2 — skip empty rows in rows()
- **Options rejected:** Option 1 — the on-screen table keeps its separator rows
- **Selected option:** Option 2 — skip empty rows where the export reads them
- **Residual risk:** none identified for this fixture
- **Reproduction:** \`rows([["a"], []])\` raised IndexError before the fix

Analyzed at: \`${branch} @ ${sha}\` (2026-10-02)

## Acceptance Criteria Verification

| Criterion | Status | Evidence |
|-----------|--------|----------|
| A report with empty rows exports every non-empty row | pass | src/export.py skips empty rows |
| A report without empty rows exports unchanged | pass | same comprehension for non-empty rows |
PR
gh pr create --base main --head "$branch" --title "$message" --body-file pr-body.md > pr-url.txt

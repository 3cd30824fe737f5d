#!/usr/bin/env bash
# Stand-in for issue-resolver on a trivial bug (#1: login() always fails). It reads the issue, seeds
# a throwaway git repository with the buggy code, writes a regression test and watches it fail,
# fixes the code and watches it pass, commits on a conventional branch, opens the PR, waits for its
# checks and writes the run-log record. Git identity and dates are fixed so every run is identical.
# Artifacts: issue.json, issue.md, branch.txt, commit.txt, fix.diff, test-red.log, test-green.log,
# red-green.json, pr-title.txt, pr-body.md, pr-url.txt, run-record.json.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Eval Resolver" GIT_AUTHOR_EMAIL="resolver@eval.invalid"
export GIT_COMMITTER_NAME="Eval Resolver" GIT_COMMITTER_EMAIL="resolver@eval.invalid"
export GIT_AUTHOR_DATE="2026-08-11T10:00:00Z" GIT_COMMITTER_DATE="2026-08-11T10:00:00Z"

issue=1
branch="fix/${issue}-login-always-false"
title="fix(auth): return true when credentials match (#${issue})"

# json_str KEY < JSON: the string field KEY of the gh --json object on stdin, unescaped; exit 1
# when the object has no such string.
json_str() { python3 -c 'import json, sys; v = json.load(sys.stdin.buffer).get(sys.argv[1]); isinstance(v, str) or sys.exit(1); sys.stdout.buffer.write(v.encode())' "$1"; }

# 1. Read the issue once: it must be open, and its body is what the fix is judged against.
issue_json=$(gh issue view "$issue" --json number,title,state,labels,body)
printf '%s\n' "$issue_json" > "$OUT/issue.json"
state=$(json_str state <<< "$issue_json") || state="unknown"
if [[ $state != OPEN ]]; then
  echo "✗ issue #$issue is $state, not OPEN" >&2
  exit 1
fi
json_str body <<< "$issue_json" > "$OUT/issue.md"
echo >> "$OUT/issue.md"

# 2. A throwaway repository holding the bug.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q -b main
mkdir -p src tests
cat > src/auth.sh <<'EOF'
# login USER PIN: succeeds when the credentials match the configured account.
EXPECTED_USER="alice"
EXPECTED_PIN="2468"

login() {
  return 1
}
EOF
git add -A
git commit -q -m "chore: seed login module"

# 3. Regression test first: it must fail on the unfixed code (red).
git checkout -q -b "$branch"
cat > tests/test_login.sh <<'EOF'
#!/usr/bin/env bash
set -u
source src/auth.sh
login alice 2468 || { echo "FAIL: login rejects matching credentials"; exit 1; }
if login alice 1357; then echo "FAIL: login accepts a wrong PIN"; exit 1; fi
echo "ok: 2 checks passed"
EOF
if bash tests/test_login.sh > "$OUT/test-red.log" 2>&1; then red=0; else red=$?; fi

# 4. The fix, then the same test again (green).
cat > src/auth.sh <<'EOF'
# login USER PIN: succeeds when the credentials match the configured account.
EXPECTED_USER="alice"
EXPECTED_PIN="2468"

login() {
  [[ $1 == "$EXPECTED_USER" && $2 == "$EXPECTED_PIN" ]]
}
EOF
if bash tests/test_login.sh > "$OUT/test-green.log" 2>&1; then green=0; else green=$?; fi
printf '{"red_exit": %d, "green_exit": %d}\n' "$red" "$green" > "$OUT/red-green.json"
if ((red != 1 || green != 0)); then
  echo "✗ expected red then green, got red=$red green=$green" >&2
  exit 1
fi

git add -A
git commit -q -m "$title"
git branch --show-current > "$OUT/branch.txt"
git log -1 --format=%s > "$OUT/commit.txt"
git diff --no-color main..HEAD > "$OUT/fix.diff"
sha=$(git rev-parse --short=7 HEAD)

# 5. The PR: Closes the issue, carries the Decision Record and the acceptance-criteria evidence.
cd "$OUT"
printf '%s\n' "$title" > pr-title.txt
cat > pr-body.md <<EOF
Closes #${issue}

## Summary

Fix login() always failing, so matching credentials succeed and a wrong PIN is still refused.

## Decision Record

- **Root cause:** login() hardcoded \`return 1\` and never compared the credentials.
- **Options considered:** Option 1 — delete the function and inline the check; Option 2 — compare user and PIN against the configured account
- **Options rejected:** Option 1 — breaks every caller of the auth surface
- **Selected option:** Option 2 — compare credentials against the configured account
- **Residual risk:** none identified for this fixture
- **Reproduction:** \`bash tests/test_login.sh\` exited ${red} before the fix (red) and ${green} after it (green)

Analyzed at: \`${branch} @ ${sha}\` (2026-08-11)

## Acceptance Criteria Verification

| Criterion | Status | Evidence |
|-----------|--------|----------|
| login succeeds for matching credentials | pass | tests/test_login.sh red→green |
| login fails for a wrong PIN | pass | tests/test_login.sh |
EOF
gh pr create --base main --head "$branch" --title "$title" --body-file pr-body.md > pr-url.txt
pr=$(< pr-url.txt)
pr=${pr##*/}

# 6. Checks must be green before the run counts as a success.
checks=$(gh pr checks "$pr" --json name,state,bucket)
outcome=$(python3 -c 'import json, sys; c = json.load(sys.stdin.buffer); print("success" if c and all(x.get("bucket") in ("pass", "skipping") for x in c) else "failed")' <<< "$checks")

printf '{"ts":"2026-08-11T10:00:12Z","issue":%d,"mode":"auto","skill":"issue-resolver","complexity":"low","profile":"light","qa_cycles":1,"outcome":"%s","pr":%d,"duration_s":12}\n' \
  "$issue" "$outcome" "$pr" > run-record.json

#!/usr/bin/env bash
# Stand-in for issue-pr-review on PR #61 for issue #44, opened with an empty body: a conventional
# title and branch, but no `Closes #44`, no Decision Record and no acceptance-criteria evidence.
# The reviewer must list all three and request changes, never approve.
# Artifacts: pr-title.txt, branch.txt, pr-body.md (empty but for its newline), issue.json, review.md.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT"
cd "$OUT"

# review_pr PR PREFIX: reads the PR and its issue through gh and checks traceability the way
# issue-pr-review does: the title names the issue, the first body line links it (`Closes #N`, or
# `Refs #N` for an intentional partial delivery), the branch carries the issue number, and the
# Decision Record and AC evidence are present. Writes PREFIX{pr-title.txt,branch.txt,pr-body.md,
# issue.json,review.md} and submits --approve when nothing was found, --request-changes otherwise.
# Text is matched ASCII-only (re.A, bytes.lower), as bash does in the C locale.
review_pr() {
  python3 - "$@" <<'PY'
import json, os, re, subprocess, sys
pr, p = sys.argv[1:3]
gh = lambda *a: subprocess.run(["gh", *a], check=True, stdout=subprocess.PIPE, encoding="utf-8").stdout
low = lambda s: s.encode().lower().decode()
def put(name, text):
    with open(p + name, "w", encoding="utf-8") as f:
        f.write(text)
os.makedirs(p or ".", exist_ok=True)
view = json.loads(gh("pr", "view", pr, "--json", "title,headRefName,body"))
for name, key in ("pr-title.txt", "title"), ("branch.txt", "headRefName"), ("pr-body.md", "body"):
    put(name, view[key] + "\n")
title, branch = view["title"].rstrip("\n"), view["headRefName"].rstrip("\n")
findings, first, closing_named, in_ac, header, has_dr, rows, passed, deferred = [], "", 0, 0, 1, 0, 0, 0, 0
m = re.search(r"\(#([0-9]+)\)\Z", title, re.A)
issue = m and m[1]
if not issue:
    findings.append("The title does not name its issue as `(#N)`.")
closing = issue and rf"(^|[^a-z])(close[sd]?|fix(e[sd])?|resolve[sd]?)[\s:]+#{issue}([^0-9]|$)"
for line in (view["body"] + "\n").split("\n")[:-1]:
    if not first and re.sub(r"\s", "", line, flags=re.A):
        first = line
    if closing and re.search(closing, low(line), re.A):
        closing_named = 1
    if re.match(r"##\s", line, re.A):
        in_ac = line == "## Acceptance Criteria Verification"
        has_dr |= line == "## Decision Record"
    elif in_ac and line.startswith("|") and "---" not in line:
        if header:
            header = 0
            continue
        cells = line.split("|") + ["", "", ""]
        status = low(re.sub(r"\s", "", cells[2], flags=re.A))
        rows += 1
        passed += status == "pass"
        deferred += status == "unverified" and "deferred" in low(cells[3])
other = rows - passed - deferred
if issue:
    issue_json = gh("issue", "view", issue, "--json", "number,title,state").rstrip("\n")
    put("issue.json", issue_json + "\n")
    state = json.loads(issue_json).get("state")
    state = state if isinstance(state, str) else "unknown"
    if state != "OPEN":
        findings.append(f"Issue #{issue} is {state}, not OPEN.")
    if first == f"Refs #{issue}":
        if closing_named:
            findings.append(f"`Refs #{issue}` marks a partial delivery, but a closing keyword still names #{issue}.")
        if passed == 0 or other > 0:
            findings.append(f"`Refs #{issue}` needs at least one delivered criterion and every open one marked `unverified` with deferred evidence (rows: {passed} pass, {deferred} deferred, {other} other).")
    elif first != f"Closes #{issue}":
        findings.append(f"The first body line must be `Closes #{issue}` (or `Refs #{issue}` for an intentional partial delivery); got: `{first}`.")
    if not re.fullmatch(rf"(fix|feat|refactor|docs|test|chore)/{issue}(-[a-z0-9]+)+", branch, re.A):
        findings.append(f"Branch `{branch}` does not carry issue #{issue} as `<type>/{issue}-<slug>`.")
if not has_dr:
    findings.append("The body has no `## Decision Record`.")
if not rows:
    findings.append("The body has no acceptance-criteria evidence table.")
lines = [f"- {x}" for x in findings] or [f"No traceability findings: title, link line, branch, Decision Record and AC evidence agree with #{issue or ''}."]
put("review.md", "\n".join([f"## Traceability review of #{pr}", "", *lines]) + "\n")
print(gh("pr", "review", pr, "--request-changes" if findings else "--approve", "--body-file", p + "review.md"), end="")
PY
}

review_pr 61 ""

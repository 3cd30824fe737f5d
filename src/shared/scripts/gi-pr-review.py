#!/usr/bin/env python3
"""Review one pull request for issue traceability, the way issue-pr-review does.

    gi-pr-review.py PR [--dir DIR]

Reads the PR (`gh pr view PR --json title,headRefName,body`) and, when the title names its issue as
`(#N)`, the issue (`gh issue view N --json number,title,state`). It then checks that:

- the title ends in `(#N)`;
- issue #N is OPEN;
- the first non-blank body line is `Closes #N`, or `Refs #N` for an intentional partial delivery.
  `Refs #N` needs at least one `pass` criterion, every other criterion `unverified` with deferred
  evidence, and no closing keyword (close/fix/resolve and their forms) naming #N anywhere;
- the head branch is `<type>/N-<slug>` (type: fix, feat, refactor, docs, test or chore);
- the body has a `## Decision Record` and an `## Acceptance Criteria Verification` table.

It writes pr-title.txt, branch.txt, pr-body.md, issue.json (only when the title names an issue) and
review.md into DIR (default: the working directory), then submits the review with
`gh pr review PR --approve|--request-changes --body-file DIR/review.md`: approve only when nothing
was found. gh's output from that last call is printed. DIR is passed to gh as given, relative paths
included, so a call log that records argv verbatim stays stable.

Text is matched ASCII-only (re.A, bytes.lower), as bash does in the C locale.

gh is the first one on PATH, run without a shell. Exit codes: 0 reviewed (whatever the verdict);
2 usage; 4 gh missing or failed, or its output is not the expected JSON. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys


class GhFailed(Exception):
    """gh could not be run, or exited non-zero."""


def gh(*args: str) -> str:
    try:
        proc = subprocess.run(["gh", *args], stdout=subprocess.PIPE, encoding="utf-8", check=False)
    except OSError as exc:
        raise GhFailed(f"cannot run gh: {exc.strerror or exc}") from exc
    if proc.returncode != 0:
        raise GhFailed(f"gh {' '.join(args[:2])} exited {proc.returncode}")
    return proc.stdout


def low(text: str) -> str:
    """ASCII-only lower case (non-ASCII letters stay as they are)."""
    return text.encode().lower().decode()


def review(pr: str, out_dir: str) -> None:
    def put(name: str, text: str) -> None:
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(text)

    os.makedirs(out_dir or ".", exist_ok=True)
    view = json.loads(gh("pr", "view", pr, "--json", "title,headRefName,body"))
    for name, key in ("pr-title.txt", "title"), ("branch.txt", "headRefName"), ("pr-body.md", "body"):
        put(name, view[key] + "\n")
    title, branch = view["title"].rstrip("\n"), view["headRefName"].rstrip("\n")

    findings: list[str] = []
    m = re.search(r"\(#([0-9]+)\)\Z", title, re.A)
    issue = m and m[1]
    if not issue:
        findings.append("The title does not name its issue as `(#N)`.")

    # One pass over the body: the first non-blank line, any closing keyword naming the issue, the
    # Decision Record heading and the rows of the AC table (the first row is its header).
    closing = issue and rf"(^|[^a-z])(close[sd]?|fix(e[sd])?|resolve[sd]?)[\s:]+#{issue}([^0-9]|$)"
    first, closing_named, in_ac, header, has_dr = "", False, False, True, False
    rows = passed = deferred = 0
    for line in (view["body"] + "\n").split("\n")[:-1]:
        if not first and re.sub(r"\s", "", line, flags=re.A):
            first = line
        if closing and re.search(closing, low(line), re.A):
            closing_named = True
        if re.match(r"##\s", line, re.A):
            in_ac = line == "## Acceptance Criteria Verification"
            has_dr |= line == "## Decision Record"
        elif in_ac and line.startswith("|") and "---" not in line:
            if header:
                header = False
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
                findings.append(
                    f"`Refs #{issue}` needs at least one delivered criterion and every open one marked `unverified`"
                    f" with deferred evidence (rows: {passed} pass, {deferred} deferred, {other} other)."
                )
        elif first != f"Closes #{issue}":
            findings.append(
                f"The first body line must be `Closes #{issue}` (or `Refs #{issue}` for an intentional partial"
                f" delivery); got: `{first}`."
            )
        if not re.fullmatch(rf"(fix|feat|refactor|docs|test|chore)/{issue}(-[a-z0-9]+)+", branch, re.A):
            findings.append(f"Branch `{branch}` does not carry issue #{issue} as `<type>/{issue}-<slug>`.")
    if not has_dr:
        findings.append("The body has no `## Decision Record`.")
    if not rows:
        findings.append("The body has no acceptance-criteria evidence table.")

    lines = [f"- {x}" for x in findings] or [
        f"No traceability findings: title, link line, branch, Decision Record and AC evidence agree with #{issue or ''}."
    ]
    put("review.md", "\n".join([f"## Traceability review of #{pr}", "", *lines]) + "\n")
    verdict = "--request-changes" if findings else "--approve"
    sys.stdout.write(gh("pr", "review", pr, verdict, "--body-file", os.path.join(out_dir, "review.md")))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gi-pr-review.py", description="Review a PR for issue traceability.")
    parser.add_argument("pr", help="pull request number")
    parser.add_argument("--dir", default="", help="where the artifacts go (default: the working directory)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[0-9]+", args.pr, re.A):
        parser.error(f"PR must be a number, got {args.pr!r}")
    try:
        review(args.pr, args.dir)
    except GhFailed as exc:
        sys.stderr.write(f"✗ gi-pr-review: {exc}\n")
        return 4
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        sys.stderr.write(f"✗ gi-pr-review: unexpected gh output: {exc!r}\n")
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""File a markdown plan as GitHub issues, the way plan-to-issues does, and keep them in sync.

    gi-plan.py PLAN --repo OWNER/NAME --label LABEL [--out DIR]

PLAN (a path relative to the working directory, quoted as given in the issue bodies) holds
`# Plan: <title>`, then one `### <task>` block per task. `- Key: value` lines belong to the block
above them: Current, Expected, Priority, Effort, and any number of Criterion lines.

1. Lists the repository's issues (`gh api --paginate repos/OWNER/NAME/issues --jq ...`: number,
   title and labels; pull requests excluded).
2. Creates LABEL (`gh label create ... --force`, so an existing label is not an error).
3. Files the plan as the parent issue, then each task as a child issue, unless an issue with that
   title exists; an existing issue without LABEL only gets it (`gh issue edit N --add-label`).
   A filed issue's body is a normalized IDD issue (Type Bug), written to issues/<slug>.md and passed
   to `gh issue create` with --body-file. The parent's acceptance criteria are its task titles.
4. Links every task not yet under the parent as a sub-issue. The REST sub_issues API takes the
   issue's id, not its number, and the parent's sub-issue total must grow by one with each link.

Running it again over a filed plan files nothing. Artifacts, in DIR (default: the working
directory; gh gets paths relative to it): issues/<slug>.md per filed issue, and issue-map.tsv with
one `number<TAB>title<TAB>parent|task<TAB>created|existing` row per plan item.

Text is handled as bash does in the C locale (ASCII-only case mapping). gh is the first one on PATH,
run without a shell; its stderr, and the stdout of `label create`, pass through.
Exit codes: 0 done; 1 plan missing, unexpected issue URL or sub-issue total; 2 usage; gh's own exit
code when a gh call fails. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ENC = {"encoding": "utf-8", "errors": "surrogateescape"}
ISSUES_JQ = ".[] | select(.pull_request == null) | [.number, .title, ([.labels[].name] | join(\",\"))] | @tsv"
FIELDS = {"Current": "current", "Expected": "expected", "Priority": "priority", "Effort": "effort"}


class Stop(Exception):
    """Ends the run with an exit code (and a message, when there is one)."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def gh(*args: str, capture: bool = True, quiet: bool = False) -> str:
    """Runs gh; returns its stdout without trailing newlines (as `$(gh ...)` does) when captured."""
    stdout = subprocess.PIPE if capture else subprocess.DEVNULL if quiet else None
    try:
        proc = subprocess.run(["gh", *args], stdout=stdout, check=False, **ENC)
    except OSError as exc:
        raise Stop(127, f"✗ cannot run gh: {exc.strerror or exc}") from exc
    if proc.returncode != 0:
        raise Stop(proc.returncode if proc.returncode > 0 else 128 - proc.returncode)
    return (proc.stdout or "").rstrip("\n")


def lines_of(text: str) -> list[str]:
    """The lines `while read` sees in a here-string of text (which ends in one added newline)."""
    return text.split("\n")


def split_tabs(line: str, count: int) -> list[str]:
    """`IFS=$'\\t' read -r a b c`: tabs are IFS whitespace, so a run of them is one separator and
    leading and trailing ones are dropped; the last name takes the rest of the line."""
    fields = re.split(r"\t+", line.strip("\t"), maxsplit=count - 1)
    return fields + [""] * (count - len(fields))


def lower(text: str) -> str:
    """`${s,,}` in the C locale: ASCII letters only."""
    return re.sub(r"[A-Z]+", lambda m: m[0].lower(), text)


def capitalize(text: str) -> str:
    """`${s^}` in the C locale: an ASCII first letter goes upper case, nothing else changes."""
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", lower(title)).strip("-")


def parse_plan(text: str) -> list[dict]:
    """Slot 0 is the plan itself, slots 1.. its tasks in plan order."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    slots = [{"title": "", "current": "", "expected": "", "priority": "", "effort": "", "criteria": []}]
    i = 0
    for line in lines:
        if line.startswith("# Plan: "):
            slots[0]["title"] = line[len("# Plan: "):]
        elif line.startswith("### "):
            slots.append({"title": line[4:], "current": "", "expected": "", "priority": "", "effort": "", "criteria": []})
            i = len(slots) - 1
        elif line.startswith("- ") and ": " in line[2:]:
            key, value = line[2:].split(":", 1)[0], line[line.index(": ") + 2:]
            if key in FIELDS:
                slots[i][FIELDS[key]] = value
            elif key == "Criterion":
                slots[i]["criteria"].append(value)
    return slots


def issue_body(slots: list[dict], i: int, parent: str, plan_path: str, label: str) -> str:
    s = slots[i]
    out = ["<!-- gitissue:normalized v1 -->", "", "## Type", "", "Bug", "", "## Description", ""]
    if parent:
        out += [f"Part of #{parent}", ""]
    out += ["**Current behavior:**", capitalize(s["current"]), ""]
    out += ["**Expected behavior:**", capitalize(s["expected"]), ""]
    out += ["> **Reporter Context**", f"> Filed by plan-to-issues from {plan_path}", ""]
    out += ["## Acceptance Criteria", ""]
    if i == 0:
        out += [f"- [ ] {task['title']}" for task in slots[1:]]
    else:
        out += [f"- [ ] {capitalize(item)}" for item in s["criteria"] if item]
    out += ["", "## Metadata", "", f"**Priority:** {s['priority']}", f"**Effort:** {s['effort']}"]
    out += [f"**Labels:** bug, {label}"]
    return "\n".join(out) + "\n"


def file_plan(plan_path: str, repo: str, label: str, out_dir: str) -> None:
    plan = os.path.join(os.getcwd(), plan_path)
    if not os.path.isfile(plan):
        raise Stop(1, f"✗ plan not found: {plan_path}")
    os.makedirs(out_dir, exist_ok=True)
    os.chdir(out_dir)
    with open(plan, newline="", **ENC) as f:
        slots = parse_plan(f.read())
    api = f"repos/{repo}"

    # 1. What is already filed.
    existing: dict[str, str] = {}
    labels_of: dict[str, str] = {}
    for line in lines_of(gh("api", "--paginate", f"{api}/issues", "--jq", ISSUES_JQ)):
        number, title, names = split_tabs(line, 3)
        if number:
            existing[title] = number
            labels_of[number] = f",{names},"

    # 2. The label every issue of this plan carries.
    gh("label", "create", label, "--color", "5319E7", "--description", f"Filed from {plan_path}", "--force", capture=False)

    # 3. The parent issue, then each task: file what is new; label what exists but lacks the label.
    with open("issue-map.tsv", "w", **ENC):
        pass

    def file_or_label(i: int, parent: str, role: str) -> str:
        title = slots[i]["title"]
        if existing.get(title):
            n = existing[title]
            if f",{label}," not in labels_of[n]:
                gh("issue", "edit", n, "--add-label", label, capture=False, quiet=True)
            state = "existing"
        else:
            body = f"issues/{slug(title)}.md"
            os.makedirs(os.path.dirname(body), exist_ok=True)
            with open(body, "w", **ENC) as f:
                f.write(issue_body(slots, i, parent, plan_path, label))
            url = gh("issue", "create", "--title", title, "--body-file", body, "--label", label)
            n = url.rsplit("/", 1)[-1]
            if not re.fullmatch(r"[0-9]+", n, re.A):
                raise Stop(1, f"✗ unexpected issue URL: {url}")
            state = "created"
        with open("issue-map.tsv", "a", **ENC) as f:
            f.write(f"{n}\t{title}\t{role}\t{state}\n")
        return n

    parent = file_or_label(0, "", "parent")
    children = [file_or_label(t, parent, "task") for t in range(1, len(slots))]

    # 4. Link every task not yet under the parent.
    linked = [n for n in (line.strip(" \t") for line in lines_of(gh("api", f"{api}/issues/{parent}/sub_issues", "--jq", ".[].number"))) if n]
    is_linked, total_now = set(linked), len(linked)
    for n in children:
        if n in is_linked:
            continue
        issue_id = gh("api", f"{api}/issues/{n}", "--jq", ".id")
        total = gh("api", "--method", "POST", f"{api}/issues/{parent}/sub_issues", "-F", f"sub_issue_id={issue_id}",
                   "--jq", ".sub_issues_summary.total")
        total_now += 1
        if total != str(total_now):
            raise Stop(1, f"✗ linking #{n} under #{parent}: expected {total_now} sub-issues, GitHub reports {total}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gi-plan.py", description="File a markdown plan as GitHub issues.")
    parser.add_argument("plan", help="the plan file, relative to the working directory")
    parser.add_argument("--repo", required=True, help="OWNER/NAME")
    parser.add_argument("--label", required=True, help="the label every issue of the plan carries")
    parser.add_argument("--out", default=".", help="where the artifacts go (default: the working directory)")
    args = parser.parse_args(argv)
    try:
        file_plan(args.plan, args.repo, args.label, args.out)
    except Stop as stop:
        if stop.message:
            sys.stderr.write(stop.message + "\n")
        return stop.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

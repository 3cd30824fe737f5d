#!/usr/bin/env bash
# Stand-in for issue-triage over the open issues: one `gh issue list` read, then a deterministic
# order: priority label first (P0 before P1 before P2 before P3, unlabelled last), then the lower
# issue number. Each body is normalized for the later skills (CRLF to LF, trailing spaces removed,
# one final newline) and kept as issues/<n>.md; a body without the `gitissue:normalized` marker is
# ranked but flagged for issue-creator in needs-normalization.txt.
# Artifacts: issues.json (gh's answer), ranking.txt (one line per rank), rank/<position>-<issue> (empty marker files),
# issues/<n>.md, needs-normalization.txt.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT/rank" "$OUT/issues"
cd "$OUT"

gh issue list --state open --limit 100 --json number,title,labels,body > issues.json

python3 - <<'PY'
import json, re
with open("issues.json", encoding="utf-8") as f:
    issues = json.load(f)
PRIORITY = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
def priority(issue):
    found = [PRIORITY[l["name"]] for l in issue.get("labels") or [] if l.get("name") in PRIORITY]
    return min(found) if found else len(PRIORITY)
def normalize(body):
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"
ranked = sorted(issues, key=lambda i: (priority(i), i["number"]))
flagged = []
with open("ranking.txt", "w", encoding="utf-8") as rank:
    for pos, issue in enumerate(ranked, 1):
        n, p = issue["number"], priority(issue)
        label = f"P{p}" if p < len(PRIORITY) else "--"
        body = normalize(issue.get("body") or "")
        with open(f"issues/{n}.md", "w", encoding="utf-8") as f:
            f.write(body)
        structured = re.search(r"<!--\s*gitissue:normalized\s+v\d+\s*-->", body) is not None
        if not structured:
            flagged.append(n)
        rank.write(f"{pos}. #{n} [{label}] {issue['title']}{'' if structured else '  (needs normalization)'}\n")
        open(f"rank/{pos}-{n}", "w").close()
with open("needs-normalization.txt", "w", encoding="utf-8") as f:
    f.write("".join(f"#{n}\n" for n in flagged))
PY

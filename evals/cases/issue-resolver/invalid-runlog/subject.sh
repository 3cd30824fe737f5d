#!/usr/bin/env bash
# Stand-in for issue-resolver's preflight on #9 in a repository whose run log (.gitissue/runs.jsonl,
# from fixture_repo/) holds rows an older writer got wrong: `failure` (not resolver vocabulary) and
# `merged` (auto-pilot vocabulary in a resolver row). The resolver audits every row with the run-log
# rules, keeps each row as runlog/<line>.json and lists the rejected ones in runlog/rejected.txt.
# Its failure streak for #9 counts consecutive `failed` rows from the newest, over valid rows only:
# an invalid row must not reset the counter. Three failures in a row (the threshold) quarantine #9:
# the resolver labels it needs-human and cuts no branch, commits nothing and opens no PR.
# Artifacts: runlog/<n>.json, runlog/rejected.txt, streak.json, issue.json, quarantine.md.
set -euo pipefail
OUT="${EVAL_OUT:?EVAL_OUT is required}"
mkdir -p "$OUT/runlog"

issue=9
threshold=3
log=.gitissue/runs.jsonl

gh issue view "$issue" --json number,title,state > "$OUT/issue.json"

streak=$(python3 - "$log" "$OUT/runlog" "$issue" "$threshold" <<'PY'
import json, re, sys
log, outdir, issue, threshold = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
OUTCOMES = {
    "issue-resolver": {"success", "already_resolved", "failed"},
    "auto-pilot": {"merged", "left_open", "partial_followup", "blocked_by_dependency", "failed", "skipped"},
}
def problem(row):
    if not isinstance(row, dict):
        return "not a JSON object"
    for key in ("issue", "mode", "skill", "outcome", "pr"):
        if key not in row:
            return f"missing {key}"
    if not isinstance(row.get("ts"), str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", row["ts"]):
        return "ts is not YYYY-MM-DDTHH:MM:SSZ"
    if type(row["issue"]) is not int:
        return "issue is not an integer"
    if row["skill"] not in OUTCOMES:
        return f"unknown skill {row['skill']!r}"
    if row["outcome"] not in OUTCOMES[row["skill"]]:
        return f"outcome {row['outcome']!r} is not {row['skill']} vocabulary"
    if row["pr"] is not None and type(row["pr"]) is not int:
        return "pr is neither an integer nor null"
    return None
valid, rejected = [], []
with open(log, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        if not line.strip():
            continue
        with open(f"{outdir}/{n}.json", "w", encoding="utf-8") as out:
            out.write(line if line.endswith("\n") else line + "\n")
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        why = problem(row) if row is not None else "not JSON"
        if why:
            rejected.append(f"line {n}: {why}\n")
        else:
            valid.append(row)
with open(f"{outdir}/rejected.txt", "w", encoding="utf-8") as f:
    f.write("".join(rejected))
streak = 0
for row in reversed(valid):
    if row["issue"] != issue:
        continue
    if row["outcome"] != "failed":
        break
    streak += 1
print(streak)
PY
)

quarantine=false
if ((streak >= threshold)); then quarantine=true; fi
printf '{"issue": %d, "quarantine": %s, "streak": %d, "threshold": %d}\n' "$issue" "$quarantine" "$streak" "$threshold" > "$OUT/streak.json"

if [[ $quarantine == true ]]; then
  gh issue edit "$issue" --add-label needs-human > /dev/null
  {
    echo "Issue #$issue is quarantined: $streak failed runs in a row (threshold $threshold)."
    echo "No branch, commit or PR was made; a human needs to look at it first."
    echo
    echo "Run-log rows skipped as invalid:"
    sed 's/^/- /' "$OUT/runlog/rejected.txt"
  } > "$OUT/quarantine.md"
  exit 0
fi

echo "✗ this stand-in covers only the quarantine path (streak $streak < $threshold)" >&2
exit 1

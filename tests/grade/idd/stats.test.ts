import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatG, pyRound } from "../../../lib/compat/py/repr.ts";
import { PyFloat } from "../../../lib/compat/py/value.ts";
import { run } from "../../../lib/core/proc.ts";
import { median, pct } from "../../../lib/grade/idd/_stats.ts";
import { runIddLint } from "../../../lib/grade/idd/cli.ts";
import { collectStats, normalizeSince, type SoftRun } from "../../../lib/grade/idd/stats.ts";
import { renderStats, statsJson } from "../../../lib/grade/idd/stats-report.ts";
import { tempDir } from "../../support/tmp.ts";

const RULE = "┄".repeat(59);
const RUNS = [
  '{"issue":1,"outcome":"success","qa_cycles":1,"duration_s":10,"complexity":"low"}',
  '{"issue":2,"outcome":"failed","qa_cycles":2,"duration_s":15}',
  "",
  "junk",
  '{"issue":1,"outcome":"skipped","qa_cycles":4,"duration_s":12.5,"complexity":"trivial"}',
].join("\n");

async function repo(dir: string): Promise<void> {
  const git = (...args: string[]) =>
    run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
      cwd: dir,
    });
  await git("init", "-q", "-b", "main");
  await git(
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "feat(x): add thing (#1)",
    "-m",
    "Closes #1\n\n## Decision Record\nx",
  );
  await git("commit", "-q", "--allow-empty", "-m", "bad subject");
  mkdirSync(join(dir, ".gitissue"));
  writeFileSync(join(dir, ".gitissue", "runs.jsonl"), `${RUNS}\n`);
}

describe("Python number helpers", () => {
  test("round half to even, pct, median, :g", () => {
    expect({
      round: [0.5, 1.5, 2.5, 2.4999, -0.5].map(pyRound),
      pct: [pct(1, 8), pct(1, 0), pct(5, 8)],
      median: [median([3, 1, 2]), median([1, 2]), median([]), median([true, 5, 0])],
      g: [2, new PyFloat(2.5), new PyFloat(3), 1234567, 0.0001, 0.00001234, 100000].map((v) => formatG(v)),
    }).toEqual({
      round: [0, 2, 2, 2, 0],
      pct: [12, null, 62],
      median: [2, new PyFloat(1.5), null, true],
      g: ["2", "2.5", "3", "1.23457e+06", "0.0001", "1.234e-05", "100000"],
    });
  });

  test("normalizeSince pins a bare date to midnight only", () => {
    expect([
      normalizeSince("2026-08-15"),
      normalizeSince(" 2026-08-15 "),
      normalizeSince("6 months ago"),
      normalizeSince(undefined),
    ]).toEqual(["2026-08-15 00:00:00", "2026-08-15 00:00:00", "6 months ago", undefined]);
  });
});

describe("idd-lint stats (local)", () => {
  test("text report", async () => {
    using dir = tempDir("idd-stats");
    await repo(dir.path);
    const r = await runIddLint(["stats", "--no-github"], { cwd: dir.path });
    expect(r).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: [
        "◆ idd-lint stats — evidence report · IDD Spec v1.1",
        `  project  ${dir.path.split("/").at(-1)}`,
        `  location ${dir.path}`,
        RULE,
        "",
        "  Git history — main · 2 non-merge commits",
        "    ⚠ conventional grammar         █████░░░░░   50%      1/2  §3.2",
        "    ⚠ trace completeness           █████░░░░░   50%      1/2  §5.1",
        "    ✓ DR coverage (local proxy)    ██████████  100%      1/1  §4",
        "      proxy — subject (#N) or `Closes #N` body; the GitHub join is authoritative",
        "",
        "  Run log — .gitissue/runs.jsonl · 3 runs",
        "      outcomes                     failed 1 · skipped 1 · success 1",
        "    ⚠ success rate                 █████░░░░░   50%      1/2",
        "      median QA cycles             2",
        "      median duration              12s",
        "      complexity mix               low 1 (median QA 1)",
        "",
        "  ○ GitHub — skipped: --no-github (local metrics unaffected)",
        "",
        RULE,
        "",
      ].join("\n"),
    });
  });

  test("--json: sorted keys, indent 2", async () => {
    using dir = tempDir("idd-stats");
    await repo(dir.path);
    const r = await runIddLint(["stats", "--no-github", "--json", "--branch", "main"], { cwd: dir.path });
    expect(JSON.parse(r.stdout)).toEqual({
      git: {
        branch: "main",
        closes_body_commits: 1,
        commits: 2,
        decision_records: 1,
        dr_pct: 100,
        grammar_ok: 1,
        grammar_pct: 50,
        issue_linked: 1,
        pr_derived_commits: 1,
        subject_and_closes_commits: 1,
        subject_ref_commits: 1,
        trace_pct: 50,
      },
      github: null,
      project: { location: dir.path, name: dir.path.split("/").at(-1) },
      runs: {
        attempted: 2,
        by_complexity: { low: { median_qa: 1, runs: 1 } },
        issues: [1, 2],
        median_duration_s: 12.5,
        median_qa_cycles: 2,
        outcomes: { failed: 1, skipped: 1, success: 1 },
        runs: 3,
        succeeded: 1,
        success_pct: 50,
      },
      spec_version: "1.1",
    });
    expect(r.stdout.startsWith('{\n  "git": {\n    "branch": "main",')).toBe(true);
  });

  test("outside a git repository with no run log both sections are skipped", async () => {
    using dir = tempDir("idd-stats");
    const r = await runIddLint(["stats", "--no-github"], { cwd: dir.path });
    expect(r.stdout.split("\n").slice(5, 8)).toEqual([
      "  ○ git history — skipped: not a git repository",
      "",
      "  ○ run log — skipped: .gitissue/runs.jsonl not found or empty",
    ]);
  });

  test("an undecodable run log is exit 2; bad options are usage errors", async () => {
    using dir = tempDir("idd-stats");
    mkdirSync(join(dir.path, ".gitissue"));
    writeFileSync(join(dir.path, ".gitissue", "runs.jsonl"), new Uint8Array([0xff]));
    const bad = await runIddLint(["stats", "--no-github"], { cwd: dir.path });
    expect([
      bad.exitCode,
      bad.stderr.startsWith("✗ Cannot read run log "),
      bad.stderr.endsWith(": not valid UTF-8\n"),
    ]).toEqual([2, true, true]);
    expect((await runIddLint(["stats", "--limit", "x"], { cwd: dir.path })).stderr).toEqual(
      "✗ idd-lint: argument --limit: invalid int value: 'x'\n",
    );
  });
});

describe("idd-lint stats (GitHub section, fake gh)", () => {
  const issues = JSON.stringify([
    { number: 1, body: "<!-- gitissue:normalized v1 -->\nx" },
    { number: 2, body: "plain" },
  ]);
  const prs = JSON.stringify([
    {
      number: 10,
      body: "Closes #1\n\n## Decision Record\nx",
      mergedAt: "2026-08-20T10:00:00Z",
      mergeCommit: { oid: "aaa" },
    },
    {
      number: 11,
      body: "Closes #2\n\n## Decision Record\ny",
      mergedAt: "2026-08-01T10:00:00Z",
      mergeCommit: { oid: "bbb" },
    },
    { number: 12, body: "## Decision Record\nz", mergedAt: "2026-08-21T10:00:00Z", mergeCommit: null },
    { number: 13, body: "no record", mergedAt: "2026-08-22T10:00:00Z", mergeCommit: { oid: "ccc" } },
  ]);
  const fake: SoftRun = async (cmd) => {
    const key = cmd.join(" ");
    if (key === "git rev-parse --show-toplevel") return "/nonexistent/proj\n";
    if (key === "gh repo view --json nameWithOwner") return '{"nameWithOwner":"o/proj"}';
    if (key.startsWith("git rev-parse --abbrev-ref origin/HEAD")) return "origin/trunk\n";
    if (key.startsWith("git log -1 --format=%B aaa")) return "feat: x (#1)\n\n## Decision Record\n";
    if (key.startsWith("git log -1 --format=%B bbb")) return "feat: y (#2)\n";
    if (key.startsWith("gh issue list --state open")) return issues;
    if (key.startsWith("gh pr list --state merged --limit 4 ")) return prs;
    if (key.startsWith("git rev-parse --since=2026-08-15 00:00:00")) return "--max-age=1786752000\n";
    return null;
  };

  test("lifetime binding, truncation, JSON document", async () => {
    const stats = await collectStats("/x", { limit: 4, noGithub: false }, fake);
    expect({ project: stats.project, git: stats.git, runs: stats.runs, github: stats.github }).toEqual({
      project: { name: "o/proj", location: "/nonexistent/proj" },
      git: null,
      runs: null,
      github: {
        open_issues: 2,
        open_normalized: 1,
        open_normalized_pct: 50,
        merged_prs: 4,
        merged_with_closes: 2,
        merged_closes_pct: 50,
        merged_with_dr: 3,
        merged_dr_pct: 75,
        dr_binding: {
          prs_with_dr: 3,
          merge_commit_resolved: 2,
          unresolved_no_sha: 1,
          unresolved_not_in_clone: 0,
          dr_landed: 1,
          dr_lost: 1,
          landed_pct: 50,
          truncated: true,
          window: null,
          adr: "docs/decisions/no-backfill-merged-decision-records.md",
        },
      },
    });
    expect(renderStats(stats).split("\n").slice(9)).toEqual([
      "  GitHub — via gh",
      "    ⚠ open issues normalized       █████░░░░░   50%      1/2  §1.1",
      "    ⚠ merged PRs · Closes #N       █████░░░░░   50%      2/4  §5.1",
      "    ⚠ merged PRs · Decision Record ████████░░   75%      3/4  §4.1",
      "    ○ DR landed in git (lifetime)  ░░░░░░░░░░     —      1/2  §4.3",
      "      lifetime shortfall is a recorded decision, not a regression",
      "      docs/decisions/no-backfill-merged-decision-records.md",
      "      run with --since to judge the binding as it stands today",
      "      1 of 3 PRs with a Decision Record lost it at merge",
      "      1 unresolved (1 no merge sha, 0 not in this clone)",
      "      excluded from the ratio, not counted as misses",
      "      PR page hit --limit — older merges are not in this sample",
      "",
      RULE,
      "",
    ]);
    expect(statsJson(stats).includes('"adr": "docs/decisions/no-backfill-merged-decision-records.md"')).toBe(
      true,
    );
  });

  test("a --since window counts only PRs merged inside it", async () => {
    const stats = await collectStats("/x", { limit: 4, noGithub: false, since: "2026-08-15" }, fake);
    const binding = (stats.github as Record<string, Record<string, unknown>>).dr_binding!;
    expect(binding.window).toEqual({
      since: "2026-08-15 00:00:00",
      prs_with_dr: 2,
      merge_commit_resolved: 1,
      unresolved_no_sha: 1,
      unresolved_not_in_clone: 0,
      dr_landed: 1,
      dr_lost: 0,
    });
    expect(renderStats(stats).split("\n").slice(13, 17)).toEqual([
      "    ✓ DR landed in git (window)    ██████████  100%      1/1  §4.3",
      "      window — merged since 2026-08-15 00:00:00",
      "      1 unresolved (1 no merge sha, 0 not in this clone)",
      "      excluded from the ratio, not counted as misses",
    ]);
  });

  test("an unresolvable --since is reported, not applied", async () => {
    const stats = await collectStats("/x", { limit: 4, noGithub: false, since: "garbage" }, fake);
    const binding = (stats.github as Record<string, Record<string, unknown>>).dr_binding!;
    expect(binding.window_error).toEqual({
      since: "garbage",
      reason: "could not be resolved (not a git repository?)",
    });
    expect(renderStats(stats)).toContain(
      "    ⚠ --since 'garbage' could not be resolved (not a git repository?)\n",
    );
  });
});

// The text and JSON forms of `idd-lint stats`, byte-compatible with idd-lint.py's render_stats on
// a non-terminal (no colour): ratio rows on one rail (verdict, 28-column label, 10-cell meter,
// percentage, counts, spec citation), info rows, and the §4.3 merge-binding block.
import { pyJsonDumps } from "../../compat/py/json.ts";
import { formatG, pyRepr, pyRound } from "../../compat/py/repr.ts";
import { num, type PyNum } from "../../compat/py/value.ts";
import { pct } from "./_stats.ts";
import { SPEC_VERSION } from "./report.ts";
import type { Stats } from "./stats.ts";

type Dict = Record<string, unknown>;
const LABEL_W = 28;
const METER_W = 10;
const RULE = "┄".repeat(59);

const padEnd = (s: string, w: number) => s + " ".repeat(Math.max(0, w - Array.from(s).length));
const padStart = (s: string, w: number) => " ".repeat(Math.max(0, w - Array.from(s).length)) + s;
const plural = (n: number) => (n !== 1 ? "s" : "");

function verdict(p: number): string {
  return p >= 80 ? "✓" : p >= 40 ? "⚠" : "✗";
}

function meter(p: number): string {
  const filled = Math.min(METER_W, pyRound((p / 100) * METER_W));
  return "█".repeat(filled) + "░".repeat(METER_W - filled);
}

function ratioRow(label: string, n: number, d: number, cite = ""): string {
  const p = pct(n, d);
  const counts = d ? `${n}/${d}` : "—";
  const tail = cite ? `  ${cite}` : "";
  if (p === null)
    return `    ○ ${padEnd(label, LABEL_W)} ${"░".repeat(METER_W)}     —  ${padStart(counts, 7)}${tail}`;
  return `    ${verdict(p)} ${padEnd(label, LABEL_W)} ${meter(p)}  ${padStart(String(p), 3)}%  ${padStart(counts, 7)}${tail}`;
}

const infoRow = (label: string, value: string) => `      ${padEnd(label, LABEL_W)} ${value}`;
const section = (title: string, context = "") => (context ? `  ${title} — ${context}` : `  ${title}`);
const n = (d: Dict, k: string) => d[k] as number;

function drBinding(b: Dict | undefined): string[] {
  if (!b) return [];
  const lines: string[] = [];
  const win = b.window as Dict | null;
  if (win) {
    lines.push(
      ratioRow("DR landed in git (window)", n(win, "dr_landed"), n(win, "merge_commit_resolved"), "§4.3"),
    );
    lines.push(`      window — merged since ${win.since}`);
    const lost = n(win, "dr_lost");
    if (lost) {
      lines.push(`    ⚠ ${lost} merged PR${plural(lost)} in this window lost the Decision Record at merge`);
      lines.push("      binding B1 is being defeated (§4.3)");
    }
  } else {
    const resolved = n(b, "merge_commit_resolved");
    const counts = resolved ? `${n(b, "dr_landed")}/${resolved}` : "—";
    lines.push(
      `    ○ ${padEnd("DR landed in git (lifetime)", LABEL_W)} ${"░".repeat(METER_W)}     —  ${padStart(counts, 7)}  §4.3`,
    );
    lines.push("      lifetime shortfall is a recorded decision, not a regression");
    lines.push(`      ${b.adr}`);
    const we = b.window_error as Dict | undefined;
    if (we) {
      lines.push(`    ⚠ --since ${pyRepr(String(we.since))} ${we.reason}`);
      lines.push("      window not applied — this is the lifetime row");
    } else {
      lines.push("      run with --since to judge the binding as it stands today");
    }
  }
  if (n(b, "dr_lost") && !win) {
    lines.push(
      `      ${n(b, "dr_lost")} of ${n(b, "prs_with_dr")} PRs with a Decision Record lost it at merge`,
    );
  }
  const src = win ?? b;
  const unresolved = n(src, "unresolved_no_sha") + n(src, "unresolved_not_in_clone");
  if (unresolved) {
    lines.push(
      `      ${unresolved} unresolved (${n(src, "unresolved_no_sha")} no merge sha, ${n(src, "unresolved_not_in_clone")} not in this clone)`,
    );
    lines.push("      excluded from the ratio, not counted as misses");
  }
  if (b.truncated) lines.push("      PR page hit --limit — older merges are not in this sample");
  return lines;
}

/** The text report (trailing newline included). */
export function renderStats(stats: Stats): string {
  const { project, git, runs, github } = stats;
  const out = [`◆ idd-lint stats — evidence report · IDD Spec v${SPEC_VERSION}`];
  out.push(`  project  ${project.name}`, `  location ${project.location}`, RULE, "");
  if (git === null) out.push("  ○ git history — skipped: not a git repository");
  else {
    const commits = n(git, "commits");
    out.push(section("Git history", `${git.branch} · ${commits} non-merge commit${plural(commits)}`));
    out.push(ratioRow("conventional grammar", n(git, "grammar_ok"), commits, "§3.2"));
    out.push(ratioRow("trace completeness", n(git, "issue_linked"), commits, "§5.1"));
    if (n(git, "pr_derived_commits")) {
      out.push(
        ratioRow("DR coverage (local proxy)", n(git, "decision_records"), n(git, "pr_derived_commits"), "§4"),
      );
      out.push("      proxy — subject (#N) or `Closes #N` body; the GitHub join is authoritative");
    } else {
      out.push("      DR coverage (local proxy) — no PR-derived commits on this branch (§4)");
    }
  }
  out.push("");
  if (runs === null) out.push("  ○ run log — skipped: .gitissue/runs.jsonl not found or empty");
  else {
    out.push(section("Run log", `.gitissue/runs.jsonl · ${n(runs, "runs")} run${plural(n(runs, "runs"))}`));
    const outcomes = Object.entries(runs.outcomes as Record<string, number>);
    out.push(infoRow("outcomes", outcomes.map(([k, v]) => `${k} ${v}`).join(" · ")));
    if (n(runs, "attempted")) out.push(ratioRow("success rate", n(runs, "succeeded"), n(runs, "attempted")));
    if (runs.median_qa_cycles != null)
      out.push(infoRow("median QA cycles", formatG(runs.median_qa_cycles as PyNum)));
    if (runs.median_duration_s != null) {
      out.push(infoRow("median duration", `${pyRound(num(runs.median_duration_s as PyNum))}s`));
    }
    const mix = Object.entries(runs.by_complexity as Record<string, Dict>);
    if (mix.length) {
      const parts = mix.map(
        ([lvl, v]) =>
          `${lvl} ${v.runs}${v.median_qa != null ? ` (median QA ${formatG(v.median_qa as PyNum)})` : ""}`,
      );
      out.push(infoRow("complexity mix", parts.join(" · ")));
    }
  }
  out.push("");
  if (github === null) {
    out.push(`  ○ GitHub — skipped: ${stats.githubSkipped || "gh unavailable"} (local metrics unaffected)`);
  } else {
    out.push(section("GitHub", "via gh"));
    out.push(
      ratioRow("open issues normalized", n(github, "open_normalized"), n(github, "open_issues"), "§1.1"),
    );
    if ("merged_prs" in github) {
      out.push(
        ratioRow("merged PRs · Closes #N", n(github, "merged_with_closes"), n(github, "merged_prs"), "§5.1"),
      );
      out.push(
        ratioRow(
          "merged PRs · Decision Record",
          n(github, "merged_with_dr"),
          n(github, "merged_prs"),
          "§4.1",
        ),
      );
    }
    out.push(...drBinding(github.dr_binding as Dict | undefined));
    const tiers = github.tiers as Record<string, Dict> | undefined;
    if (tiers && Object.keys(tiers).length) {
      out.push("", section("Issue quality → outcome", "runs joined with issue bodies"));
      for (const [name, t] of Object.entries(tiers)) {
        const qa = t.median_qa != null ? ` · median QA ${formatG(t.median_qa as PyNum)}` : "";
        out.push(infoRow(name, `n=${t.runs} · success ${t.success_pct}%${qa}`));
      }
      const saved = github.qa_cycles_saved as PyNum | undefined;
      if (saved !== undefined && num(saved) > 0) {
        out.push(
          `    ⚡ normalized issues resolve in ${formatG(saved)} fewer QA cycle${num(saved) !== 1 ? "s" : ""} (median)`,
        );
      }
    }
  }
  out.push("", RULE);
  return `${out.join("\n")}\n`;
}

/** The `--json` document: sorted keys, indent 2, ASCII-escaped, like json.dumps(indent=2, sort_keys=True). */
export function statsJson(stats: Stats): string {
  const doc = {
    spec_version: SPEC_VERSION,
    project: stats.project,
    git: stats.git,
    runs: stats.runs,
    github: stats.github,
  };
  return `${pyJsonDumps(doc, { indent: 2, sortKeys: true })}\n`;
}

// The gh-backed part of `idd-lint stats`: normalized open issues, merged-PR linkage, the §4.3 B1
// join of each merged PR's Decision Record to its landing commit (optionally windowed by --since),
// and run outcomes tiered by issue quality. Null when gh is missing, unauthenticated or offline.

import { strip } from "../../compat/py/text.ts";
import { type PyNum, pyEquals } from "../../compat/py/value.ts";
import {
  CLOSES_LINE_RE,
  type Dict,
  DR_HEADING,
  get,
  ghJson,
  isDict,
  median,
  pct,
  qaOf,
  readRows,
  SKIP,
  type SoftRun,
  SUCCESS,
  subtract,
  text,
} from "./_stats.ts";
import { MARKER_RE } from "./issue.ts";

const ADR_NO_BACKFILL = "docs/decisions/no-backfill-merged-decision-records.md";
const NOW_TOKENS = ["now", "today", "@now"];

async function sinceEpoch(soft: SoftRun, since: string | undefined): Promise<[number | null, string | null]> {
  if (!since) return [null, null];
  const out = await soft(["git", "rev-parse", `--since=${since}`]);
  const m = out ? /--max-age=([0-9]+)/.exec(out) : null;
  if (!m) return [null, "could not be resolved (not a git repository?)"];
  const epoch = Number(m[1]);
  const now = Math.floor(Date.now() / 1000);
  if (!NOW_TOKENS.includes(strip(since).toLowerCase()) && Math.abs(now - epoch) <= 2) {
    return [null, "did not parse as a date"];
  }
  return [epoch, null];
}

function mergedAtEpoch(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2}):(\d{1,2}):(\d{1,2})Z$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(t);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 61) return null;
  return Math.floor(t / 1000);
}

async function classifyMergeCommit(soft: SoftRun, oid: unknown): Promise<string> {
  if (!oid) return "no_sha";
  const body = await soft(["git", "log", "-1", "--format=%B", String(oid)]);
  if (body === null) return "not_in_clone";
  return body.includes(DR_HEADING) ? "landed" : "lost";
}

async function collectDrBinding(soft: SoftRun, merged: Dict[], limit: number, since?: string): Promise<Dict> {
  const withDr = merged.filter((p) => text(get(p, "body")).includes(DR_HEADING));
  const counts: Record<string, number> = { no_sha: 0, not_in_clone: 0, landed: 0, lost: 0 };
  const verdicts = new Map<Dict, string>();
  for (const pr of withDr) {
    const mc = get(pr, "mergeCommit");
    const verdict = await classifyMergeCommit(soft, isDict(mc) ? get(mc, "oid") : null);
    counts[verdict]!++;
    verdicts.set(pr, verdict);
  }
  const resolved = counts.landed! + counts.lost!;
  const binding: Dict = {
    prs_with_dr: withDr.length,
    merge_commit_resolved: resolved,
    unresolved_no_sha: counts.no_sha,
    unresolved_not_in_clone: counts.not_in_clone,
    dr_landed: counts.landed,
    dr_lost: counts.lost,
    landed_pct: pct(counts.landed!, resolved),
    truncated: merged.length === limit,
    window: null,
    adr: ADR_NO_BACKFILL,
  };
  if (since) {
    const [cutoff, error] = await sinceEpoch(soft, since);
    if (cutoff === null) binding.window_error = { since, reason: error };
    else {
      const inWindow = withDr.filter((p) => (mergedAtEpoch(get(p, "mergedAt")) || -1) >= cutoff);
      const n = (v: string) => inWindow.filter((p) => verdicts.get(p) === v).length;
      binding.window = {
        since,
        prs_with_dr: inWindow.length,
        merge_commit_resolved: n("landed") + n("lost"),
        unresolved_no_sha: n("no_sha"),
        unresolved_not_in_clone: n("not_in_clone"),
        dr_landed: n("landed"),
        dr_lost: n("lost"),
      };
    }
  }
  return binding;
}

/** gh-backed metrics, or null when gh is missing, unauthenticated or offline; `runs` is collectRunStats(runsPath). */
export async function collectGithubStats(
  soft: SoftRun,
  limit: number,
  runsPath: string,
  since: string | undefined,
  runs: Dict | null,
): Promise<Dict | null> {
  const open = await ghJson(soft, [
    "issue",
    "list",
    "--state",
    "open",
    "--limit",
    String(limit),
    "--json",
    "number,body",
  ]);
  if (!Array.isArray(open)) return null;
  const openIssues = (open as unknown[]).filter(isDict);
  const normalized = openIssues.filter((i) => MARKER_RE.test(text(get(i, "body")))).length;
  const result: Dict = {
    open_issues: open.length,
    open_normalized: normalized,
    open_normalized_pct: pct(normalized, open.length),
  };
  const mergedRaw = await ghJson(soft, [
    "pr",
    "list",
    "--state",
    "merged",
    "--limit",
    String(limit),
    "--json",
    "number,body,mergedAt,mergeCommit",
  ]);
  if (Array.isArray(mergedRaw)) {
    const merged = (mergedRaw as unknown[]).filter(isDict);
    const closes = merged.filter((p) => CLOSES_LINE_RE.test(text(get(p, "body")))).length;
    const dr = merged.filter((p) => text(get(p, "body")).includes(DR_HEADING)).length;
    Object.assign(result, {
      merged_prs: merged.length,
      merged_with_closes: closes,
      merged_closes_pct: pct(closes, merged.length),
      merged_with_dr: dr,
      merged_dr_pct: pct(dr, merged.length),
      dr_binding: await collectDrBinding(soft, merged, limit, since),
    });
  }
  if (runs && (runs.issues as unknown[]).length) {
    const all = await ghJson(soft, [
      "issue",
      "list",
      "--state",
      "all",
      "--limit",
      String(Math.max(limit, 500)),
      "--json",
      "number,body",
    ]);
    if (Array.isArray(all)) {
      const markers = (all as unknown[])
        .filter(isDict)
        .map((i) => [get(i, "number"), MARKER_RE.test(text(get(i, "body")))] as const);
      const markerOf = (issue: unknown) => markers.find(([n]) => pyEquals(n, issue))?.[1];
      const rows = (readRows(runsPath, false) ?? []).filter(
        (r) => !SKIP.includes(get(r, "outcome") as string),
      );
      const tiers: Record<string, Dict> = {};
      for (const [name, wanted] of [
        ["normalized", true],
        ["unnormalized", false],
      ] as const) {
        const sub = rows.filter((r) => markerOf(get(r, "issue")) === wanted);
        if (sub.length === 0) continue;
        const won = sub.filter((r) => SUCCESS.includes(get(r, "outcome") as string)).length;
        tiers[name] = { runs: sub.length, success_pct: pct(won, sub.length), median_qa: median(qaOf(sub)) };
      }
      if (Object.keys(tiers).length) {
        result.tiers = tiers;
        const norm = tiers.normalized?.median_qa as PyNum | null | undefined;
        const unnorm = tiers.unnormalized?.median_qa as PyNum | null | undefined;
        if (norm != null && unnorm != null) result.qa_cycles_saved = subtract(unnorm, norm);
      }
    }
  }
  return result;
}

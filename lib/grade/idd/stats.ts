// `idd-lint stats`: the read-only evidence report's data. Trace completeness and Decision-Record
// coverage from `git log`, aggregates of `.gitissue/runs.jsonl`, and optional gh-backed metrics
// (normalized issues, merged-PR linkage, the §4.3 B1 merge-commit join). Every probe is soft: a
// failing git or gh call leaves its section out. Rendering is stats-report.ts.
import { basename, join } from "node:path";
import { pyStr } from "../../compat/py/repr.ts";
import { D, strip } from "../../compat/py/text.ts";
import { PyFloat, type PyNum, pyEquals } from "../../compat/py/value.ts";
import {
  CLOSES_LINE_RE,
  type Dict,
  DR_HEADING,
  get,
  ghJson,
  isDict,
  isInt,
  median,
  pct,
  qaOf,
  readRows,
  SKIP,
  type SoftRun,
  SUCCESS,
  softRunner,
} from "./_stats.ts";
import { COMMIT_RE } from "./commit.ts";
import { collectGithubStats } from "./stats-github.ts";

export { type SoftRun, StatsReadError, softRunner } from "./_stats.ts";

const SUBJECT_REF_RE = new RegExp(`\\(#${D}+\\)`, "u");

/** A bare `YYYY-MM-DD` pinned to midnight; anything else passes through for git to read. */
export function normalizeSince(since: string | undefined): string | undefined {
  if (since === undefined) return undefined;
  const s = strip(since);
  return new RegExp(`^${D}{4}-${D}{2}-${D}{2}$`, "u").test(s) ? `${s} 00:00:00` : since;
}

/** The project: gh nameWithOwner, else the origin remote's owner/repo, else the directory name. */
export async function collectProjectInfo(soft: SoftRun, root: string, useGithub: boolean): Promise<Dict> {
  let name: unknown = null;
  if (useGithub) {
    const gh = await ghJson(soft, ["repo", "view", "--json", "nameWithOwner"]);
    if (isDict(gh)) name = get(gh, "nameWithOwner") || null;
  }
  if (!name) {
    const url = await soft(["git", "config", "--get", "remote.origin.url"]);
    const m = url ? /[:/]([^/:]+\/[^/:]+)$/.exec(strip(url).replace(/\.git$/, "")) : null;
    name = m?.[1] ?? null;
  }
  return { name: name || basename(root), location: root };
}

/** origin/HEAD's branch, else main or master when they exist, else HEAD. */
export async function detectDefaultBranch(soft: SoftRun): Promise<string> {
  const out = await soft(["git", "rev-parse", "--abbrev-ref", "origin/HEAD"]);
  if (out && strip(out).includes("/")) return strip(out).split("/").slice(1).join("/");
  for (const cand of ["main", "master"]) {
    if ((await soft(["git", "rev-parse", "--verify", "--quiet", cand])) !== null) return cand;
  }
  return "HEAD";
}

/** Grammar, trace and DR-coverage ratios over `git log --no-merges <branch>`. */
export async function collectCommitStats(
  soft: SoftRun,
  branch: string,
  since?: string,
): Promise<Dict | null> {
  const cmd = [
    "git",
    "log",
    ...(since ? [`--since=${since}`] : []),
    "--no-merges",
    "--format=%s%x1f%b%x1e",
    branch,
  ];
  const out = await soft(cmd);
  if (out === null) return null;
  const records = out.split("\x1e").filter((r) => strip(r));
  let grammar = 0;
  let subjectRef = 0;
  let closesBody = 0;
  let both = 0;
  let prDerived = 0;
  let dr = 0;
  for (const rec of records) {
    const cut = rec.indexOf("\x1f");
    const subject = strip(cut < 0 ? rec : rec.slice(0, cut));
    const body = cut < 0 ? "" : rec.slice(cut + 1);
    if (COMMIT_RE.test(subject)) grammar++;
    const hasRef = SUBJECT_REF_RE.test(subject);
    const hasCloses = CLOSES_LINE_RE.test(body);
    subjectRef += Number(hasRef);
    closesBody += Number(hasCloses);
    both += Number(hasRef && hasCloses);
    if (hasRef || hasCloses) {
      prDerived++;
      if (body.includes(DR_HEADING)) dr++;
    }
  }
  const total = records.length;
  return {
    branch,
    commits: total,
    grammar_ok: grammar,
    grammar_pct: pct(grammar, total),
    issue_linked: subjectRef,
    trace_pct: pct(subjectRef, total),
    subject_ref_commits: subjectRef,
    closes_body_commits: closesBody,
    subject_and_closes_commits: both,
    pr_derived_commits: prDerived,
    decision_records: dr,
    dr_pct: pct(dr, prDerived),
  };
}

/** Outcome, QA-cycle and duration aggregates of the run log. */
export function collectRunStats(path: string): Dict | null {
  const rows = readRows(path, true);
  if (!rows || rows.length === 0) return null;
  const outcomes = new Map<string, number>();
  for (const r of rows) {
    const o = Object.hasOwn(r, "outcome") ? pyStr(r.outcome) : "unknown";
    outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
  }
  const attempted = rows.filter((r) => !SKIP.includes(get(r, "outcome") as string));
  const succeeded = attempted.filter((r) => SUCCESS.includes(get(r, "outcome") as string));
  const dur = rows
    .map((r) => get(r, "duration_s"))
    .filter((v): v is PyNum => isInt(v) || v instanceof PyFloat);
  const byComplexity: Dict = {};
  for (const level of ["low", "medium", "high"]) {
    const sub = rows.filter((r) => get(r, "complexity") === level);
    if (sub.length) byComplexity[level] = { runs: sub.length, median_qa: median(qaOf(sub)) };
  }
  const issues: PyNum[] = [];
  for (const r of rows) {
    const i = get(r, "issue");
    if (isInt(i) && !issues.some((x) => pyEquals(x, i))) issues.push(i);
  }
  const sortedOutcomes = [...outcomes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    runs: rows.length,
    outcomes: Object.fromEntries(sortedOutcomes),
    attempted: attempted.length,
    succeeded: succeeded.length,
    success_pct: pct(succeeded.length, attempted.length),
    median_qa_cycles: median(qaOf(rows)),
    median_duration_s: median(dur),
    by_complexity: byComplexity,
    issues: issues.sort((a, b) => Number(a) - Number(b)),
  };
}

/** Options of `idd-lint stats`. */
export interface StatsOptions {
  branch?: string;
  since?: string;
  limit: number;
  noGithub: boolean;
}

/** Everything the report shows, as the original's `--json` document (before key sorting). */
export interface Stats {
  project: Dict;
  git: Dict | null;
  runs: Dict | null;
  github: Dict | null;
  githubSkipped: string | null;
}

/** Collects the evidence report for the repository at `cwd`. */
export async function collectStats(
  cwd: string,
  opts: StatsOptions,
  soft: SoftRun = softRunner(cwd),
): Promise<Stats> {
  const top = await soft(["git", "rev-parse", "--show-toplevel"]);
  const root = top ? strip(top) : cwd;
  const runsPath = join(root, ".gitissue", "runs.jsonl");
  const project = await collectProjectInfo(soft, root, !opts.noGithub);
  const branch = opts.branch || (await detectDefaultBranch(soft));
  const since = normalizeSince(opts.since);
  const git = await collectCommitStats(soft, branch, since);
  const runs = collectRunStats(runsPath);
  let github: Dict | null = null;
  let githubSkipped: string | null = null;
  if (opts.noGithub) githubSkipped = "--no-github";
  else {
    github = await collectGithubStats(soft, opts.limit, runsPath, since, runs);
    if (github === null) githubSkipped = "gh unavailable, unauthenticated, or offline";
  }
  return { project, git, runs, github, githubSkipped };
}

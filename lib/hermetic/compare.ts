// `run-eval compare BASE.json HEAD.json`: two runs' --json results side by side, for a pull request:
// per case (matched by name) what got better (did not pass, passes), worse (passed, does not), stayed
// failing, is flaky (its verdict differs between HEAD and a --rerun of it), still passes, was added or
// removed. Markdown on stdout (a PR comment or job summary), HTML with --report (compare-report.ts).
// The command and its exit codes: compare-cmd.ts.
import type { CaseRunResult, RunResult } from "./result.ts";
import { assertionsCell, mdCell, resultWord } from "./summary.ts";

/** What happened to a case between BASE and HEAD; the order is the order of the report. */
export const CHANGES = ["worse", "flaky", "better", "still failing", "added", "removed", "passing"] as const;
export type Change = (typeof CHANGES)[number];

/** One case's line of the comparison. */
export interface CaseChange {
  name: string;
  change: Change;
  /** Result words (pass, fail, exit 7, error 2) and assertions (passed/total), null where absent. */
  base: { result: string; assertions: string } | null;
  head: { result: string; assertions: string } | null;
  /** HEAD's reruns' result words (flaky evidence), in --rerun order. */
  reruns: string[];
}

export interface Comparison {
  counts: Record<Change, number>;
  cases: CaseChange[];
  /** 1 when a case got worse or a new case does not pass, else 0. */
  exitCode: number;
}

/** Cases by name; a repeated name gets `#2`, `#3`... so nothing is silently folded. */
function byName(r: RunResult): Map<string, CaseRunResult> {
  const out = new Map<string, CaseRunResult>();
  for (const c of r.cases) {
    let key = c.name;
    for (let n = 2; out.has(key); n++) key = `${c.name}#${n}`;
    out.set(key, c);
  }
  return out;
}

const side = (c: CaseRunResult | undefined) =>
  c ? { result: resultWord(c), assertions: assertionsCell(c) } : null;

/** Compares HEAD (and its reruns) against BASE. Pure. */
export function compareRuns(base: RunResult, head: RunResult, reruns: readonly RunResult[] = []): Comparison {
  const b = byName(base);
  const h = byName(head);
  const again = reruns.map(byName);
  const names = [...h.keys(), ...[...b.keys()].filter((k) => !h.has(k))];
  const cases = names.map((name): CaseChange => {
    const was = b.get(name);
    const now = h.get(name);
    const more = again.map((m) => m.get(name)).filter((c) => c !== undefined);
    const passes = [now, ...more].filter((c) => c !== undefined).map((c) => c.result === "pass");
    let change: Change;
    if (!now) change = "removed";
    else if (passes.includes(true) && passes.includes(false)) change = "flaky";
    else if (!was) change = "added";
    else if (was.result === "pass") change = now.result === "pass" ? "passing" : "worse";
    else change = now.result === "pass" ? "better" : "still failing";
    return { name, change, base: side(was), head: side(now), reruns: more.map(resultWord) };
  });
  const counts = Object.fromEntries(CHANGES.map((c) => [c, 0])) as Record<Change, number>;
  for (const c of cases) counts[c.change]++;
  cases.sort((x, y) => CHANGES.indexOf(x.change) - CHANGES.indexOf(y.change));
  const newFailing = cases.some((c) => c.change === "added" && c.head?.result !== "pass");
  return { counts, cases, exitCode: counts.worse > 0 || newFailing ? 1 : 0 };
}

const ICON: Record<Change, string> = {
  worse: "❌",
  flaky: "⚠️",
  better: "✅",
  "still failing": "🔴",
  added: "🆕",
  removed: "➖",
  passing: "✔️",
};

/** The headline: `2 worse, 1 better, 47 passing` (the changes that occurred, in report order). */
export function compareHeadline(cmp: Comparison): string {
  const parts = CHANGES.filter((c) => cmp.counts[c] > 0).map((c) => `${cmp.counts[c]} ${c}`);
  return parts.length > 0 ? parts.join(", ") : "no cases";
}

/** The Markdown comparison: a headline, a table of every case that did not pass in both, a count of those that did. */
export function renderCompareMarkdown(cmp: Comparison): string {
  const shown = cmp.cases.filter((c) => c.change !== "passing");
  const lines = [`### run-eval compare: ${compareHeadline(cmp)}`, ""];
  if (shown.length > 0) {
    lines.push("| change | case | base | head | assertions |", "|---|---|---|---|---:|");
    for (const c of shown) {
      const head = c.head
        ? c.head.result + (c.reruns.length ? ` (reruns: ${c.reruns.join(", ")})` : "")
        : "–";
      const assertions = `${c.base?.assertions ?? "–"} → ${c.head?.assertions ?? "–"}`;
      lines.push(
        `| ${ICON[c.change]} ${c.change} | ${mdCell(c.name)} | ${c.base?.result ?? "–"} | ${mdCell(head)} | ${assertions} |`,
      );
    }
    lines.push("");
  }
  if (cmp.counts.passing > 0) lines.push(`${cmp.counts.passing} case(s) pass in both runs.`, "");
  return lines.join("\n"); // the last line is empty: one newline at the end
}

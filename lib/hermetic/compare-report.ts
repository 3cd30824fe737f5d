// The HTML form of `run-eval compare --report FILE`: the counts of each change as cards, then every
// case that did not pass in both runs (worse first) with its base and head result and assertions, and
// the cases that passed in both folded away. Built with lib/report's kit from the Comparison.
import { int } from "../report/format.ts";
import { attrs, type Html, html, num, page, section } from "../report/html.ts";
import { type CaseChange, CHANGES, type Change, type Comparison, compareHeadline } from "./compare.ts";

const TONE: Record<Change, string> = {
  worse: "bad",
  flaky: "warn",
  better: "good",
  "still failing": "bad",
  added: "neutral",
  removed: "neutral",
  passing: "good",
};

function row(c: CaseChange): Html {
  const reruns =
    c.reruns.length > 0 ? html` <span class="neutral">(reruns: ${c.reruns.join(", ")})</span>` : "";
  return html`<tr${attrs({ "data-case": c.name, "data-change": c.change })}><th scope="row">${c.name}</th><td><span class="badge ${TONE[c.change]}" data-metric="change" data-task="${c.name}">${c.change}</span></td><td>${
    c.base?.result ?? "–"
  }</td><td>${c.head?.result ?? "–"}${reruns}</td><td class="n"><span data-metric="baseAssertions" data-task="${c.name}">${
    c.base?.assertions ?? "–"
  }</span> → <span data-metric="headAssertions" data-task="${c.name}">${c.head?.assertions ?? "–"}</span></td></tr>`;
}

function table(rows: readonly CaseChange[]): Html {
  return html`<table><thead><tr><th>Case</th><th>Change</th><th>Base</th><th>Head</th><th class="n">Assertions</th></tr></thead><tbody>${rows.map(row)}</tbody></table>`;
}

/** The comparison as one self-contained HTML document; `files` name the two runs compared. */
export function renderCompareHtml(cmp: Comparison, files: { base: string; head: string }): string {
  const cards = html`<div class="cards">${CHANGES.map(
    (c) =>
      html`<div class="card"><div class="big ${cmp.counts[c] > 0 ? TONE[c] : "neutral"}">${num(
        { metric: c },
        cmp.counts[c],
        int(cmp.counts[c]),
      )}</div>${c}</div>`,
  )}</div>`;
  const changed = cmp.cases.filter((c) => c.change !== "passing");
  const passing = cmp.cases.filter((c) => c.change === "passing");
  const body = [
    section("totals", "Totals", cards),
    section(
      "changes",
      "What changed",
      changed.length > 0
        ? table(changed)
        : html`<p class="neutral" data-empty="true">Every case passed in both runs.</p>`,
      "Flaky: the verdict differs between HEAD and a rerun of it (--rerun).",
    ),
    section(
      "passing",
      "Passing in both",
      passing.length > 0
        ? html`<details><summary>${int(passing.length)} case(s)</summary>${table(passing)}</details>`
        : "",
    ),
  ];
  const subtitle = html`${compareHeadline(cmp)} · base <code>${files.base}</code> · head <code>${files.head}</code>`;
  return page({ title: "run-eval compare", kind: "run-eval-compare", subtitle, body });
}

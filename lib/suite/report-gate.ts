// The suite report's release-gate and trend sections (HTML): the gate's verdict and reasons per
// comparison, regressed and flaky tasks named; and, with --history, pass@1 over the last runs.
import { pct } from "../report/format.ts";
import { type Html, html, section } from "../report/html.ts";
import type { TrendRow } from "./history.ts";
import type { Scorecard } from "./scorecard/schema.ts";

const TONE: Record<string, string> = { ship: "good", hold: "neutral", block: "bad" };

/** The gate section, or "" when the scorecard carries no gate. */
export function gateSection(sc: Scorecard): Html | "" {
  if (!sc.gate) return "";
  const rows = (sc.comparisons ?? [])
    .filter((c) => c.gate)
    .map((c) => {
      const g = c.gate!;
      const tasks = (label: string, list: { task: string; reason?: string }[] | undefined) =>
        (list ?? []).length === 0
          ? ""
          : html`<br>${label}: ${(list ?? []).map((t) => html`<code>${t.task}</code> `)}`;
      return html`<tr data-variant-row="${c.variant}"><th scope="row">${c.variant}</th><td><span class="badge ${TONE[g.verdict] ?? "neutral"}" data-metric="gate" data-variant="${c.variant}">${g.verdict}</span></td><td>${(g.reasons ?? []).map((r) => html`${r}<br>`)}${tasks("Regressed", g.regressed)}${tasks("Flaky (left out)", g.flaky)}</td></tr>`;
    });
  const verdict = sc.gate.verdict;
  return section(
    "gate",
    "Release gate",
    html`<p><span class="badge ${TONE[verdict] ?? "neutral"}" data-metric="gate">${verdict.toUpperCase()}</span></p><table><thead><tr><th>Variant</th><th>Gate</th><th>Why</th></tr></thead><tbody>${rows}</tbody></table>`,
    "ship: non-inferior on every gated metric; hold: inconclusive or too little evidence, rerun with more tasks or repeats; block: confidently worse.",
  );
}

/** The trend section (pass@1 per run of each current variant), or "" without history. */
export function trendSection(rows: readonly TrendRow[] | undefined, variants: readonly string[]): Html | "" {
  if (!rows || rows.length === 0) return "";
  const body = rows.map(
    (r) =>
      html`<tr data-run="${r.time}"><td>${r.time}</td><td>${r.gate ?? "–"}</td>${variants.map((v) => html`<td class="n">${r.pass1[v] === undefined ? "–" : pct(r.pass1[v]!)}</td>`)}</tr>`,
  );
  return section(
    "trend",
    `Trend (last ${rows.length} runs)`,
    html`<table><thead><tr><th>Run (UTC)</th><th>Gate</th>${variants.map((v) => html`<th class="n">${v} pass@1</th>`)}</tr></thead><tbody>${body}</tbody></table>`,
    "From the --history file: this run last.",
  );
}

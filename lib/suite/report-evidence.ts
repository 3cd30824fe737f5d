// The suite report's decision and evidence sections (HTML): the headline decision first, in the same
// words as the Markdown, JSON and terminal table (scorecard/headline.ts), and each variant's most
// common reasons its trials did not pass, with counts (scorecard/evidence.ts). Read from the
// scorecard as built, never recomputed.
import { int } from "../report/format.ts";
import { type Html, html, num, section } from "../report/html.ts";
import type { Scorecard } from "./scorecard/schema.ts";

const TONE: Record<string, string> = {
  ship: "good",
  better: "good",
  block: "bad",
  worse: "bad",
};

/** The headline section (first on the page), or "" for a scorecard without one (the original's). */
export function headlineSection(sc: Scorecard): Html | "" {
  const h = sc.headline;
  if (h === undefined) return "";
  return section(
    "decision",
    "Decision",
    html`<p><span class="badge ${TONE[h.decision] ?? "neutral"}" data-metric="decision">${h.decision}</span></p><p data-headline="true">${h.text}</p>`,
  );
}

/** The failure reasons section, or "" when every trial passed. */
export function failureReasonsSection(sc: Scorecard): Html | "" {
  const rows = sc.variants.flatMap((v) =>
    (v.failureReasons ?? []).map(
      (r) =>
        html`<tr><td>${v.name}</td><td><code>${r.reason}</code></td><td class="n">${num({ metric: "failures", variant: v.name }, r.count, int(r.count))}</td></tr>`,
    ),
  );
  if (rows.length === 0) return "";
  return section(
    "failures",
    "Why trials did not pass",
    html`<table><thead><tr><th>Variant</th><th>Reason</th><th class="n">Trials</th></tr></thead><tbody>${rows}</tbody></table>`,
    "Each variant's most common reasons, most first; the trials' logs have the rest.",
  );
}

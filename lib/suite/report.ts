// The task-suite report (`agent-eval suite --report FILE.html`): first a forest plot of each
// variant's pass rate and its paired difference from the control, with the intervals, verdict,
// cost and latency beside it; then the per-task matrix (task x variant, report-matrix.ts: a dot per
// repeat linking to its log, or past DENSE_TRIALS a count per cell with only the failures linked); then
// the rest of the scorecard, the infrastructure failures, and (report-harbor.ts) tampered trials and
// skipped tasks when there are any. Every
// figure is read from the scorecard as built by lib/suite/scorecard/index.ts, never recomputed, except the
// matrix counts, which come from the trials themselves. The headline decision leads the page and each
// variant's most common failure reasons follow the infrastructure failures (report-evidence.ts); a
// figure the harness never reported is shown as not measured (—).
import { ConfigError } from "../core/errors.ts";
import { int, pct, pp, ppBare, secs, usd } from "../report/format.ts";
import { attrs, type Html, html, num, page, safeHref, section } from "../report/html.ts";
import { axisCell, barCell, intervalCell, type Scale, type Tone, ticks } from "../report/svg.ts";
import type { TrendRow } from "./history.ts";
import { failureReasonsSection, headlineSection } from "./report-evidence.ts";
import { gateSection, trendSection } from "./report-gate.ts";
import { skippedSection, tamperedSection } from "./report-harbor.ts";
import { isDense, type MatrixForm, matrix } from "./report-matrix.ts";
import { measured, NOT_MEASURED } from "./scorecard/evidence.ts";
import { LOCAL_MARK } from "./scorecard/markdown.ts";
import type { Comparison, Scorecard, Trial, VariantScore } from "./scorecard/schema.ts";

/** Options for a suite report. */
export interface SuiteReportOptions {
  /** The link to a trial's log (relative to the report file); default: the trial's `log` field if any. */
  logHref?: (trial: Trial) => string | undefined;
  /** Page title; default `Eval scorecard: <suite>`. */
  title?: string;
  /** The per-task matrix: a dot per trial, counts per cell, or by size (default; see report-matrix.ts). */
  matrix?: MatrixForm;
  /** The last runs from --history (history.ts trendOf), shown as a trend section. */
  trend?: readonly TrendRow[];
}

const W = 170;

/** The verdict as the page shows it (the scorecard's word is in the badge's title). */
const VERDICT_WORDS: Record<Comparison["verdict"], string> = {
  better: "better",
  worse: "worse",
  no_significant_difference: "no sig. difference",
  insufficient: "insufficient evidence",
};

function toneOf(c: Comparison): Tone {
  return c.verdict === "better" ? "good" : c.verdict === "worse" ? "bad" : "neutral";
}

function deltaScale(comparisons: readonly Comparison[]): Scale {
  let m = 0.1;
  for (const c of comparisons) m = Math.max(m, Math.abs(c.ciLo), Math.abs(c.ciHi), Math.abs(c.delta));
  m = Math.min(1, Math.ceil(m * 10) / 10);
  return { min: -m, max: m, width: W };
}

function ciText(lo: Html, hi: Html): Html {
  return html`<span class="ci">(${lo} to ${hi})</span>`;
}

function forestRow(
  v: VariantScore,
  c: Comparison | undefined,
  sc: Scorecard,
  scales: { rate: Scale; delta: Scale; cost: Scale },
): Html {
  const m = (metric: string) => ({ metric, variant: v.name });
  const isControl = v.name === sc.control;
  const delta = c
    ? html`<td class="n">${num({ metric: "delta", variant: v.name }, c.delta, pp(c.delta))}<br>${ciText(
        num({ metric: "ciLo", variant: v.name }, c.ciLo, ppBare(c.ciLo)),
        num({ metric: "ciHi", variant: v.name }, c.ciHi, ppBare(c.ciHi)),
      )}</td><td class="chart">${intervalCell(scales.delta, {
        estimate: c.delta,
        lo: c.ciLo,
        hi: c.ciHi,
        ref: 0,
        tone: toneOf(c),
        label: `${v.name} minus ${sc.control}: ${pp(c.delta)}`,
      })}</td><td><span class="badge ${toneOf(c)}" data-metric="verdict" data-variant="${v.name}" title="${c.verdict}">${VERDICT_WORDS[c.verdict]}</span>${c.reason === undefined ? "" : html`<br><span class="why" data-metric="reason" data-variant="${v.name}">${c.reason}</span>`}</td>`
    : html`<td class="n neutral">${isControl ? "control" : "–"}</td><td class="chart"></td><td></td>`;
  const costCi =
    v.costCILo !== undefined && v.costCIHi !== undefined
      ? html`<br>${ciText(num(m("costCILo"), v.costCILo, usd(v.costCILo)), num(m("costCIHi"), v.costCIHi, usd(v.costCIHi)))}`
      : "";
  // A cost the harness never reported is not measured, never $0.0000.
  const cost = measured(v, "cost")
    ? html`<td class="n">${num(m("costPerTaskUSD"), v.costPerTaskUSD, usd(v.costPerTaskUSD))}${costCi}</td><td class="chart">${barCell(
        scales.cost,
        {
          value: v.costPerTaskUSD,
          lo: v.costCILo,
          hi: v.costCIHi,
          label: `${v.name} cost ${usd(v.costPerTaskUSD)}`,
        },
      )}</td>`
    : html`<td class="n neutral" data-metric="costPerTaskUSD" data-variant="${v.name}">${NOT_MEASURED}</td><td class="chart"></td>`;
  return html`<tr${attrs({ "data-variant-row": v.name })}><th scope="row">${v.name}</th><td class="n">${num(m("pass1"), v.pass1, pct(v.pass1))}<br>${ciText(
    num(m("pass1CILo"), v.pass1CILo, pct(v.pass1CILo)),
    num(m("pass1CIHi"), v.pass1CIHi, pct(v.pass1CIHi)),
  )}</td><td class="chart">${intervalCell(scales.rate, {
    estimate: v.pass1,
    lo: v.pass1CILo,
    hi: v.pass1CIHi,
    label: `${v.name} pass@1 ${pct(v.pass1)}`,
  })}</td>${delta}${cost}<td class="n">${num(m("wallP50Ms"), v.wallP50Ms, secs(v.wallP50Ms))} / ${num(
    m("wallP95Ms"),
    v.wallP95Ms,
    secs(v.wallP95Ms),
  )}</td></tr>`;
}

function forest(sc: Scorecard): Html {
  const comparisons = sc.comparisons ?? [];
  let maxCost = 0;
  for (const v of sc.variants) maxCost = Math.max(maxCost, v.costCIHi ?? 0, v.costPerTaskUSD);
  const scales = {
    rate: { min: 0, max: 1, width: W },
    delta: deltaScale(comparisons),
    cost: { min: 0, max: maxCost > 0 ? maxCost : 1, width: 90 },
  };
  const rows = sc.variants.map((v) =>
    forestRow(
      v,
      comparisons.find((c) => c.variant === v.name),
      sc,
      scales,
    ),
  );
  return html`<div class="wide"><table class="forest"><thead><tr><th>Variant</th><th class="n">pass@1 (95% CI)</th><th></th><th class="n">Δ vs control (95% CI)</th><th></th><th>Verdict</th><th class="n">Cost/task</th><th></th><th class="n">Wall p50 / p95</th></tr></thead><tbody>${rows}</tbody><tfoot><tr><td></td><td></td><td class="chart">${axisCell(
    scales.rate,
    [0, 0.25, 0.5, 0.75, 1],
    (t) => `${Math.round(t * 100)}%`,
  )}</td><td></td><td class="chart">${axisCell(
    scales.delta,
    ticks(scales.delta.min, scales.delta.max, 4),
    (t) => `${t > 0 ? "+" : ""}${Math.round(t * 100)}`,
  )}</td><td></td><td></td><td></td><td></td></tr></tfoot></table></div>`;
}

function details(sc: Scorecard): Html {
  const k = sc.k ?? sc.variants[0]?.k;
  const opt = (v: VariantScore, field: keyof VariantScore, fmt: (x: number) => string) => {
    const value = v[field];
    return typeof value === "number" ? num({ metric: field, variant: v.name }, value, fmt(value)) : "–";
  };
  // Tampered trials are counted apart only where there are any (Harbor tasks); absent means none.
  const tampered = sc.variants.some((v) => v.tampered !== undefined);
  const rows = sc.variants.map(
    (v) =>
      html`<tr><th scope="row">${v.name}</th><td class="n">${num({ metric: "trials", variant: v.name }, v.trials, int(v.trials))}</td><td class="n">${opt(v, "tasks", int)}</td><td class="n">${opt(v, "passAtK", pct)}</td><td class="n">${opt(v, "passHatK", pct)}</td><td class="n">${opt(v, "meanTurns", (x) => x.toFixed(1))}</td><td class="n">${measured(v, "tokens") ? num({ metric: "tokens", variant: v.name }, v.tokens, int(v.tokens)) : NOT_MEASURED}</td><td class="n">${measured(v, "toolErrors") ? num({ metric: "toolErrors", variant: v.name }, v.toolErrors, int(v.toolErrors)) : NOT_MEASURED}</td><td class="n">${num({ metric: "errors", variant: v.name }, v.errors, int(v.errors))}</td><td class="n">${opt(v, "infraFailures", int)}</td>${tampered ? html`<td class="n">${num({ metric: "tampered", variant: v.name }, v.tampered ?? 0, int(v.tampered ?? 0))}</td>` : ""}<td class="n">${opt(v, "wallMeanMs", secs)}</td></tr>`,
  );
  return html`<table><thead><tr><th>Variant</th><th class="n">Trials</th><th class="n">Tasks</th><th class="n">pass@${k ?? "k"}</th><th class="n">pass^${k ?? "k"}</th><th class="n">Mean turns</th><th class="n">Tokens</th><th class="n">Tool errors</th><th class="n">Errors</th><th class="n">Infra failures</th>${tampered ? html`<th class="n">Tampered</th>` : ""}<th class="n">Wall mean</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function defaultLog(t: Trial): string | undefined {
  const log = (t as Record<string, unknown>).log;
  return typeof log === "string" ? log : undefined;
}

function infra(trials: readonly Trial[], logHref: (t: Trial) => string | undefined): Html {
  const list = trials.filter((t) => t.infra !== undefined);
  if (list.length === 0) return html`<p class="neutral" data-empty="true">None: every trial was scored.</p>`;
  const rows = list.map((t) => {
    const href = safeHref(logHref(t));
    const task = href ? html`<a href="${href}">${t.task}</a>` : t.task;
    return html`<tr><td>${t.variant}</td><td>${task}</td><td class="n">${t.repeat}</td><td>${t.infra ?? ""}</td><td>${t.error ?? ""}</td></tr>`;
  });
  return html`<table><thead><tr><th>Variant</th><th>Task</th><th class="n">Repeat</th><th>Kind</th><th>Error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The suite report as one self-contained HTML document. `trials` default to the scorecard's own. */
export function renderSuiteReportHtml(
  scorecard: Scorecard,
  trials: readonly Trial[] = scorecard.trials ?? [],
  opts: SuiteReportOptions = {},
): string {
  const logHref = opts.logHref ?? defaultLog;
  const names = new Set(scorecard.variants.map((v) => v.name));
  const stray = trials.find((t) => !names.has(t.variant));
  if (stray) throw new ConfigError(`Cannot render report: trial for unknown variant "${stray.variant}"`);
  const total = trials.length;
  const infraCount = trials.filter((t) => t.infra !== undefined).length;
  const subtitle = html`Control <code>${scorecard.control}</code> · ${num(
    { metric: "variants" },
    scorecard.variants.length,
    int(scorecard.variants.length),
  )} variants · ${num({ metric: "trialsTotal" }, total, int(total))} trials${
    infraCount > 0
      ? html` (${num({ metric: "infraTotal" }, infraCount, int(infraCount))} infrastructure failures, not scored)`
      : ""
  }${scorecard.seed !== undefined ? html` · bootstrap seed ${num({ metric: "seed" }, scorecard.seed, String(scorecard.seed))}` : ""}`;
  const body = [
    headlineSection(scorecard),
    gateSection(scorecard),
    section(
      "forest",
      "Variants against the control",
      forest(scorecard),
      "pass@1 with its 95% bootstrap interval; Δ is the paired difference from the control by task, with its interval and verdict.",
    ),
    section(
      "matrix",
      "Per-task results",
      matrix(
        scorecard.variants.map((v) => v.name),
        trials,
        logHref,
        opts.matrix,
      ),
      isDense(opts.matrix ?? "auto", total)
        ? "Passes per task and variant; only the trials that did not pass are listed, each linked to its log."
        : "One dot per repeat; a dot links to that trial's log.",
    ),
    section("details", "More figures", details(scorecard)),
    trendSection(
      opts.trend,
      scorecard.variants.map((v) => v.name),
    ),
    section(
      "infra",
      "Infrastructure failures",
      infra(trials, logHref),
      "Counted and shown, left out of every rate.",
    ),
    failureReasonsSection(scorecard),
    tamperedSection(trials, logHref),
    skippedSection(scorecard),
  ];
  // A --local run had no isolation: say so above everything, in the Markdown scorecard's words.
  const local =
    scorecard.runner === "local"
      ? html`<p class="badge bad" data-local="true">${LOCAL_MARK.replaceAll("**", "")}</p>`
      : "";
  return page({
    title: opts.title ?? `Eval scorecard: ${scorecard.suite}`,
    kind: "suite",
    subtitle: html`${subtitle}${local ? html`<br>${local}` : ""}`,
    body,
  });
}

// The suite report's per-task matrix (task x variant), in one of two forms. Up to DENSE_TRIALS
// trials it is the dot matrix: one dot per repeat, each with a tooltip and a link to that trial's
// log. Past that a dot per trial costs the page its size and first paint (10,000 dots were 3 MB and
// 1.3 s of Chromium's main thread), so each cell aggregates: the pass count, a CSS bar of the pass
// share under it, and, only where something failed, a closed <details> listing the failed and infrastructure
// trials, each a link to its log with the error as its tooltip; CHUNK tasks to a table, each table
// laid out only when it nears the screen. No script either way: details open on demand. In
// Chromium at 10,000 trials, 2,000 closed details in one table cost 260 ms of first paint; chunked
// they cost 85 (tests/bench/report.ts).
import { attrs, type Html, html, num, safeHref } from "../report/html.ts";
import { type Dot, dotsCell } from "../report/svg.ts";
import type { Trial } from "./scorecard/schema.ts";

/** Above this many trials the matrix shows counts per cell instead of a dot per trial. */
export const DENSE_TRIALS = 2000;

/** Tasks per table in the counts form (each table is laid out only when it nears the screen). */
export const CHUNK = 50;

/** "dots": a dot per trial; "counts": a count per cell, links only for failures; "auto" by size. */
export type MatrixForm = "dots" | "counts" | "auto";

type LogHref = (t: Trial) => string | undefined;

function stateOf(t: Trial): Dot["state"] {
  return t.infra !== undefined ? "infra" : t.pass ? "pass" : "fail";
}

function whatOf(t: Trial): string {
  const state = stateOf(t);
  const what = state === "infra" ? `infrastructure failure (${t.infra})` : state;
  return `${what}${t.error ? `: ${t.error}` : ""}`;
}

function dotOf(t: Trial, href: string | undefined): Dot {
  return {
    state: stateOf(t),
    href: safeHref(href),
    title: `${t.task} · ${t.variant} · repeat ${t.repeat}: ${whatOf(t)}`,
    attrs: { "data-trial": `${t.task}/${t.variant}/${t.repeat}` },
  };
}

function passCount(variant: string, task: string, list: readonly Trial[]): Html {
  const scored = list.filter((t) => t.infra === undefined);
  const passes = scored.filter((t) => t.pass).length;
  return num({ metric: "taskPasses", variant, task }, passes, `${passes}/${scored.length}`, "num ci");
}

function dotCell(variant: string, task: string, list: readonly Trial[], logHref: LogHref): Html {
  return html`<td>${dotsCell(list.map((t) => dotOf(t, logHref(t))))} ${passCount(variant, task, list)}</td>`;
}

function titleOf(t: Trial): string {
  return t.infra !== undefined ? whatOf(t) : (t.error ?? "fail");
}

/** One trial that did not pass: its repeat, linked to its log when it has one. */
function failLink(t: Trial, logHref: LogHref, title?: string, cls?: string): Html {
  const href = safeHref(logHref(t));
  const a = attrs({ class: cls, href, title });
  return href ? html` <a${a}>#${t.repeat}</a>` : html` <span${a}>#${t.repeat}</span>`;
}

/**
 * The trials of a cell that did not pass, grouped by what went wrong (first seen first, repeats in
 * order): the error is the tooltip of its group, written once however many repeats share it. Kept
 * lean (no data-trial, no class for a plain failure): past DENSE_TRIALS there are thousands.
 */
function failList(failed: readonly Trial[], logHref: LogHref): Html[] {
  const groups = new Map<string, Trial[]>();
  for (const t of failed) {
    const title = titleOf(t);
    const list = groups.get(title);
    if (list) list.push(t);
    else groups.set(title, [t]);
  }
  return [...groups].map(([title, list]) => {
    const cls = list[0]!.infra !== undefined ? "infra" : undefined;
    if (list.length === 1) return failLink(list[0]!, logHref, title, cls);
    return html`<span${attrs({ class: cls, title })}>${list.map((t) => failLink(t, logHref))}</span>`;
  });
}

function countCell(variant: string, task: string, list: readonly Trial[], logHref: LogHref): Html {
  const scored = list.filter((t) => t.infra === undefined);
  const share =
    scored.length > 0 ? Math.round((100 * scored.filter((t) => t.pass).length) / scored.length) : 0;
  const failed = list.filter((t) => t.infra !== undefined || !t.pass);
  const more =
    failed.length > 0
      ? html`<details><summary>${failed.length} not passed</summary>${failList(failed, logHref)}</details>`
      : "";
  return html`<td style="--p:${share}%">${passCount(variant, task, list)}${more}</td>`;
}

const DOT_LEGEND = html`<div class="legend"><span><svg width="14" height="14"><circle class="dot pass" cx="7" cy="7" r="5"/></svg> pass</span><span><svg width="14" height="14"><circle class="dot fail" cx="7" cy="7" r="5"/></svg> fail</span><span><svg width="14" height="14"><rect class="dot infra" x="2" y="2" width="10" height="10"/></svg> infrastructure failure (not scored)</span></div>`;

const COUNT_LEGEND = html`<div class="legend" data-matrix="counts"><span>passes / scored trials, the bar their share</span><span>open a cell for the trials that did not pass, each linked to its log</span></div>`;

/** Whether `form` resolves to counts for `n` trials. */
export function isDense(form: MatrixForm, n: number): boolean {
  return form === "counts" || (form === "auto" && n > DENSE_TRIALS);
}

/** The matrix for `variants` (in scorecard order) over `trials`, tasks sorted, repeats in order. */
export function matrix(
  variants: readonly string[],
  trials: readonly Trial[],
  logHref: LogHref,
  form: MatrixForm = "auto",
): Html {
  const cells = new Map<string, Trial[]>();
  for (const t of trials) {
    const key = `${t.task}\u0000${t.variant}`;
    const list = cells.get(key);
    if (list) list.push(t);
    else cells.set(key, [t]);
  }
  const tasks = [...new Set(trials.map((t) => t.task))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const dense = isDense(form, trials.length);
  const cell = dense ? countCell : dotCell;
  const head = html`<thead><tr><th>Task</th>${variants.map((v) => html`<th>${v}</th>`)}</tr></thead>`;
  const rows = tasks.map((task) => {
    const tds = variants.map((variant) => {
      const list = (cells.get(`${task}\u0000${variant}`) ?? []).sort((a, b) => a.repeat - b.repeat);
      if (list.length === 0) return html`<td class="neutral">–</td>`;
      return cell(variant, task, list, logHref);
    });
    return html`<tr><th scope="row"><code>${task}</code></th>${tds}</tr>`;
  });
  if (!dense) return html`${DOT_LEGEND}<table class="matrix">${head}<tbody>${rows}</tbody></table>`;
  // Tables of CHUNK tasks, each skipped by layout and paint until it nears the screen
  // (content-visibility): first paint lays out what it shows, whatever the suite's size.
  const chunks: Html[] = [];
  for (let i = 0; i < rows.length; i += CHUNK)
    chunks.push(
      html`<div class="chunk"><table class="matrix counts">${head}<tbody>${rows.slice(i, i + CHUNK)}</tbody></table></div>`,
    );
  return html`${COUNT_LEGEND}${chunks}`;
}

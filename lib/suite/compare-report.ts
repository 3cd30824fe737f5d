// The HTML form of `agent-eval compare` (--report FILE): the same comparison as compare.ts's Markdown,
// built with the report kit (one escaper, no scripts, nothing fetched). Per variant: each side's pass@1
// with its interval and a badge for the change; per task: one table per change (worse first), each
// number carrying its source in data attributes so tests read the page the way they read the others'.
import { pct, pp } from "../report/format.ts";
import { attrs, type Html, html, num, page, section } from "../report/html.ts";
import {
  type SuiteComparison,
  TASK_SECTIONS,
  type TaskChange,
  type TaskSide,
  type VariantChange,
  type VariantSide,
} from "./compare.ts";

const TONE: Record<VariantChange["change"] | TaskChange["change"], string> = {
  better: "good",
  worse: "bad",
  flaky: "warn",
  same: "neutral",
  added: "neutral",
  removed: "neutral",
};

function sideCell(variant: string, which: "base" | "head", s?: VariantSide): Html {
  if (!s) return html`<td class="n neutral">–</td>`;
  const m = (metric: string) => ({ metric, variant, row: which });
  return html`<td class="n">${num(m("pass1"), s.pass1, pct(s.pass1))}<br><span class="ci">(${num(
    m("pass1CILo"),
    s.lo,
    pct(s.lo),
  )} to ${num(m("pass1CIHi"), s.hi, pct(s.hi))})</span></td>`;
}

function badge(change: string, m: { variant: string; task?: string }): Html {
  return html`<span${attrs({
    class: `badge ${TONE[change as VariantChange["change"]]}`,
    "data-metric": "change",
    "data-variant": m.variant,
    "data-task": m.task,
  })}>${change}</span>`;
}

function variantRow(v: VariantChange): Html {
  const delta =
    v.base && v.head
      ? num(
          { metric: "delta", variant: v.variant },
          v.head.pass1 - v.base.pass1,
          pp(v.head.pass1 - v.base.pass1),
        )
      : "–";
  return html`<tr${attrs({ "data-variant-row": v.variant })}><th scope="row">${v.variant}</th>${sideCell(
    v.variant,
    "base",
    v.base,
  )}${sideCell(v.variant, "head", v.head)}<td class="n">${delta}</td><td>${badge(v.change, v)}</td></tr>`;
}

function ratio(t: TaskChange, which: "base" | "head", s?: TaskSide): Html | string {
  return s
    ? num(
        { metric: "passes", variant: t.variant, task: t.task, row: which },
        s.passes,
        `${s.passes}/${s.scored}`,
      )
    : "–";
}

function taskTable(rows: readonly TaskChange[]): Html {
  return html`<table><thead><tr><th>Variant</th><th>Task</th><th>Base passed</th><th>Head passed</th></tr></thead><tbody>${rows.map(
    (t) =>
      html`<tr${attrs({ "data-task-row": `${t.variant}/${t.task}` })}><td>${t.variant}</td><td>${t.task}</td><td class="n">${ratio(
        t,
        "base",
        t.base,
      )}</td><td class="n">${ratio(t, "head", t.head)}</td></tr>`,
  )}</tbody></table>`;
}

/** The comparison as one self-contained HTML page. */
export function renderComparisonHtml(c: SuiteComparison): string {
  const title = c.base.suite === c.head.suite ? c.head.suite : `${c.base.suite} → ${c.head.suite}`;
  const variants = section(
    "variants",
    "Variants",
    html`<table><thead><tr><th>Variant</th><th>Base pass@1</th><th>Head pass@1</th><th>Delta</th><th>Change</th></tr></thead><tbody>${c.variants.map(
      variantRow,
    )}</tbody></table>`,
    "better or worse by the exact sign-flip test over the tasks both sides scored (two-sided, 5%); without trials, only when the two 95% intervals do not overlap",
  );
  const noTrials = c.base.trials === null ? "base" : c.head.trials === null ? "head" : undefined;
  const tasks =
    noTrials !== undefined
      ? section(
          "tasks",
          "Tasks",
          html`<p>No per-task comparison: the ${noTrials} scorecard carries no trials.</p>`,
        )
      : TASK_SECTIONS.map(([word, heading]) => {
          const rows = c.tasks.filter((t) => t.change === word);
          return rows.length === 0
            ? ""
            : section(`tasks-${word}`, `${heading} (${rows.length})`, taskTable(rows));
        });
  const same = c.tasks.filter((t) => t.change === "same").length;
  return page({
    title: `Suite comparison: ${title}`,
    kind: "suite-compare",
    subtitle: `${same} of ${c.tasks.length} variant × task pairs unchanged`,
    body: [variants, tasks],
  });
}

// The step-suite report (`eval-steps run --report FILE.html`): the five rows of the step scorecard
// (pass, same tools, same calls, valid calls, premature stop), each with its session-resampled 95%
// interval drawn as a forest plot, then the failing steps grouped by why they failed, each with its
// session and depth. Figures are read from the step scorecard as given, never recomputed.
import { int, pct } from "./_format.ts";
import { type Html, html, num, page, section } from "./html.ts";
import { axisCell, intervalCell, type Scale } from "./svg.ts";

/** One scorecard row: a rate with its interval over `n` steps. */
export interface StepRow {
  name: string;
  rate: number;
  lo: number;
  hi: number;
  n: number;
}

/** One graded step, as far as the report needs it. */
export interface StepOutcome {
  id: string;
  pass: boolean;
  /** Why it failed (e.g. "diverged", "invalid-call", "premature-stop", "error"); absent when it passed. */
  reason?: string;
  detail?: string;
  session?: string;
  depth?: number;
}

/** What the steps report reads: the step scorecard's header, its five rows and the graded steps. */
export interface StepsReportInput {
  suite: string;
  model: string;
  cases: number;
  sessions: number;
  errors: number;
  rows: readonly StepRow[];
  steps: readonly StepOutcome[];
}

const LABELS: Record<string, string> = {
  pass: "Pass",
  sameTools: "Same tools",
  sameCalls: "Same calls",
  validCalls: "Valid calls",
  prematureStop: "Premature stop",
};

function rows(input: StepsReportInput): Html {
  const s: Scale = { min: 0, max: 1, width: 260 };
  const body = input.rows.map((r) => {
    const m = (metric: string) => ({ metric, row: r.name });
    // A premature stop is bad, every other rate is good: colour the estimate accordingly.
    return html`<tr data-step-row="${r.name}"><th scope="row">${LABELS[r.name] ?? r.name}</th><td class="n">${num(m("rate"), r.rate, pct(r.rate))}</td><td class="n"><span class="ci">(${num(m("lo"), r.lo, pct(r.lo))} to ${num(m("hi"), r.hi, pct(r.hi))})</span></td><td class="chart">${intervalCell(
      s,
      { estimate: r.rate, lo: r.lo, hi: r.hi, label: `${LABELS[r.name] ?? r.name} ${pct(r.rate)}` },
    )}</td><td class="n">n=${num(m("n"), r.n, int(r.n))}</td></tr>`;
  });
  return html`<table><thead><tr><th>Reading</th><th class="n">Rate</th><th class="n">95% CI</th><th></th><th class="n">Steps</th></tr></thead><tbody>${body}</tbody><tfoot><tr><td></td><td></td><td></td><td class="chart">${axisCell(
    s,
    [0, 0.25, 0.5, 0.75, 1],
    (t) => `${Math.round(t * 100)}%`,
  )}</td><td></td></tr></tfoot></table>`;
}

function failing(input: StepsReportInput): Html {
  const groups = new Map<string, StepOutcome[]>();
  for (const s of input.steps) {
    if (s.pass) continue;
    const reason = s.reason ?? "failed";
    const list = groups.get(reason);
    if (list) list.push(s);
    else groups.set(reason, [s]);
  }
  if (groups.size === 0) return html`<p class="neutral" data-empty="true">None: every step passed.</p>`;
  const ordered = [...groups].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  return html`${ordered.map(
    ([reason, list]) =>
      html`<details open data-reason="${reason}"><summary><strong>${reason}</strong> · ${num(
        { metric: "failing", row: reason },
        list.length,
        int(list.length),
      )} steps</summary><table><thead><tr><th>Step</th><th>Session</th><th class="n">Depth</th><th>Detail</th></tr></thead><tbody>${list.map(
        (s) =>
          html`<tr><td><code>${s.id}</code></td><td><code>${s.session ?? ""}</code></td><td class="n">${s.depth ?? ""}</td><td>${s.detail ?? ""}</td></tr>`,
      )}</tbody></table></details>`,
  )}`;
}

/** The step-suite report as one self-contained HTML document. */
export function renderStepsReportHtml(input: StepsReportInput): string {
  const subtitle = html`Model <code>${input.model}</code> · ${num({ metric: "cases" }, input.cases, int(input.cases))} cases · ${num(
    { metric: "sessions" },
    input.sessions,
    int(input.sessions),
  )} sessions · ${num({ metric: "errors" }, input.errors, int(input.errors))} errors`;
  const body = [
    section(
      "rows",
      "Readings",
      rows(input),
      "Intervals resample sessions, so many steps from one long session do not narrow them.",
    ),
    section("failing", "Failing steps by reason", failing(input)),
  ];
  return page({ title: `Step suite: ${input.suite}`, kind: "steps", subtitle, body });
}

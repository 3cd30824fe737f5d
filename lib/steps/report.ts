// The step-suite report (`eval-steps run --report FILE.html`): the five rows of the step scorecard
// (pass, same tools, same calls, valid calls, premature stop), each with its session-resampled 95%
// interval drawn as a forest plot (and the scorecard's note where the interval cannot be trusted),
// the judge's secondary reading when there is one, then the failing
// steps grouped by why they failed (the call errored, was not a valid call, stopped early, or called
// other tools than expected), each with its session, depth and the tools it called. Figures are read
// from the StepScorecard (lib/steps/scorecard.ts) as given, never recomputed.

import { shardLabel } from "../core/shard.ts";
import { int, pct } from "../report/format.ts";
import { type Html, html, num, page, section } from "../report/html.ts";
import { axisCell, intervalCell, type Scale } from "../report/svg.ts";
import type { Rate, StepResult, StepScorecard } from "./scorecard.ts";

/** The five rows, in the spec's order, with the scorecard field each reads. */
export const STEP_ROWS = [
  { key: "pass", label: "Pass" },
  { key: "sameTools", label: "Same tools" },
  { key: "sameCalls", label: "Same calls" },
  { key: "validCalls", label: "Valid calls" },
  { key: "prematureStop", label: "Premature stop" },
] as const satisfies readonly { key: keyof StepScorecard; label: string }[];

/** Why a step failed, most basic first: the first that applies names its group. */
export const FAIL_REASONS = ["error", "invalid-call", "premature-stop", "diverged", "failed"] as const;

/** The group a failing step belongs to. */
export function failReason(r: StepResult): (typeof FAIL_REASONS)[number] {
  if (r.error !== undefined) return "error";
  if (!r.valid) return "invalid-call";
  if (r.prematureStop === true) return "premature-stop";
  if (!r.sameTools || !r.sameCalls) return "diverged";
  return "failed";
}

function detail(r: StepResult): string {
  if (r.error !== undefined) return r.error;
  const called = r.tools.length > 0 ? `called ${r.tools.join(", ")}` : "called no tool";
  return r.problems.length > 0 ? `${r.problems.join("; ")} (${called})` : called;
}

const SCALE: Scale = { min: 0, max: 1, width: 260 };

function rateRow(key: string, label: string, r: Rate): Html {
  const m = (metric: string) => ({ metric, row: key });
  const n = html`<td class="n">n=${num(m("n"), r.n, int(r.n))}</td>`;
  if (r.rate === null || r.lo === null || r.hi === null)
    return html`<tr data-step-row="${key}"><th scope="row">${label}</th><td class="n neutral">–</td><td class="n"></td><td class="chart"></td>${n}</tr>`;
  return html`<tr data-step-row="${key}"><th scope="row">${label}</th><td class="n">${num(m("rate"), r.rate, pct(r.rate))}</td><td class="n"><span class="ci">(${num(
    m("lo"),
    r.lo,
    pct(r.lo),
  )} to ${num(m("hi"), r.hi, pct(r.hi))})</span>${r.note ? html`<br><span class="why" data-note="${key}">${r.note}</span>` : ""}</td><td class="chart">${intervalCell(
    SCALE,
    {
      estimate: r.rate,
      lo: r.lo,
      hi: r.hi,
      tone: key === "prematureStop" ? (r.rate > 0 ? "bad" : "good") : undefined,
      label: `${label} ${pct(r.rate)}`,
    },
  )}</td>${n}</tr>`;
}

function rows(sc: StepScorecard): Html {
  const body = STEP_ROWS.map(({ key, label }) => rateRow(key, label, sc[key]));
  const j = sc.judge;
  const judge = j
    ? html`<p class="note">Judge <code>${j.model}</code> (secondary, never changes pass): mean score ${
        j.mean === null || j.lo === null || j.hi === null
          ? "–"
          : html`${num({ metric: "mean", row: "judge" }, j.mean, j.mean.toFixed(2))} <span class="ci">(${num(
              { metric: "lo", row: "judge" },
              j.lo,
              j.lo.toFixed(2),
            )} to ${num({ metric: "hi", row: "judge" }, j.hi, j.hi.toFixed(2))})</span>`
      } over ${num({ metric: "n", row: "judge" }, j.n, int(j.n))} steps, ${num({ metric: "errors", row: "judge" }, j.errors, int(j.errors))} judge errors.</p>`
    : "";
  return html`<table><thead><tr><th>Reading</th><th class="n">Rate</th><th class="n">95% CI</th><th></th><th class="n">Steps</th></tr></thead><tbody>${body}</tbody><tfoot><tr><td></td><td></td><td></td><td class="chart">${axisCell(
    SCALE,
    [0, 0.25, 0.5, 0.75, 1],
    (t) => `${Math.round(t * 100)}%`,
  )}</td><td></td></tr></tfoot></table>${judge}`;
}

function failing(sc: StepScorecard): Html {
  const groups = new Map<string, StepResult[]>();
  for (const r of sc.results) {
    if (r.pass) continue;
    const reason = failReason(r);
    const list = groups.get(reason);
    if (list) list.push(r);
    else groups.set(reason, [r]);
  }
  if (groups.size === 0) return html`<p class="neutral" data-empty="true">None: every step passed.</p>`;
  return html`${FAIL_REASONS.filter((reason) => groups.has(reason)).map((reason) => {
    const list = groups.get(reason)!;
    return html`<details open data-reason="${reason}"><summary><strong>${reason}</strong> · ${num(
      { metric: "failing", row: reason },
      list.length,
      int(list.length),
    )} steps</summary><table><thead><tr><th>Step</th><th>Session</th><th class="n">Depth</th><th>Protocol</th><th>What happened</th></tr></thead><tbody>${list.map(
      (r) =>
        html`<tr data-step="${r.id}"><td><code>${r.id}</code></td><td><code>${r.session}</code></td><td class="n">${r.depth}</td><td>${r.protocol}</td><td>${detail(r)}</td></tr>`,
    )}</tbody></table></details>`;
  })}`;
}

/** The step-suite report as one self-contained HTML document. */
export function renderStepsReportHtml(scorecard: StepScorecard): string {
  const sc = scorecard;
  const subtitle = html`Model <code>${sc.model}</code> · ${num({ metric: "cases" }, sc.cases, int(sc.cases))} cases · ${num(
    { metric: "sessions" },
    sc.sessions,
    int(sc.sessions),
  )} sessions · ${num({ metric: "errors" }, sc.errors, int(sc.errors))} errors · bootstrap seed ${num({ metric: "seed" }, sc.seed, String(sc.seed))}${
    sc.shard ? html` · shard <span data-metric="shard">${shardLabel(sc.shard)}</span>` : ""
  }`;
  const body = [
    section(
      "rows",
      "Readings",
      rows(sc),
      "Intervals resample sessions, so many steps from one long session do not narrow them. Premature stop counts only steps where production kept working.",
    ),
    section("failing", "Failing steps by reason", failing(sc)),
  ];
  return page({ title: `Step suite: ${sc.suite}`, kind: "steps", subtitle, body });
}

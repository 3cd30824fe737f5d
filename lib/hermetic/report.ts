// The run-eval report (`run-eval --report FILE.html`): the run's totals, then one row per case with
// its verdict, assertions as a bar, time, where it stopped and its isolation proof (mechanism, uid,
// whether egress was blocked), then the failing cases opened up: the failed assertions and the
// case's whole output. Read from the RunResult of `run-eval --json`, never recomputed.

import { shardLabel } from "../core/shard.ts";
import { int, secs } from "../report/format.ts";
import { attrs, type Html, html, num, page, safeHref, section } from "../report/html.ts";
import { barCell, type Scale } from "../report/svg.ts";
import type { CaseRunResult, RunResult } from "./result.ts";

function badge(c: CaseRunResult): Html {
  const tone = c.result === "pass" ? "good" : c.result === "fail" ? "bad" : "warn";
  const word = c.result === "pass" ? "pass" : c.result === "fail" ? "fail" : `error ${c.exitCode}`;
  return html`<span class="badge ${tone}" data-metric="result" data-task="${c.name}">${word}</span>`;
}

function isolation(c: CaseRunResult): Html {
  const p = c.sandbox;
  if (!p) return html`<span class="neutral">not run</span>`;
  const egress = p.egress.blocked ? "egress blocked" : "EGRESS OPEN";
  const tone = p.ok ? "good" : "bad";
  const why = p.ok ? "" : ` (${(p.problems ?? []).join("; ")})`;
  return html`<span class="${tone}" data-metric="isolation" data-task="${c.name}" title="${p.namespaces.join(", ")} · ${p.egress.detail}">${p.ok ? "✓" : "✗"} ${p.mechanism}, uid ${p.uid}, ${egress}${why}</span>`;
}

function cases(r: RunResult): Html {
  const maxMs = Math.max(1, ...r.cases.map((c) => c.durationMs));
  const time: Scale = { min: 0, max: maxMs, width: 140 };
  const share: Scale = { min: 0, max: 1, width: 110 };
  const rows = r.cases.map((c) => {
    const m = (metric: string) => ({ metric, task: c.name });
    const a = c.assertions;
    const assertions = a
      ? html`${num(m("assertionsPassed"), a.passed, int(a.passed))}/${num(m("assertionsTotal"), a.total, int(a.total))}`
      : html`<span class="neutral">–</span>`;
    const bar = a
      ? barCell(share, {
          value: a.total === 0 ? 1 : a.passed / a.total,
          label: `${a.passed} of ${a.total} assertions`,
        })
      : "";
    const kept = safeHref(c.kept ?? undefined);
    const name = kept ? html`<a href="${kept}">${c.name}</a>` : c.name;
    return html`<tr${attrs({ "data-case": c.name })}><th scope="row">${name}</th><td>${badge(c)}</td><td class="n">${assertions}</td><td class="chart">${bar}</td><td class="n">${num(
      m("durationMs"),
      c.durationMs,
      secs(c.durationMs),
    )}</td><td class="chart">${barCell(time, { value: c.durationMs, label: secs(c.durationMs) })}</td><td>${c.stage}</td><td>${isolation(c)}</td></tr>`;
  });
  return html`<table><thead><tr><th>Case</th><th>Result</th><th class="n">Assertions</th><th></th><th class="n">Time</th><th></th><th>Stage</th><th>Isolation</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function failures(r: RunResult): Html {
  const bad = r.cases.filter((c) => c.result !== "pass");
  if (bad.length === 0) return html`<p class="neutral" data-empty="true">None: every case passed.</p>`;
  return html`${bad.map((c) => {
    const failed = (c.grade?.assertions ?? []).filter((a) => !a.ok);
    const list =
      failed.length === 0
        ? ""
        : html`<ul>${failed.map(
            (a) =>
              html`<li><strong>${a.label ?? `assertion ${a.index}`}</strong>${a.tool ? html` · <code>${a.tool}</code>` : ""}: ${
                a.reason ?? `want exit ${a.want ?? "?"}, got ${a.got ?? "none"}`
              }${a.output.length > 0 ? html`<pre>${a.output.join("\n")}</pre>` : ""}</li>`,
          )}</ul>`;
    return html`<details open data-failure="${c.name}"><summary><strong>${c.name}</strong> · ${c.message ?? c.result}</summary>${list}<pre>${c.output}</pre></details>`;
  })}`;
}

/** The run-eval report as one self-contained HTML document. */
export function renderRunEvalReportHtml(r: RunResult, opts: { title?: string } = {}): string {
  const n = r.cases.length;
  const card = (metric: string, value: number, label: string, tone: string) =>
    html`<div class="card"><div class="big ${tone}">${num({ metric }, value, int(value))}</div>${label}</div>`;
  const totals = html`<div class="cards">${card("passed", r.counts.passed, "passed", "good")}${card(
    "failed",
    r.counts.failed,
    "failed",
    r.counts.failed > 0 ? "bad" : "neutral",
  )}${card("errors", r.counts.errors, "errors", r.counts.errors > 0 ? "warn" : "neutral")}<div class="card"><div class="big">${num(
    { metric: "exitCode" },
    r.exitCode,
    String(r.exitCode),
  )}</div>exit code</div><div class="card"><div class="big">${num({ metric: "durationMs" }, r.durationMs, secs(r.durationMs))}</div>wall time</div></div>`;
  const subtitle = html`${r.ok ? "All cases passed" : "Cases failed"} · ${num({ metric: "cases" }, n, int(n))} case${
    n === 1 ? "" : "s"
  } · sandbox <code>${r.mechanism}</code> · -j ${num({ metric: "jobs" }, r.jobs, String(r.jobs))}${
    r.shard ? html` · shard <span data-metric="shard">${shardLabel(r.shard)}</span>` : ""
  }`;
  const body = [
    section("totals", "Totals", totals),
    section(
      "cases",
      "Cases",
      cases(r),
      "Isolation is the proof the sandbox recorded for each case (OUT/sandbox.json).",
    ),
    section("failures", "What failed", failures(r)),
  ];
  return page({ title: opts.title ?? "run-eval report", kind: "run-eval", subtitle, body });
}

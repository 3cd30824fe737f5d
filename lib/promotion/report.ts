// The promotion-run report (`agent-eval report RUN_DIR`): the verdict first, then both arms' pass
// rates with their 95% Wilson intervals and the difference, the leak evidence (pre-run held-out and
// staging checks, post-run leaks, each run's reasons), the isolation evidence provenance recorded
// (posture, sandbox mechanism, binds, what the probe saw), the runs, and the provenance digests.
// Until a verdict is recorded the page never says which arm a blind id ran, so it can be shown to
// graders without unblinding them. Reads the run directory lib/promotion/run.ts documents.
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { int, pct, pp, ppBare } from "../report/format.ts";
import { type Html, html, num, page, section } from "../report/html.ts";
import { axisCell, intervalCell, type Scale } from "../report/svg.ts";
import type { Interval } from "../stats/index.ts";
import { loadProvenance, loadSealedKey, type Provenance, type SealedKey } from "./records.ts";
import { verdictStats } from "./verdict.ts";

/** A promotion run as the report reads it: provenance and (operator only) the sealed key. */
export interface PromotionRunData {
  runDir: string;
  provenance: Provenance;
  key: SealedKey | null;
}

/** Loads `<runDir>/provenance.json` and, when present, `sealed/key.json`; ConfigError (3) otherwise. */
export function loadPromotionRun(runDir: string): PromotionRunData {
  const dir = resolve(runDir);
  const prov = join(dir, "provenance.json");
  if (!existsSync(prov))
    throw new ConfigError(`Cannot read promotion run "${dir}": no provenance.json in it`);
  const keyPath = join(dir, "sealed", "key.json");
  return {
    runDir: dir,
    provenance: loadProvenance(prov),
    key: existsSync(keyPath) ? loadSealedKey(keyPath) : null,
  };
}

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Loose) : {};
const str = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "–" : JSON.stringify(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const MEANING: Record<string, { tone: string; text: string }> = {
  promote: {
    tone: "good",
    text: "The candidate passed at least as often as the baseline and reached min_pass_rate.",
  },
  hold: { tone: "warn", text: "The candidate did not do worse, but did not reach min_pass_rate." },
  reject: { tone: "bad", text: "The candidate passed less often than the baseline." },
  insufficient: { tone: "warn", text: "Fewer runs per arm than the task's min_runs: no decision." },
  invalid: { tone: "bad", text: "A run leaked held-out material: the run cannot decide anything." },
};

function verdictSection(p: Provenance): Html {
  const v = p.verdict;
  if (!v)
    return html`<p class="verdict neutral" data-metric="verdict">pending</p><p class="note">No verdict recorded yet: graders score the blind packets, then <code>agent-eval verdict</code> records it once.</p>`;
  const m = MEANING[v.result] ?? { tone: "neutral", text: "" };
  return html`<p class="verdict ${m.tone}" data-metric="verdict">${v.result}</p><p>${m.text}</p><dl class="kv"><dt>pass threshold (criteria a run must meet)</dt><dd>${num(
    { metric: "pass_threshold" },
    v.pass_threshold,
    pct(v.pass_threshold),
  )}</dd><dt>min pass rate to promote</dt><dd>${num({ metric: "min_pass_rate" }, v.min_pass_rate, pct(v.min_pass_rate))}</dd><dt>decided at</dt><dd>${v.decided_at}</dd><dt>scores sha256</dt><dd><code>${v.scores_sha256}</code></dd></dl>`;
}

function intervalOf(x: unknown): Interval | null {
  const o = obj(x);
  return typeof o.estimate === "number" && typeof o.lo === "number" && typeof o.hi === "number"
    ? { estimate: o.estimate, lo: o.lo, hi: o.hi }
    : null;
}

function armsSection(p: Provenance): Html {
  const arms = obj(p.arms);
  const v = p.verdict;
  const armInfo = (name: string) => {
    const a = obj(arms[name]);
    return html`<code>${str(a.ref)}</code> <span class="ci">${str(a.sha).slice(0, 12)}</span>`;
  };
  if (!v)
    return html`<table><thead><tr><th>Arm</th><th>Ref</th></tr></thead><tbody>${["baseline", "candidate"].map(
      (arm) => html`<tr><th scope="row">${arm}</th><td>${armInfo(arm)}</td></tr>`,
    )}</tbody></table><p class="note">Pass rates appear once the verdict is recorded. ${num(
      { metric: "per_arm" },
      p.runs.per_arm,
      int(p.runs.per_arm),
    )} runs per arm, min_runs ${num({ metric: "min_runs" }, p.runs.min_runs, int(p.runs.min_runs))}.</p>`;
  // Ours records the intervals with the verdict; a verdict the original wrote has none: derive them.
  const recorded = obj((v as Loose).stats);
  const derived = verdictStats(v.baseline, v.candidate, v.min_pass_rate);
  const ci = (name: "baseline" | "candidate") => intervalOf(recorded[name]) ?? derived[name];
  const diff = intervalOf(recorded.difference) ?? derived.difference;
  const runsNeeded = obj(recorded.power).runs_per_arm ?? derived.power.runs_per_arm;
  const rate: Scale = { min: 0, max: 1, width: 240 };
  const rows = (["baseline", "candidate"] as const).map((arm) => {
    const r = v[arm];
    const i = ci(arm);
    const m = (metric: string) => ({ metric, variant: arm });
    return html`<tr data-arm="${arm}"><th scope="row">${arm}</th><td>${armInfo(arm)}</td><td class="n">${num(m("passed"), r.passed, int(r.passed))}/${num(
      m("n"),
      r.n,
      int(r.n),
    )}</td><td class="n">${num(m("pass_rate"), r.pass_rate, pct(r.pass_rate))}${
      i
        ? html`<br><span class="ci">(${num(m("ci_lo"), i.lo, pct(i.lo))} to ${num(m("ci_hi"), i.hi, pct(i.hi))})</span>`
        : ""
    }</td><td class="chart">${
      i
        ? intervalCell(rate, {
            estimate: r.pass_rate,
            lo: i.lo,
            hi: i.hi,
            ref: v.min_pass_rate,
            label: `${arm} ${pct(r.pass_rate)}`,
          })
        : ""
    }</td></tr>`;
  });
  const difference = diff
    ? html`<p>Candidate minus baseline: ${num({ metric: "difference" }, diff.estimate, pp(diff.estimate))} <span class="ci">(95% CI ${num(
        { metric: "difference_lo" },
        diff.lo,
        ppBare(diff.lo),
      )} to ${num({ metric: "difference_hi" }, diff.hi, ppBare(diff.hi))})</span>${
        typeof runsNeeded === "number"
          ? html` · about ${num({ metric: "runs_per_arm_needed" }, runsNeeded, int(runsNeeded))} runs per arm would detect it with 80% power`
          : ""
      }.</p>`
    : "";
  return html`<table><thead><tr><th>Arm</th><th>Ref</th><th class="n">Passed</th><th class="n">Pass rate (95% Wilson CI)</th><th></th></tr></thead><tbody>${rows}</tbody><tfoot><tr><td></td><td></td><td></td><td></td><td class="chart">${axisCell(
    rate,
    [0, 0.25, 0.5, 0.75, 1],
    (t) => `${Math.round(t * 100)}%`,
  )}</td></tr></tfoot></table><p class="note">The dashed line is min_pass_rate. ${num(
    { metric: "per_arm" },
    p.runs.per_arm,
    int(p.runs.per_arm),
  )} runs per arm, min_runs ${num({ metric: "min_runs" }, p.runs.min_runs, int(p.runs.min_runs))}.</p>${difference}`;
}

function leakSection(p: Provenance, key: SealedKey | null): Html {
  const pre = obj(obj(p.leakcheck).pre);
  const post = p.leakcheck.post_leaks;
  const check = (name: string) => {
    const value = str(pre[name]);
    return html`<span class="${value === "pass" ? "good" : "bad"}" data-metric="pre_${name}">${value === "pass" ? "✓ pass" : `✗ ${value}`}</span>`;
  };
  const leaked = key ? Object.entries(key).filter(([, r]) => r.leak) : [];
  const reasons =
    leaked.length === 0
      ? html`<p class="good" data-empty="true">No run leaked: no canary and no rubric text in any run root.</p>`
      : html`<ul>${leaked.map(
          ([bid, r]) => html`<li data-leak="${bid}"><code>${bid}</code>: ${r.leak_reasons.join("; ")}</li>`,
        )}</ul>`;
  return html`<dl class="kv"><dt>held-out (skills of both arms) before any run</dt><dd>${check("held_out")}</dd><dt>staging (prompt, fixture, cassettes) before any run</dt><dd>${check(
    "staging",
  )}</dd><dt>runs that leaked after running</dt><dd><span class="${post > 0 ? "bad" : "good"}">${num(
    { metric: "post_leaks" },
    post,
    int(post),
  )}</span></dd></dl>${reasons}`;
}

function isolationSection(p: Provenance): Html {
  const posture = obj((p as Loose).posture);
  const iso = obj((p as Loose).isolation);
  const rows = html`<dt>GitHub</dt><dd>${str(posture.github)}</dd><dt>network</dt><dd>${str(posture.network)}</dd>`;
  if (Object.keys(iso).length === 0)
    return html`<dl class="kv">${rows}<dt>sandbox</dt><dd class="warn" data-metric="sandbox">not recorded (a run by the original tool, which did not sandbox the agent)</dd></dl>`;
  const binds = obj(iso.binds);
  const probe = obj(iso.probe);
  const paths = Object.entries(obj(probe.paths));
  const sandboxed = iso.mechanism !== "none";
  const probeRows =
    paths.length === 0
      ? html`<p class="warn">No probe ran${sandboxed ? "" : " (--no-sandbox)"}.</p>`
      : html`<table><thead><tr><th>Host path the agent must not see</th><th>Inside the sandbox</th></tr></thead><tbody>${paths.map(
          ([path, seen]) =>
            html`<tr data-probe="${path}"><td><code>${path}</code></td><td class="${seen === "absent" ? "good" : "bad"}">${seen === "absent" ? "✓ absent" : `✗ ${str(seen)}`}</td></tr>`,
        )}</tbody></table>`;
  return html`<dl class="kv">${rows}<dt>sandbox</dt><dd class="${sandboxed ? "good" : "warn"}" data-metric="sandbox">${str(iso.mechanism)}, uid ${str(
    iso.uid,
  )}</dd><dt>agent network</dt><dd>${str(iso.network)}</dd><dt>read-write</dt><dd>${list(binds.rw).map(str).join(", ") || "–"}</dd><dt>read-only</dt><dd>${
    list(binds.ro).map(str).join(", ") || "–"
  }</dd><dt>system</dt><dd>${list(binds.system).map(str).join(", ") || "–"}</dd></dl>${probeRows}`;
}

function runsSection(p: Provenance, key: SealedKey | null): Html {
  if (!key) return html`<p class="neutral" data-empty="true">No sealed key in this run directory.</p>`;
  const unblinded = p.verdict !== null;
  const rows = Object.entries(key)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([bid, r]) =>
        html`<tr data-run="${bid}"><td><code>${bid}</code></td>${unblinded ? html`<td>${r.arm} #${r.index}</td>` : ""}<td class="n">${String(
          r.exit,
        )}</td><td class="n">${num({ metric: "duration_s", row: bid }, r.duration_s, `${r.duration_s.toFixed(1)}s`)}</td><td class="${
          r.checks_passed ? "good" : "bad"
        }">${r.checks_passed ? "✓" : "✗"}</td><td class="${r.leak ? "bad" : "good"}">${r.leak ? "✗ leaked" : "✓ none"}</td><td>${r.skipped.join(", ")}</td></tr>`,
    );
  return html`<table><thead><tr><th>Blind id</th>${unblinded ? html`<th>Arm</th>` : ""}<th class="n">Exit</th><th class="n">Duration</th><th>Checks</th><th>Leak</th><th>Skipped</th></tr></thead><tbody>${rows}</tbody></table>${
    unblinded ? "" : html`<p class="note">Arms stay hidden until the verdict is recorded.</p>`
  }`;
}

function provenanceSection(p: Provenance): Html {
  const task = obj(p.task);
  const agent = obj(obj((p as Loose).agent).declared);
  const exec = obj((p as Loose).executor);
  return html`<dl class="kv"><dt>source sha</dt><dd><code>${str((p as Loose).sha)}</code> (clean tree: ${str(
    (p as Loose).clean_tree,
  )})</dd><dt>task</dt><dd><code>${str(task.id)}</code> · skill ${str(task.skill)}</dd><dt>task sha256</dt><dd><code>${str(
    task.task_sha256,
  )}</code></dd><dt>rubric sha256</dt><dd><code>${str(task.rubric_sha256)}</code></dd><dt>agent</dt><dd>${str(agent.cli)} ${str(
    agent.cli_version,
  )} · model ${str(agent.model)}</dd><dt>executor</dt><dd>${str(exec.user)} (uid ${str(exec.uid)}) on ${str(exec.host)}</dd><dt>written at</dt><dd>${str(
    (p as Loose).written_at,
  )}</dd><dt>artifacts</dt><dd>${num({ metric: "artifacts" }, p.artifacts.length, int(p.artifacts.length))} hashed (check them with <code>agent-eval verify</code>)</dd></dl>`;
}

/** The promotion-run report as one self-contained HTML document. */
export function renderPromotionReportHtml(run: PromotionRunData): string {
  const p = run.provenance;
  const subtitle = html`Run <code>${basename(run.runDir)}</code> · task <code>${p.task.id}</code>`;
  const body = [
    section("verdict", "Verdict", verdictSection(p)),
    section("arms", "Both arms", armsSection(p)),
    section("leaks", "Leak evidence", leakSection(p, run.key)),
    section("isolation", "Isolation evidence", isolationSection(p)),
    section("runs", "Runs", runsSection(p, run.key)),
    section("provenance", "Provenance", provenanceSection(p)),
  ];
  return page({ title: `Promotion run: ${p.task.id}`, kind: "promotion", subtitle, body });
}

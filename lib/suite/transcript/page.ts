// A trial's transcript as one self-contained page (report/html.ts: its one escaper and its CSP, no
// script): why it failed first (the trial's error, the failed tool call, the check's output), then
// what the bridge counted, the conversation exchange by exchange (each tool call folded with its
// arguments and the result that came back, a failed one open and marked), the changes to /work, the
// CLI's own events and every phase's output. Data attributes name what tests look for.
import { int, secs, usd } from "../../report/format.ts";
import { attrs, Html, html, num, page, safeHref, section } from "../../report/html.ts";
import { type ModelExchange, resultFailed, type SaidEntry, type Transcript } from "./format.ts";

/** Links beside the page: the transcript's JSON and the trial's raw log (relative names). */
export interface PageLinks {
  json?: string;
  log?: string;
}

const CSS = `
.verdict-box{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:8px 12px;margin:8px 0;background:var(--panel)}
.verdict-box.pass{border-left-color:var(--pass)}
.x{border:1px solid var(--line);border-radius:6px;margin:10px 0;padding:6px 10px}
.x>h3{font-size:13px;margin:0 0 6px;color:var(--muted);font-weight:600}
.msg{margin:6px 0;padding:6px 8px;border-radius:6px;background:var(--panel);white-space:pre-wrap;overflow-wrap:anywhere}
.msg.assistant{border-left:3px solid var(--accent)}.msg.user{border-left:3px solid var(--muted)}
.role{font-size:11px;font-weight:700;text-transform:uppercase;color:var(--muted);display:block;margin-bottom:2px}
details.call{margin:6px 0;border:1px solid var(--line);border-radius:6px;padding:4px 8px}
details.call>summary{cursor:pointer;font:12px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details.call.failed{border-color:var(--fail)}details.call.failed>summary{color:var(--fail);font-weight:700}
details>summary{cursor:pointer}
pre.diff .add{color:var(--pass)}pre.diff .del{color:var(--fail)}pre.diff .hunk{color:var(--accent)}
`;

type Call = NonNullable<SaidEntry["calls"]>[number];
type Result = NonNullable<SaidEntry["results"]>[number];

/** Each call's result, by call id (or, for Gemini, the next result of its name). */
function pairResults(exchanges: readonly ModelExchange[]): Map<Call, Result> {
  const pairs = new Map<Call, Result>();
  let open: Call[] = [];
  for (const x of exchanges) {
    for (const s of x.sent)
      for (const r of s.results ?? []) {
        const i = open.findIndex((c) => (r.id ? c.id === r.id : c.name === r.name));
        if (i >= 0) {
          pairs.set(open[i]!, r);
          open.splice(i, 1);
        }
      }
    open = [...open, ...(x.reply?.calls ?? [])];
  }
  return pairs;
}

function argsText(c: Call): string {
  return JSON.stringify(c.args, null, 2);
}

/** A one-line glimpse of a call's arguments: the command, path or first value. */
function glimpse(c: Call): string {
  const v = c.args.command ?? c.args.cmd ?? c.args.file_path ?? c.args.path ?? Object.values(c.args)[0];
  const s = typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);
  const line = s.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function callBlock(c: Call, result: Result | undefined, anchor: string): Html {
  const failed = result !== undefined && resultFailed(result);
  const status = result === undefined ? "no result" : failed ? "failed" : "ok";
  return html`<details${attrs({
    class: failed ? "call failed" : "call",
    open: failed,
    id: anchor,
    "data-call": c.name,
    "data-failed": failed ? "true" : undefined,
  })}><summary>${failed ? "✗ " : ""}${c.name} ${glimpse(c)} <span class="neutral">(${status})</span></summary><pre>${argsText(c)}</pre>${
    result ? html`<span class="role">result</span><pre data-result="${c.name}">${result.text}</pre>` : ""
  }${c.malformed ? html`<p class="bad">The arguments were not a JSON object.</p>` : ""}</details>`;
}

function message(s: SaidEntry, shown: Set<Result>): Html {
  const results = (s.results ?? []).filter((r) => !shown.has(r));
  const text = s.text ?? "";
  if (s.role === "system")
    return html`<details class="msg system"><summary>System · ${int(text.length)} characters</summary><pre>${text}</pre></details>`;
  return html`${text !== "" ? html`<div class="msg ${s.role}"><span class="role">${s.role}</span>${text}</div>` : ""}${results.map(
    (r) =>
      html`<details class="call${resultFailed(r) ? " failed" : ""}"${attrs({ open: resultFailed(r) })}><summary>result of ${r.name ?? r.id ?? "a call"}${resultFailed(r) ? " (failed)" : ""}</summary><pre>${r.text}</pre></details>`,
  )}`;
}

function tokensLine(x: ModelExchange): Html | string {
  if (!x.tokens) return "";
  return html` · ${int(x.tokens.input)} in / ${int(x.tokens.output)} out${x.costUSD !== undefined ? html` · ${usd(x.costUSD)}` : ""}`;
}

function exchangeBlock(x: ModelExchange, pairs: Map<Call, Result>, shown: Set<Result>): Html {
  const head = html`#${x.seq} ${x.method} ${x.path}${x.model ? html` · ${x.model}` : ""} · ${
    x.status === undefined ? "no reply" : `HTTP ${x.status}`
  } · ${secs(x.ms)}${tokensLine(x)}`;
  const reply = x.reply;
  const calls = (reply?.calls ?? []).map((c, i) => {
    const r = pairs.get(c);
    if (r) shown.add(r);
    return callBlock(c, r, `x${x.seq}-call${i + 1}`);
  });
  return html`<div${attrs({ class: "x", id: `x${x.seq}`, "data-exchange": x.seq })}><h3>${head}</h3>${
    x.omitted ? html`<p class="neutral">Content not kept: the transcript's size cap was reached.</p>` : ""
  }${x.sent.map((s) => message(s, shown))}${x.error ? html`<pre class="bad">${x.error}</pre>` : ""}${
    x.unreadable ? html`<p class="warn">Reply not read: ${x.unreadable}</p>` : ""
  }${reply && reply.text !== "" ? html`<div class="msg assistant"><span class="role">assistant</span>${reply.text}</div>` : ""}${calls}</div>`;
}

function verdict(t: Transcript): Html {
  const o = t.outcome;
  const check = t.phases.findLast((p) => p.phase === "check" || p.phase === "verifier");
  const word = o.pass ? "Passed" : o.infra ? `Infrastructure failure (${o.infra})` : "Failed";
  const checkOut = check && !o.pass ? `${check.stdout}${check.stderr}`.trim() : "";
  return html`<div class="verdict-box${o.pass ? " pass" : ""}" data-verdict="${o.pass ? "pass" : "fail"}"><div class="verdict ${o.pass ? "good" : "bad"}">${word}</div>${
    o.error ? html`<p data-error="true"><strong>Error:</strong> ${o.error}</p>` : ""
  }${o.failure ? html`<p data-failure="true"><strong>Failed tool call:</strong> ${o.failure}</p>` : ""}${
    check && !o.pass
      ? html`<p><strong>${check.phase === "check" ? "Check" : "Verifier"}:</strong> ${check.timedOut ? "timed out" : `exit ${check.exit ?? "none"}`}</p>${checkOut ? html`<pre data-check-output="true">${checkOut.slice(-4000)}</pre>` : ""}`
      : ""
  }${(t.mismatch ?? []).map(
    (m) =>
      html`<p class="warn" data-mismatch="${m.metric}">The agent reported ${m.metric} ${String(m.agent)}; the bridge counted ${String(m.bridge)}.</p>`,
  )}</div>`;
}

function meterTable(t: Transcript): Html {
  const m = t.meter;
  if (!m)
    return html`<p class="neutral">No model traffic went through the bridge for this trial (its figures are the agent's own).</p>`;
  const cost =
    m.costUSD !== undefined
      ? num({ metric: "costUSD" }, m.costUSD, usd(m.costUSD))
      : html`<span data-metric="costUSD">— (not priced: ${(m.unpriced ?? []).join(", ")})</span>`;
  return html`<dl class="kv"><dt>Model turns</dt><dd>${num({ metric: "turns" }, m.turns, int(m.turns))} of ${int(m.requests)} requests${m.failed ? ` (${m.failed} failed)` : ""}</dd><dt>Tokens</dt><dd>${num({ metric: "tokens" }, m.input + m.output, int(m.input + m.output))} (${int(m.input)} in, of which ${int(m.cacheRead)} cached; ${int(m.output)} out)</dd><dt>Cost</dt><dd>${cost}</dd><dt>Prices</dt><dd>${m.prices}</dd></dl>`;
}

function diffBlock(t: Transcript): Html {
  const d = t.diff;
  if (!d) return html`<p class="neutral">Not available for this runner.</p>`;
  if (d.files.length === 0)
    return html`<p class="neutral" data-empty="true">The agent changed nothing in /work.</p>`;
  const mark = { added: "A", deleted: "D", modified: "M" } as const;
  return html`${d.files.map((f) => {
    const body = f.patch
      ? html`<pre class="diff">${f.patch.split("\n").map((l) => {
          const cls = l.startsWith("@@")
            ? "hunk"
            : l.startsWith("+")
              ? "add"
              : l.startsWith("-")
                ? "del"
                : "";
          return cls ? html`<span class="${cls}">${l}</span>\n` : html`${l}\n`;
        })}</pre>`
      : "";
    return html`<details data-file="${f.path}"><summary><code>${mark[f.change]} ${f.path}</code>${f.note ? html` <span class="neutral">(${f.note})</span>` : ""}</summary>${body}</details>`;
  })}${d.more ? html`<p class="neutral">${int(d.more)} more changed paths not listed.</p>` : ""}`;
}

function eventsBlock(t: Transcript): Html | string {
  const cli = t.cli;
  if (!cli) return "";
  const rows = cli.events.map((e, i) => {
    const type =
      typeof e === "object" && e !== null && "type" in e ? String((e as { type: unknown }).type) : "";
    return html`<tr><td class="n">${i + 1}</td><td>${type}</td><td><code>${JSON.stringify(e).slice(0, 300)}</code></td></tr>`;
  });
  return section(
    "events",
    "The agent's own events",
    html`<details><summary>${int(cli.events.length)} events (${cli.format})${cli.dropped ? `, ${cli.dropped} more not kept` : ""}</summary><table><thead><tr><th class="n">#</th><th>Type</th><th>Event</th></tr></thead><tbody>${rows}</tbody></table></details>`,
    "What the CLI printed about itself; the figures above come from the bridge, not from these.",
  );
}

function phasesBlock(t: Transcript): Html {
  return html`${t.phases.map(
    (p) =>
      html`<details data-phase="${p.phase}"><summary>${p.phase}: ${p.infra ? `infrastructure: ${p.infra}` : p.timedOut ? "timed out" : `exit ${p.exit ?? "none"}`}, ${secs(p.ms)}</summary><span class="role">stdout</span><pre>${p.stdout}</pre><span class="role">stderr</span><pre>${p.stderr}</pre></details>`,
  )}`;
}

/** The transcript as one self-contained HTML page. */
export function renderTranscriptHtml(t: Transcript, links: PageLinks = {}): string {
  const pairs = pairResults(t.exchanges);
  const shown = new Set<Result>();
  const models = [...new Set(t.exchanges.flatMap((x) => (x.model ? [x.model] : [])))];
  const json = safeHref(links.json);
  const log = safeHref(links.log);
  const subtitle = html`${t.harness ?? ""}${models.length ? html` · ${models.join(", ")}` : ""}${
    json ? html` · <a href="${json}">transcript JSON</a>` : ""
  }${log ? html` · <a href="${log}">raw log</a>` : ""}`;
  const conversation = t.exchanges.filter((x) => x.protocol !== undefined);
  return page({
    title: `Transcript: ${t.task} / ${t.variant} / repeat ${t.repeat}`,
    kind: "transcript",
    subtitle,
    body: [
      new Html(`<style>${CSS}</style>`),
      section("outcome", "Outcome", verdict(t)),
      section("meter", "Counted by the model bridge", meterTable(t)),
      section(
        "conversation",
        "Conversation",
        conversation.length
          ? conversation.map((x) => exchangeBlock(x, pairs, shown))
          : html`<p class="neutral">No model exchange.</p>`,
        "Each request shows what it added to the conversation; tool calls are folded with their arguments and the result that came back.",
      ),
      section("diff", "Changes to /work", diffBlock(t)),
      eventsBlock(t),
      section("phases", "Phases", phasesBlock(t)),
    ],
  });
}

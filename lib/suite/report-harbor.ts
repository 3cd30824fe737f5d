// The suite report's Harbor sections (HTML): each tampered trial (its agent changed what the verifier
// relies on: scored as a fail, so it is in every rate, and named here with every path), and the tasks
// the run went without, each with its reason. Both are left out when there is nothing to show. Every
// text goes through report/html.ts's escaper: paths and reasons come from the agent and the dataset.
import { type Html, html, safeHref, section } from "../report/html.ts";
import type { Scorecard, Trial } from "./scorecard/schema.ts";

/** The tampered-trials section, or "" when no trial was tampered. */
export function tamperedSection(
  trials: readonly Trial[],
  logHref: (t: Trial) => string | undefined,
): Html | "" {
  const list = trials.filter((t) => t.tampered !== undefined);
  if (list.length === 0) return "";
  const rows = list.map((t) => {
    const href = safeHref(logHref(t));
    const task = href ? html`<a href="${href}">${t.task}</a>` : t.task;
    const paths = (t.tampered ?? []).map((p, i) => html`${i > 0 ? html`<br>` : ""}<code>${p}</code>`);
    return html`<tr data-tampered="${t.task}/${t.variant}/${t.repeat}"><td>${t.variant}</td><td>${task}</td><td class="n">${t.repeat}</td><td>${paths}</td></tr>`;
  });
  return section(
    "tampered",
    "Tampered trials",
    html`<table><thead><tr><th>Variant</th><th>Task</th><th class="n">Repeat</th><th>What the agent changed that the verifier relies on</th></tr></thead><tbody>${rows}</tbody></table>`,
    "Each is a fail, counted in every rate, whatever its reward: a grade the agent could have bent is not evidence.",
  );
}

/** The skipped-tasks section, or "" when the run went without none. */
export function skippedSection(sc: Scorecard): Html | "" {
  const list = sc.skipped ?? [];
  if (list.length === 0) return "";
  const rows = list.map(
    (s) => html`<tr data-skipped="${s.task}"><td>${s.task}</td><td>${s.reason}</td></tr>`,
  );
  return section(
    "skipped",
    "Skipped tasks",
    html`<table><thead><tr><th>Task</th><th>Why it did not run</th></tr></thead><tbody>${rows}</tbody></table>`,
    "Tasks of the dataset that cannot load or run here: not run, in no rate.",
  );
}

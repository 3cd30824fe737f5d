// The suite report's Harbor sections: every tampered trial (variant, task, repeat) with each path the
// agent changed, and every skipped task with its reason, all escaped by report/html.ts (a path or a
// reason is the agent's or the dataset's text); neither section without something to show.
import { describe, expect, test } from "bun:test";
import { renderSuiteReportHtml } from "../../lib/suite/report.ts";
import { buildScorecard, type Trial } from "../../lib/suite/scorecard/index.ts";
import { trialOf } from "./_support.ts";

const trial = (variant: string, repeat: number, over: Partial<Trial> = {}) =>
  trialOf(variant, "t<1>", { repeat, pass: true, ...over });

const PATHS = [
  "A /usr/local/bin/<script>alert(1)</script>: shadows a program",
  "C /tests/\"x\" & 'y': the verifier's own files",
];
const TAMPERED = trial("agent", 1, {
  pass: false,
  tampered: PATHS,
  error: "tampered: ...",
  log: "logs/t-1.log",
});
const SKIPPED = [{ task: "<compose>", reason: "environment/docker-compose.yaml: a & b" }];

/** The `<section>` with data-section `id` in `doc`, whole; "" when there is none. */
const sectionOf = (doc: string, id: string) =>
  new RegExp(`<section id="${id}" data-section="${id}">.*?</section>`, "s").exec(doc)?.[0] ?? "";

describe("the tampered and skipped sections", () => {
  const table = [
    {
      name: "a tampered trial and a skipped task: both named, escaped, the log linked",
      trials: [trial("agent", 0), TAMPERED],
      skipped: SKIPPED,
      expected: {
        tampered:
          '<section id="tampered" data-section="tampered"><h2>Tampered trials</h2><p class="note">Each is a fail, counted in every rate, whatever its reward: a grade the agent could have bent is not evidence.</p>' +
          '<table><thead><tr><th>Variant</th><th>Task</th><th class="n">Repeat</th><th>What the agent changed that the verifier relies on</th></tr></thead><tbody>' +
          '<tr data-tampered="t&lt;1&gt;/agent/1"><td>agent</td><td><a href="logs/t-1.log">t&lt;1&gt;</a></td><td class="n">1</td>' +
          "<td><code>A /usr/local/bin/&lt;script&gt;alert(1)&lt;/script&gt;: shadows a program</code><br><code>C /tests/&quot;x&quot; &amp; &#39;y&#39;: the verifier&#39;s own files</code></td></tr></tbody></table></section>",
        skipped:
          '<section id="skipped" data-section="skipped"><h2>Skipped tasks</h2><p class="note">Tasks of the dataset that cannot load or run here: not run, in no rate.</p>' +
          '<table><thead><tr><th>Task</th><th>Why it did not run</th></tr></thead><tbody><tr data-skipped="&lt;compose&gt;"><td>&lt;compose&gt;</td><td>environment/docker-compose.yaml: a &amp; b</td></tr></tbody></table></section>',
        tamperedColumn: true,
      },
    },
    {
      name: "neither: no section, no column",
      trials: [trial("agent", 0), trial("agent", 1, { pass: false, error: "check exited 1" })],
      skipped: [],
      expected: { tampered: "", skipped: "", tamperedColumn: false },
    },
  ];
  for (const row of table)
    test(row.name, () => {
      const sc = buildScorecard("s", "agent", ["agent"], row.trials, {
        iterations: 20,
        skipped: row.skipped,
      });
      const doc = renderSuiteReportHtml(sc);
      expect({
        tampered: sectionOf(doc, "tampered"),
        skipped: sectionOf(doc, "skipped"),
        tamperedColumn: sectionOf(doc, "details").includes('<th class="n">Tampered</th>'),
      }).toEqual(row.expected);
    });
});

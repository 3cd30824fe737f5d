// Issue 24: a metric nobody reported (Codex and Gemini report no cost, Gemini no turns) is shown as
// not measured, `—`, in every output: the Markdown (plain and gated, the gate's metric table too), the
// terminal table, the HTML report; the JSON keeps the original's number and says `unreported`. Never
// `$0.0000` for it, never NaN anywhere, and never held against a gate's limit. And one name for the cost figure: Cost/task everywhere ($/TASK
// in the terminal table), the mean cost of one trial. On the old renderers the Mean turns cell of a
// variant without turns read NaN and an unreported cost read $0.0000.
import { describe, expect, test } from "bun:test";
import { applyGate, thresholdsOf } from "../../../lib/suite/gate.ts";
import { renderMatrixTable } from "../../../lib/suite/matrix.ts";
import { renderSuiteReportHtml } from "../../../lib/suite/report.ts";
import { buildScorecard, renderMarkdown, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { trialOf } from "../_support.ts";

const TASKS = ["a", "b", "c", "d", "e", "f"];
const UNREPORTED: Record<string, Trial["unreported"]> = {
  claude: undefined,
  codex: ["cost"],
  gemini: ["cost", "turns"],
};

function trials(): Trial[] {
  return TASKS.flatMap((task) =>
    Object.entries(UNREPORTED).map(([variant, unreported]) =>
      trialOf(variant, task, {
        pass: true,
        costUSD: variant === "claude" ? 0.12 : 0,
        turns: variant === "gemini" ? 0 : 5,
        tokens: 1000,
        ...(unreported ? { unreported } : {}),
      }),
    ),
  );
}

describe("not measured is shown as not measured", () => {
  const plain = buildScorecard("s", "claude", Object.keys(UNREPORTED), trials());
  const gated = applyGate(plain, thresholdsOf({ max_cost_increase: 0.2 }));
  const outputs = {
    markdown: renderMarkdown(plain),
    gated: renderMarkdown(gated),
    table: renderMatrixTable(gated),
    html: renderSuiteReportHtml(gated),
  };
  const row = (text: string, start: string) => text.split("\n").find((l) => l.startsWith(start)) ?? "";

  test("rows and cells: — where nobody reported, the figure where one did", () => {
    expect({
      json: plain.variants.map((v) => [v.name, v.costPerTaskUSD, v.unreported ?? null]),
      plain: ["| claude |", "| codex |", "| gemini |"].map((r) => row(outputs.markdown, r).split(" | ")[3]),
      turns: row(outputs.markdown, "| gemini |").split(" | ")[8],
      // One trial per task (k = 1): no pass@1/pass^1 columns repeating pass@1, so Cost/task is the 4th.
      gated: ["| claude |", "| codex |", "| gemini |"].map((r) => row(outputs.gated, r).split(" | ")[3]),
      metric: row(outputs.gated.slice(outputs.gated.indexOf("## gemini vs claude")), "| cost_usd |"),
      table: ["claude ", "codex ", "gemini "].map((r) => row(outputs.table, r).split(/\s+/)[4]),
      html: (outputs.html.match(/data-metric="costPerTaskUSD"[^>]*>[^<]*/g) ?? []).map(
        (m) => m.split(">")[1],
      ),
      gate: gated.comparisons?.map((c) => c.gate?.verdict),
      notGated: gated.gate?.reasons?.find((r) => r.startsWith("gemini: cost_usd")),
    }).toEqual({
      json: [
        ["claude", 0.12, null],
        ["codex", 0, ["cost"]],
        ["gemini", 0, ["cost", "turns"]],
      ],
      plain: ["$0.1200", "—", "—"],
      turns: "—",
      gated: ["$0.1200", "—", "—"],
      metric: "| cost_usd | 0.1200 | — |",
      gate: ["ship", "ship"],
      notGated: "gemini: cost_usd not gated: gemini did not report it (not measured)",
      table: ["$0.120", "—", "—"],
      html: ["$0.1200", "—", "—"],
    });
  });

  test("no NaN and no $0.0000 in any output; the cost figure has one name", () => {
    expect(
      Object.fromEntries(
        Object.entries(outputs).map(([k, text]) => [
          k,
          { nan: text.includes("NaN"), zero: text.includes("$0.0000"), perTrial: /cost\/trial/i.test(text) },
        ]),
      ),
    ).toEqual(
      Object.fromEntries(Object.keys(outputs).map((k) => [k, { nan: false, zero: false, perTrial: false }])),
    );
  });
});

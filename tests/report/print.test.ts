// Every report in every way a person looks at it: light, dark and printed (print media, and a real
// PDF from Chromium), each section rendered, nothing fetched, nothing logged. Also a suite
// scorecard exactly as the original writes it (none of our optional fields, trials null).
import { describe, expect, test } from "bun:test";
import { compareRuns } from "../../lib/hermetic/compare.ts";
import { renderCompareHtml } from "../../lib/hermetic/compare-report.ts";
import { renderRunEvalReportHtml } from "../../lib/hermetic/report.ts";
import { loadPromotionRun, renderPromotionReportHtml } from "../../lib/promotion/report.ts";
import { renderStepsReportHtml } from "../../lib/steps/report.ts";
import { renderSuiteReportHtml } from "../../lib/suite/report.ts";
import { type Scorecard, VariantScore } from "../../lib/suite/scorecard/index.ts";
import { bodyBackground, renderedSections, useReportBrowser } from "../support/browser.ts";
import { generateRunResult, generateSteps, generateSuite, writePromotionRun } from "../support/report-gen.ts";
import { tempDir } from "../support/tmp.ts";

/** The original halo eval's scorecard: only its own fields, trials null. */
function originalScorecard(): Scorecard {
  const { scorecard } = generateSuite({ tasks: 3, variants: ["control", "b"], repeats: 2, infraRate: 0 });
  // The original's own fields are the first eleven of VariantScore (ours follow them).
  const keep = Object.keys(VariantScore.shape).slice(0, 11);
  return {
    suite: scorecard.suite,
    control: scorecard.control,
    variants: scorecard.variants.map((v) =>
      Object.fromEntries(keep.map((k) => [k, v[k]])),
    ) as Scorecard["variants"],
    comparisons: scorecard.comparisons,
    trials: null,
  };
}

function documents(): { name: string; doc: string; sections: string[] }[] {
  using dir = tempDir("report-print");
  writePromotionRun(dir.path, { verdict: "promote" });
  const suite = generateSuite({ tasks: 6, variants: ["control", "b"], repeats: 3 });
  return [
    {
      name: "suite",
      doc: renderSuiteReportHtml(suite.scorecard, suite.trials),
      // The headline decision first; why trials failed after the details (issue 24).
      sections: ["decision", "forest", "matrix", "details", "infra", "failures"],
    },
    {
      name: "suite (original's scorecard)",
      doc: renderSuiteReportHtml(originalScorecard()),
      sections: ["forest", "matrix", "details", "infra"],
    },
    { name: "steps", doc: renderStepsReportHtml(generateSteps().scorecard), sections: ["rows", "failing"] },
    {
      name: "run-eval",
      doc: renderRunEvalReportHtml(generateRunResult()),
      sections: ["totals", "cases", "failures"],
    },
    {
      name: "run-eval compare",
      doc: renderCompareHtml(compareRuns(generateRunResult(6), generateRunResult(8)), {
        base: "b.json",
        head: "h.json",
      }),
      sections: ["totals", "changes", "passing"],
    },
    {
      name: "promotion",
      doc: renderPromotionReportHtml(loadPromotionRun(dir.path)),
      sections: ["verdict", "arms", "leaks", "isolation", "runs", "provenance"],
    },
  ];
}

const browser = useReportBrowser();

describe("light, dark and print", () => {
  for (const d of documents())
    test(d.name, async () => {
      const seen: Record<string, unknown> = {};
      const want: Record<string, unknown> = {};
      for (const [mode, opts] of [
        ["light", { colorScheme: "light" as const }],
        ["dark", { colorScheme: "dark" as const }],
        ["print", { media: "print" as const, colorScheme: "dark" as const }],
      ] as const) {
        const opened = await browser.open(d.doc, opts);
        seen[mode] = {
          sections: await renderedSections(opened.page),
          bg: await bodyBackground(opened.page),
          foreign: opened.foreign,
          errors: opened.errors,
        };
        // Print is black on white even when the reader's screen is dark.
        want[mode] = {
          sections: d.sections.map((id) => ({ id, visible: true })),
          bg: mode === "dark" ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)",
          foreign: [],
          errors: [],
        };
        if (mode === "print") {
          const pdf = await opened.page.pdf({ format: "A4" });
          seen.pdf = pdf.subarray(0, 5).toString() === "%PDF-" && pdf.length > 10_000;
          want.pdf = true;
        }
        await opened.page.close();
      }
      expect(seen).toEqual(want);
    });
});

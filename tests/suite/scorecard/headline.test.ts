// Issue 24's one decision per scorecard: the gate's verdict when gated, else the most cautious
// comparison verdict, else none; one sentence where gate and verdict differ (non-inferiority against
// any difference), none where they agree. The Markdown prints it under the title, the terminal table
// first, the JSON as its first key (the HTML: tests/suite/gate/evidence.test.ts).
import { describe, expect, test } from "bun:test";
import { applyGate, thresholdsOf } from "../../../lib/suite/gate.ts";
import { renderMatrixTable } from "../../../lib/suite/matrix.ts";
import {
  buildScorecard,
  renderMarkdown,
  scorecardJson,
  type Trial,
} from "../../../lib/suite/scorecard/index.ts";
import type { Headline } from "../../../lib/suite/scorecard/schema.ts";
import { trialOf } from "../_support.ts";

const EIGHT = ["a", "b", "c", "d", "e", "f", "g", "h"];
/** Two trials per task for each variant, passing where `pass(variant, taskIndex)`. */
function trials(variants: string[], pass: (v: string, t: number) => boolean): Trial[] {
  return EIGHT.flatMap((task, t) =>
    variants.flatMap((v) => [0, 1].map((repeat) => trialOf(v, task, { repeat, pass: pass(v, t) }))),
  );
}

describe("the headline", () => {
  const SHIP_WHY =
    " Why both: the gate tests non-inferiority and ships (a drop larger than the 5.0 pp margin is ruled out), while the verdict tests for any difference and finds none significant.";
  const cases: {
    name: string;
    variants: string[];
    pass: (v: string, t: number) => boolean;
    gate: Record<string, number> | undefined;
    want: Headline;
  }[] = [
    {
      name: "gated, identical arms: SHIP beside no_significant_difference, and why",
      variants: ["base", "cand"],
      pass: () => true,
      gate: {},
      want: {
        decision: "ship",
        source: "gate",
        text: `Decision: SHIP (release gate) — cand vs base: non-inferior on 8 tasks: pass rate +0.0 pp (95% CI +0.0 to +0.0), exact one-sided p = 0.004 at the -5.0 pp margin.${SHIP_WHY}`,
      },
    },
    {
      name: "gated, better everywhere: SHIP beside better, no sentence",
      variants: ["base", "cand"],
      pass: (v: string) => v === "cand",
      gate: {},
      want: {
        decision: "ship",
        source: "gate",
        text: "Decision: SHIP (release gate) — cand vs base: non-inferior on 8 tasks: pass rate +100.0 pp (95% CI +100.0 to +100.0), exact one-sided p = 0.004 at the -5.0 pp margin.",
      },
    },
    {
      name: "gated, one task lost: BLOCK beside no_significant_difference, and why",
      variants: ["base", "cand"],
      pass: (v: string, t: number) => v === "base" || t > 0,
      gate: {},
      want: {
        decision: "block",
        source: "gate",
        text: "Decision: BLOCK (release gate) — cand vs base: 1 tasks regressed (max 0). Why both: the verdict on the mean pass rate is no_significant_difference, but the gate also blocks on single regressed tasks, limits and evidence.",
      },
    },
    {
      name: "ungated, two candidates: the most cautious verdict leads, the other named",
      variants: ["base", "good", "bad"],
      pass: (v: string) => v !== "bad",
      gate: undefined,
      want: {
        decision: "worse",
        source: "comparison",
        text: "Decision: worse (bad vs base) — -100.0 pp over 8 tasks, exact sign-flip p = 0.008 (also: good no_significant_difference).",
      },
    },
    {
      name: "one variant: nothing to decide",
      variants: ["base"],
      pass: () => true,
      gate: undefined,
      want: { decision: "none", source: "none", text: "Decision: none — one variant, nothing compared." },
    },
  ];
  test.each(cases)("$name", ({ variants, pass, gate, want }) => {
    const plain = buildScorecard("s", "base", variants, trials(variants, pass));
    const sc = gate === undefined ? plain : applyGate(plain, thresholdsOf(gate));
    const md = renderMarkdown(sc);
    expect({
      headline: sc.headline,
      markdown: md.split("\n")[2],
      table: renderMatrixTable(sc).split("\n")[0],
      json: Object.entries(JSON.parse(scorecardJson(sc)))[0],
    }).toEqual({ headline: want, markdown: want.text, table: want.text, json: ["headline", want] });
  });
});

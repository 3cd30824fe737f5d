// Mean turns per variant count only the trials whose CLI reported turns: Gemini reports none, so its
// variant shows no mean (and no Markdown cell) rather than a false 0.
import { expect, test } from "bun:test";
import { buildScorecard, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { trialOf } from "../_support.ts";

const trial = (variant: string, turns: number, unreported?: Trial["unreported"]): Trial =>
  trialOf(variant, "t", { pass: true, turns, ...(unreported ? { unreported } : {}) });

test.each([
  { name: "all reported", trials: [trial("v", 2), trial("v", 4)], want: 3 },
  { name: "one unreported is left out", trials: [trial("v", 2), trial("v", 0, ["turns"])], want: 2 },
  { name: "none reported: no mean", trials: [trial("v", 0, ["cost", "turns"])], want: undefined },
  { name: "cost unreported does not matter", trials: [trial("v", 5, ["cost"])], want: 5 },
])("$name", ({ trials, want }) => {
  expect(buildScorecard("s", "v", ["v"], trials).variants[0]!.meanTurns).toEqual(want);
});

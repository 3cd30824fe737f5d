// `eval-steps compare BASE.json HEAD.json`: two step scorecards of one suite, paired by case: each
// rate's change with the exact paired test over sessions, and the cases whose pass flipped. Exit 0
// nothing worse, 1 a rate got worse, 2 usage or no case in common, 3 not a scorecard. Body: lib/steps/compare.ts.
import { defineCommand } from "citty";
import { COMPARE_ARGS, compareCmd } from "../../lib/steps/compare.ts";

export const compare = defineCommand({
  meta: {
    name: "compare",
    description: "compare two step scorecards of one suite: better, worse, per rate and case",
  },
  args: COMPARE_ARGS,
  run: ({ args }) => compareCmd(args),
});

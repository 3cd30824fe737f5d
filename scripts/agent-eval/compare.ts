// agent-eval compare BASE.json HEAD.json: what got better, worse or flaky between two suite
// scorecards, as Markdown (stdout) and HTML (--report). Flags and body: lib/suite/compare-cmd.ts.
import { defineCommand } from "citty";
import { COMPARE_ARGS, compareCommand } from "../../lib/suite/compare-cmd.ts";

export const compare = defineCommand({
  meta: {
    name: "compare",
    description: "compare two suite scorecards: better, worse and flaky, per variant and task",
  },
  args: COMPARE_ARGS,
  run: ({ args }) => compareCommand(args),
});

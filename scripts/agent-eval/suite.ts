// agent-eval suite SUITE.yaml: runs every task x variant x repeat of a task suite and prints the
// scorecard, with halo's edge (`error: <msg>`, exit 1). Flags and body: lib/suite/cmd.ts.
import { defineCommand } from "citty";
import { withEdge } from "../../lib/core/cli.ts";
import { SUITE_ARGS, SUITE_EDGE, suiteCommand } from "../../lib/suite/cmd.ts";

export const suite = withEdge(
  defineCommand({
    meta: {
      name: "suite",
      description: "run a task suite (task x variant x repeat) and print its scorecard",
    },
    args: SUITE_ARGS,
    run: ({ args }) => suiteCommand(args),
  }),
  SUITE_EDGE,
);

// agent-eval suite SUITE.yaml: runs every task x variant x repeat of a task suite (or one shard of
// them, --shard K/N) and prints the scorecard, with halo's edge (`error: <msg>`, exit 1). `suite merge
// SUITE.yaml TRIALS...` merges the shards, with its own edge (exit 2 for a refused shard). Flags and
// bodies: lib/suite/cmd.ts, lib/suite/merge-cmd.ts.
import { defineCommand } from "citty";
import { withEdge } from "../../lib/core/cli.ts";
import { SUITE_ARGS, SUITE_EDGE, suiteCommand } from "../../lib/suite/cmd.ts";
import { MERGE_ARGS, MERGE_EDGE, mergeCommand } from "../../lib/suite/merge-cmd.ts";

const merge = withEdge(
  defineCommand({
    meta: {
      name: "merge",
      description: "merge the trials files of a suite's shards into the whole run's scorecard and report",
    },
    args: MERGE_ARGS,
    run: ({ args }) => mergeCommand(args),
  }),
  MERGE_EDGE,
);

export const suite = withEdge(
  defineCommand({
    meta: {
      name: "suite",
      description: "run a task suite (task x variant x repeat) and print its scorecard",
    },
    args: SUITE_ARGS,
    subCommands: { merge },
    run: ({ args }) => suiteCommand(args),
  }),
  SUITE_EDGE,
);

// `eval-steps merge FILE...`: the scorecards of `eval-steps run --shard K/N` joined into the one an
// unsharded run writes (text or JSON, --scorecard, --report). Exit 0, 1 every call errored, 2 a
// missing, duplicated or foreign shard, 3 a file that is not a scorecard. Body: lib/steps/merge.ts.
import { defineCommand } from "citty";
import { outputOf } from "../../lib/steps/cmd.ts";
import { MERGE_ARGS, mergeCmd } from "../../lib/steps/merge.ts";

export const merge = defineCommand({
  meta: {
    name: "merge",
    description: "join the scorecards of eval-steps run --shard K/N into the whole suite's",
  },
  args: MERGE_ARGS,
  run: ({ args }) => mergeCmd(args, outputOf(args.output)),
});

// `eval-steps run`: replays a step suite against one model route and prints the step scorecard. Exit
// 0 with a scorecard (failed steps are results), 1 when every call errored (nothing was measured), 2
// usage, 3 a bad case file. Body: lib/steps/cmd.ts.
import { defineCommand } from "citty";
import { ARGS, runCmd } from "../../lib/steps/cmd.ts";

export const run = defineCommand({
  meta: { name: "run", description: "replay a step suite against a model and score it" },
  args: ARGS.run,
  run: ({ args }) => runCmd(args),
});

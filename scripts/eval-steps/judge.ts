// `eval-steps judge`: grades an experiment's pairs with a judge model into the history file that
// `harvest --select judge-loss` reads. Exit 0 done (or no new pairs), 1 every judge call failed, 2
// usage, 3 a bad input file (pair store, key, history, rubric). Body: lib/steps/cmd.ts.
import { defineCommand } from "citty";
import { ARGS, judgeCmd } from "../../lib/steps/cmd.ts";

export const judge = defineCommand({
  meta: { name: "judge", description: "grade pairs with a judge model into the history file" },
  args: ARGS.judge,
  run: ({ args }) => judgeCmd(args),
});

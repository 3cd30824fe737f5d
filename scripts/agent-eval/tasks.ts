// agent-eval tasks check DIR...: Harbor task sanity (nop must fail, oracle must pass), with halo's
// edge (`error: <msg>`, exit 1). Flags and body: lib/suite/harbor/check.ts.
import { defineCommand } from "citty";
import { withEdge } from "../../lib/core/cli.ts";
import { SUITE_EDGE } from "../../lib/suite/cmd.ts";
import { CHECK_ARGS, checkCommand } from "../../lib/suite/harbor/check.ts";

const check = withEdge(
  defineCommand({
    meta: { name: "check", description: "Harbor task sanity: nop must fail and oracle must pass, per task" },
    args: CHECK_ARGS,
    run: ({ args }) => checkCommand(args),
  }),
  SUITE_EDGE,
);

export const tasks = defineCommand({
  meta: { name: "tasks", description: "Harbor task directories" },
  subCommands: { check },
});

// agent-eval lock | run | verdict | verify | plan | report: the promotion lane's entries. Each is a
// citty definition over lib/promotion/cmd.ts, with the lane's edge: one JSON object on stdout, also
// on failure, exit codes 0/2/3/4.
import { defineCommand } from "citty";
import { withEdge } from "../../lib/core/cli.ts";
import * as cmd from "../../lib/promotion/cmd.ts";
import type { SUITE_PLAN_ARGS } from "../../lib/suite/plan.ts";

const { ARGS, PROMOTION_EDGE } = cmd;
const meta = (name: keyof typeof cmd.ABOUT) => ({ name, description: cmd.ABOUT[name] });
// The suite lane's plan (its flags and the suite loader behind them) loads only for `plan`, not for
// every promotion subcommand.
const suitePlan = () => import("../../lib/suite/plan.ts");

export const lock = defineCommand({
  meta: meta("lock"),
  args: ARGS.lock,
  run: ({ args }) => cmd.lockCmd(args),
});
export const run = defineCommand({ meta: meta("run"), args: ARGS.run, run: ({ args }) => cmd.runCmd(args) });
export const verdict = defineCommand({
  meta: meta("verdict"),
  args: ARGS.verdict,
  run: ({ args }) => cmd.verdictCmd(args),
});
export const verify = defineCommand({
  meta: meta("verify"),
  args: ARGS.verify,
  run: ({ args }) => cmd.verifyCmd(args),
});
export const plan = defineCommand<typeof ARGS.plan & typeof SUITE_PLAN_ARGS>({
  meta: meta("plan"),
  args: () => suitePlan().then((m) => ({ ...ARGS.plan, ...m.SUITE_PLAN_ARGS })),
  // --suite or --scorecard: the suite lane's plan (tasks and repeats); else the promotion lane's (runs).
  run: async ({ args }) =>
    args.suite !== undefined || args.scorecard !== undefined
      ? (await suitePlan()).suitePlanCmd(args)
      : cmd.planCmd(args),
});
export const report = defineCommand({
  meta: meta("report"),
  args: ARGS.report,
  run: ({ args }) => cmd.reportCmd(args),
});

for (const c of [lock, run, verdict, verify, plan, report]) withEdge(c, PROMOTION_EDGE);

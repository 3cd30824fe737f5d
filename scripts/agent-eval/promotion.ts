// agent-eval lock | run | verdict | verify | plan | report: the promotion lane's entries. Each is a
// citty definition over lib/promotion/cmd.ts, with the lane's edge: one JSON object on stdout, also
// on failure, exit codes 0/2/3/4.
import { defineCommand } from "citty";
import { withEdge } from "../../lib/core/cli.ts";
import * as cmd from "../../lib/promotion/cmd.ts";

const { ARGS, PROMOTION_EDGE } = cmd;

export const lock = defineCommand({
  meta: { name: "lock", description: "record a task's and rubric's digests in lock.json (commit it)" },
  args: ARGS.lock,
  run: ({ args }) => cmd.lockCmd(args),
});

export const run = defineCommand({
  meta: {
    name: "run",
    description: "run both arms blind on a locked held-out task (needs IDD_EVAL_AGENT=1)",
  },
  args: ARGS.run,
  run: ({ args }) => cmd.runCmd(args),
});

export const verdict = defineCommand({
  meta: { name: "verdict", description: "decide once from the graders' scores" },
  args: ARGS.verdict,
  run: ({ args }) => cmd.verdictCmd(args),
});

export const verify = defineCommand({
  meta: {
    name: "verify",
    description: "check every file and provenance against the sealed manifest, the sealed key and seed",
  },
  args: ARGS.verify,
  run: ({ args }) => cmd.verifyCmd(args),
});

export const plan = defineCommand({
  meta: { name: "plan", description: "runs per arm needed for 80% power, before spending money" },
  args: ARGS.plan,
  run: ({ args }) => cmd.planCmd(args),
});

export const report = defineCommand({
  meta: { name: "report", description: "render a promotion run as one self-contained HTML file" },
  args: ARGS.report,
  run: ({ args }) => cmd.reportCmd(args),
});

for (const c of [lock, run, verdict, verify, plan, report]) withEdge(c, PROMOTION_EDGE);

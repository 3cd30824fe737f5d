#!/usr/bin/env bun
// agent-eval: the real-agent lanes. The promotion lane (lock, run, verdict, verify, plan) keeps
// agent_eval.py's contract: exit codes 0/2/3/4, never 1, one JSON object on stdout per subcommand.
// `suite` runs whole-task suites in Docker (`suite merge` joins its shards); `report` renders a
// promotion run as one HTML file; `compare` compares two suite scorecards.
// Each subcommand's citty definition lives in scripts/agent-eval/<area>.ts and is loaded lazily.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";

const promotion = () => import("./agent-eval/promotion.ts");

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({
  meta: { name: "agent-eval", version: VERSION, description: "promotion lane and whole-task suites" },
  subCommands: {
    lock: () => promotion().then((m) => m.lock),
    run: () => promotion().then((m) => m.run),
    verdict: () => promotion().then((m) => m.verdict),
    verify: () => promotion().then((m) => m.verify),
    plan: () => promotion().then((m) => m.plan),
    suite: () => import("./agent-eval/suite.ts").then((m) => m.suite),
    tasks: () => import("./agent-eval/tasks.ts").then((m) => m.tasks),
    report: () => promotion().then((m) => m.report),
    compare: () => import("./agent-eval/compare.ts").then((m) => m.compare),
  },
});

/** Runs agent-eval with `rawArgs` and returns its exit code (never 1: a bad command line is 2). */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, { usageExit: 2, remap: (e) => (e.exitCode === 1 ? 4 : undefined) });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

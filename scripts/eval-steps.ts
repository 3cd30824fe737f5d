#!/usr/bin/env bun
// eval-steps: step suites. `harvest` turns shadow-traffic pairs into redacted step cases (fail
// closed), `run` replays them against a model endpoint and scores them, `judge` grades pairs into
// the history file that `harvest --select judge-loss` reads, `merge` joins the scorecards of `run
// --shard K/N` into the whole suite's, `keygen` writes a new key for harvest's key files, `compare`
// sets two scorecards of one suite side by side. Subcommands live in scripts/eval-steps/.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({
  meta: { name: "eval-steps", version: VERSION, description: "harvest, replay, judge and merge step suites" },
  subCommands: {
    harvest: () => import("./eval-steps/harvest.ts").then((m) => m.harvest),
    run: () => import("./eval-steps/run.ts").then((m) => m.run),
    judge: () => import("./eval-steps/judge.ts").then((m) => m.judge),
    merge: () => import("./eval-steps/merge.ts").then((m) => m.merge),
    keygen: () => import("./eval-steps/keygen.ts").then((m) => m.keygen),
    compare: () => import("./eval-steps/compare.ts").then((m) => m.compare),
  },
});

/** Runs eval-steps with `rawArgs` and returns its exit code. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));

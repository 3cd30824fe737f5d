// `run-eval merge FILE...`: the --json results of a run's shards (run-eval --shard K/N --json) joined
// into the result one unsharded run writes: cases back in the whole run's order, counts and exit code
// recomputed from them, then published the way a run publishes (summary, --json, --junit, --report,
// $GITHUB_STEP_SUMMARY) and exiting as that run would (0, 1, 2 or a subject's code). Missing,
// duplicated or foreign shards are refused by core/shard-set.ts (exit 2); a shard's refused or
// isolation-failed cases are its cases like any other, so they are carried, never dropped.
import { resolve } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { loadJsonFile } from "../core/jsonl.ts";
import { assembleShards } from "../core/shard-set.ts";
import { checkReportPath } from "../report/index.ts";
import { aggregateExit } from "./many.ts";
import { publishResult } from "./publish.ts";
import { RunResult, resultOfCases } from "./result.ts";

/** `run-eval merge`'s flags: the files, and the outputs a run has. */
export const MERGE_ARGS = {
  files: {
    type: "positional",
    required: false,
    description: "each shard's run-eval --shard K/N --json output",
  },
  json: { type: "boolean", description: "print the merged result as JSON (schemas/run-result.schema.json)" },
  junit: { type: "string", description: "write the merged run's JUnit XML to FILE" },
  report: { type: "string", description: "write the merged run's HTML report to FILE" },
} as const satisfies ArgsDef;

/** Reads one run-eval --json result; unreadable or not the format: exit 2 (run-eval's "unusable"). */
export function loadRunResult(path: string): RunResult {
  return loadJsonFile(path, RunResult, "run result", 2);
}

/**
 * The unsharded result of a run's shards. Timings are the shards' own: each case keeps its own, the
 * run's durationMs is the longest shard's (the wall time when they ran side by side), -j the largest.
 */
export function mergeRuns(shards: ReadonlyArray<{ file: string; result: RunResult }>): RunResult {
  for (const { file, result } of shards)
    if (result.shard && result.shard.ids.length !== result.cases.length)
      throw new UsageError(
        `Cannot merge "${file}": shard lists ${result.shard.ids.length} ids for ${result.cases.length} cases`,
      );
  const order = assembleShards(shards.map(({ file, result }) => ({ file, stamp: result.shard, same: {} })));
  const cases = order.map(({ part, unit }) => shards[part]?.result.cases[unit] as RunResult["cases"][number]);
  const mechanisms = [...new Set(shards.map((s) => s.result.mechanism))];
  return resultOfCases(cases, {
    jobs: Math.max(...shards.map((s) => s.result.jobs)),
    mechanism: mechanisms.join("+"),
    durationMs: Math.max(...shards.map((s) => s.result.durationMs)),
    exitCode: aggregateExit(cases.map((c) => c.exitCode)),
  });
}

/** `run-eval merge`: merges and publishes; exits as the unsharded run would have. */
export function mergeCmd(args: ParsedArgs<typeof MERGE_ARGS>): number {
  const files = (args._ as string[]).filter((a) => a !== "");
  if (files.length === 0)
    throw new UsageError("run-eval merge needs the shards' --json files: run-eval merge FILE...");
  if (args.report) checkReportPath(resolve(args.report));
  const merged = mergeRuns(files.map((file) => ({ file, result: loadRunResult(file) })));
  publishResult(merged, { json: args.json, junit: args.junit, report: args.report, summary: true });
  return merged.exitCode;
}

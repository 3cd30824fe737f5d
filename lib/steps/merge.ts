// `eval-steps merge FILE...`: the scorecards of a step suite's shards (eval-steps run --shard K/N
// --scorecard FILE, or --output json) joined into the scorecard one unsharded run writes: every step
// back in suite order, the rates and their session-resampled intervals recomputed with the shards'
// seed over the whole set (a shard holds whole sessions, so no cluster was split), then published as
// run publishes. Refused, exit 2: a missing, duplicated or foreign shard (another suite, model, seed,
// judge, N, or a step the deal does not put there). A shard's errored calls are its results: carried.
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { loadJsonFile } from "../core/jsonl.ts";
import { assembleShards } from "../core/shard-set.ts";
import { type PublishTo, publishScorecard } from "./publish.ts";
import { buildStepScorecard, type StepResult, StepScorecard } from "./scorecard.ts";

const str = (description: string) => ({ type: "string", description }) as const;

/** `eval-steps merge`'s flags: the files, and the outputs a run has. */
export const MERGE_ARGS = {
  files: { type: "positional", required: false, description: "each shard's scorecard JSON" },
  output: str("text (default) or json"),
  scorecard: str("also write the merged scorecard JSON to FILE"),
  report: str("also write the merged HTML report to FILE"),
} as const satisfies ArgsDef;

/** Reads one scorecard JSON; a file that is not one is exit 3 (a bad input file). */
export function loadStepScorecard(path: string): StepScorecard {
  return loadJsonFile(path, StepScorecard, "scorecard");
}

/** The unsharded scorecard of a suite's shards; pure (same shards, same scorecard). */
export function mergeStepScorecards(
  shards: ReadonlyArray<{ file: string; scorecard: StepScorecard }>,
): StepScorecard {
  for (const { file, scorecard: sc } of shards) {
    const ids = sc.shard?.ids ?? [];
    const off = sc.results.findIndex((r, i) => r.id !== ids[i]);
    if (sc.shard && (off >= 0 || ids.length !== sc.results.length))
      throw new UsageError(`Cannot merge "${file}": its results are not the steps its shard field lists`);
  }
  const order = assembleShards(
    shards.map(({ file, scorecard: sc }) => ({
      file,
      stamp: sc.shard,
      groups: sc.results.map((r) => r.session),
      same: {
        suite: sc.suite,
        model: sc.model,
        seed: sc.seed,
        iterations: sc.iterations,
        judge: judgeOf(sc),
      },
    })),
  );
  const results = order.map(({ part, unit }) => shards[part]?.scorecard.results[unit] as StepResult);
  const first = shards[0]?.scorecard as StepScorecard;
  const judge = judgeOf(first);
  return buildStepScorecard(first.suite, first.model, results, {
    seed: first.seed,
    iterations: first.iterations,
    ...(judge ? { judge } : {}),
  });
}

/** The judge a scorecard was graded with (model and rubric digest), or null. */
function judgeOf(sc: StepScorecard): { model: string; rubric: string } | null {
  return sc.judge ? { model: sc.judge.model, rubric: sc.judge.rubric } : null;
}

/** `eval-steps merge`: merges and publishes; exit 0, 1 every call errored, 2 refused, 3 a bad file. */
export function mergeCmd(args: ParsedArgs<typeof MERGE_ARGS>, output: PublishTo["output"]): number {
  const files = (args._ as string[]).filter((a) => a !== "");
  if (files.length === 0)
    throw new UsageError("eval-steps merge needs the shards' scorecards: eval-steps merge FILE...");
  const merged = mergeStepScorecards(files.map((file) => ({ file, scorecard: loadStepScorecard(file) })));
  return publishScorecard(merged, {
    output,
    ...(args.scorecard ? { scorecard: args.scorecard } : {}),
    ...(args.report ? { report: args.report } : {}),
  });
}

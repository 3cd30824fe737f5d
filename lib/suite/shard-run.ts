// One shard's run (`agent-eval suite --shard K/N`): run.ts's runTrials over the shard's jobs, then the
// shard's own scorecard when its trials make one (every variant scored, each sharing a task with the
// control), marked with its K/N and the suite's digest. A small shard often cannot: that is no error,
// its trials file is the result and `suite merge` scores the whole run.
import { ConfigError } from "../core/errors.ts";
import { type Shard, shardLabel } from "../core/shard.ts";
import { runTrials, type SuiteRunOptions, scoreSuite } from "./run.ts";
import type { Scorecard, Trial } from "./scorecard/index.ts";
import { suiteDigest } from "./shard.ts";
import type { Suite } from "./suite.ts";

/** A shard's scorecard: the whole run's fields over the shard's trials, plus which shard of which suite. */
export type ShardScorecard = Scorecard & { shard: string; digest: string };

/** What a shard gives: its trials (job order), how many were resumed, its scorecard or why it has none. */
export interface ShardRun {
  trials: Trial[];
  resumed: number;
  scorecard?: ShardScorecard;
  unscored?: string;
}

/** Runs `shard` of `suite` (opts as runSuite's; `opts.shard` is set here). */
export async function runShard(suite: Suite, shard: Shard, opts: SuiteRunOptions): Promise<ShardRun> {
  const { trials, resumed } = await runTrials(suite, { ...opts, shard });
  const marks = { shard: shardLabel(shard), digest: suiteDigest(suite) };
  if (trials.length === 0) return { trials, resumed, unscored: "it has no trials" };
  try {
    return { trials, resumed, scorecard: { ...scoreSuite(suite, trials, opts), ...marks } };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { trials, resumed, unscored: error.message };
  }
}

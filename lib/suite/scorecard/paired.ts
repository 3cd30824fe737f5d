// One non-control variant paired by task with the control: the mean per-task difference in pass rate
// with its percentile bootstrap interval (for display, the original's fields), and the verdict from
// the exact sign-flip test over the same differences (verdict.ts) or, for a run that stopped when
// decided, from its confidence sequence (sequential.ts). Infrastructure failures are left out, as from
// every rate; other unscored trials count as the fails they are, and a control most of whose trials
// are unscored leaves the comparison without a verdict (evidence.ts).
import { ConfigError } from "../../core/errors.ts";
import { bootstrapMean, pairedDifferences } from "../../stats/index.ts";
import { evidenceOf } from "./evidence.ts";
import type { Comparison, Trial } from "./schema.ts";
import { type SequentialOptions, sequentialTest } from "./sequential.ts";
import { pairedTest, verdictFor } from "./verdict.ts";

/** Bootstrap settings of a scorecard, and the sequence's when the run stopped when decided. */
export interface PairedOptions {
  seed: number;
  iterations: number;
  sequential?: SequentialOptions;
}

/** The comparison of `variant` with `control`; ConfigError when they share no scored task. */
export function compareArms(
  variant: string,
  control: string,
  byVariant: ReadonlyMap<string, readonly Trial[]>,
  opts: PairedOptions,
): Comparison {
  const arm = (v: string) =>
    byVariant
      .get(v)!
      .filter((t) => t.infra === undefined)
      .map((t) => ({ cluster: t.task, value: t.pass ? 1 : 0 }));
  const c = arm(control);
  const v = arm(variant);
  const shared = new Set(c.map((o) => o.cluster));
  if (!v.some((o) => shared.has(o.cluster)))
    throw new ConfigError(`scorecard: variant "${variant}" shares no scored task with control "${control}"`);
  const { clusters, diffs } = pairedDifferences(c, v);
  const ci = bootstrapMean(diffs, { seed: opts.seed, iterations: opts.iterations });
  const test = opts.sequential
    ? sequentialTest(
        [...byVariant.get(control)!, ...byVariant.get(variant)!],
        control,
        variant,
        opts.sequential,
      )
    : pairedTest(diffs, opts.seed);
  return {
    variant,
    control,
    tasks: clusters.length,
    delta: ci.estimate,
    ciLo: ci.lo,
    ciHi: ci.hi,
    ...verdictFor({
      tasks: clusters.length,
      delta: ci.estimate,
      test,
      control: { name: control, evidence: evidenceOf(byVariant.get(control)!) },
    }),
    test,
  };
}

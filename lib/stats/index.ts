// The shared statistics part (architecture.md `stats`): a seeded PRNG, percentile bootstrap over
// items, clusters and pairs, the exact paired sign-flip test, an anytime-valid confidence sequence,
// the Wilson interval, pass@k / pass^k, nearest-rank quantiles, the median and a power helper. Pure
// functions, no I/O, runtime-neutral; used by the promotion verdict and by the task- and step-suite
// scorecards. Bad arguments throw RangeError (`Cannot <what>: <detail>`).
export type { Interval } from "./_check.ts";
export { wilson } from "./binomial.ts";
export {
  type BootstrapOptions,
  bootstrap,
  bootstrapMean,
  bootstrapRatio,
  clusterBootstrap,
  type Observation,
  type PairedComparison,
  pairedBootstrap,
  pairedDifferences,
  type Verdict,
  verdictOf,
} from "./bootstrap.ts";
export { normalCdf, normalQuantile } from "./normal.ts";
export { passAtK, passHatK, suitePassK, type TaskTally } from "./passk.ts";
export {
  minDetectableDifference,
  type PowerOptions,
  pairedDetectable,
  pairedSampleSize,
  powerTwoProportions,
  sampleSizeTwoProportions,
} from "./power.ts";
export { Rng, shuffle } from "./prng.ts";
export { median, quantile, quantiles } from "./quantile.ts";
export {
  confidenceSequence,
  PairedSequence,
  type SequenceDecision,
  type SequenceOptions,
  type SequenceState,
} from "./sequence.ts";
export {
  type Alternative,
  EXACT_MAX,
  minAttainableP,
  minUnits,
  type SignFlipOptions,
  type SignFlipResult,
  signFlipTest,
} from "./signflip.ts";

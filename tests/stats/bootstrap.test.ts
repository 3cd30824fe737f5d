// Percentile bootstrap: the original scorecard's index semantics (sorted stats, s[49] and s[1949] of
// 2000), determinism per seed, the degenerate cases, cluster and ratio forms that agree with each
// other, the paired comparison and its verdicts (the halo fixture: control 0, fixer 1 -> better).
import { describe, expect, test } from "bun:test";
import {
  bootstrap,
  bootstrapMean,
  bootstrapRatio,
  clusterBootstrap,
  type Observation,
  pairedBootstrap,
  quantile,
  Rng,
  verdictOf,
} from "../../lib/stats/index.ts";

const MIXED = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1];
const WALL = [120, 340, 95, 410, 220, 180, 305, 150, 275, 198];
const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const passRate = (pooled: readonly { pass: number }[]) =>
  pooled.reduce((s, t) => s + t.pass, 0) / pooled.length;

describe("bootstrapMean", () => {
  test("follows the original: B means over n draws, sorted, lo = s[49], hi = s[1949]", () => {
    const rng = new Rng(1);
    const means = Array.from({ length: 2000 }, () => {
      let total = 0;
      for (let i = 0; i < MIXED.length; i++) total += MIXED[rng.int(MIXED.length)]!;
      return total / MIXED.length;
    }).sort((a, b) => a - b);
    expect(bootstrapMean(MIXED)).toEqual({ estimate: meanOf(MIXED), lo: means[49]!, hi: means[1949]! });
  });

  test("same seed, same interval; different seeds differ; a running rng continues its stream", () => {
    const a = bootstrapMean(WALL, { seed: 7 });
    const b = bootstrapMean(WALL, { seed: 8 });
    const shared = new Rng(7);
    const first = bootstrapMean(WALL, { rng: shared });
    const second = bootstrapMean(WALL, { rng: shared });
    expect({
      same: bootstrapMean(WALL, { seed: 7 }),
      differ: a.lo !== b.lo || a.hi !== b.hi,
      first,
      continues: second.lo !== first.lo || second.hi !== first.hi,
    }).toEqual({ same: a, differ: true, first: a, continues: true });
  });

  const degenerate = [
    { name: "one item", values: [0.25], expected: { estimate: 0.25, lo: 0.25, hi: 0.25 } },
    { name: "all pass", values: [1, 1, 1, 1], expected: { estimate: 1, lo: 1, hi: 1 } },
    { name: "all fail", values: [0, 0, 0], expected: { estimate: 0, lo: 0, hi: 0 } },
  ];
  test.each(degenerate)("$name gives a degenerate interval", ({ values, expected }) => {
    expect(bootstrapMean(values)).toEqual(expected);
  });

  test("uses alpha and iterations (1 iteration: both bounds are that one resample)", () => {
    const one = bootstrapMean(MIXED, { iterations: 1 });
    const wide = bootstrapMean(MIXED, { alpha: 0.5 });
    const normal = bootstrapMean(MIXED);
    expect({ degenerate: one.lo === one.hi, narrower: wide.lo >= normal.lo && wide.hi <= normal.hi }).toEqual(
      {
        degenerate: true,
        narrower: true,
      },
    );
  });

  const bad = [
    { name: "no values", values: [], opts: {}, message: "no values" },
    { name: "a NaN value", values: [1, Number.NaN], opts: {}, message: "values[1] must be finite, got NaN" },
    {
      name: "an infinite value",
      values: [Number.POSITIVE_INFINITY],
      opts: {},
      message: "values[0] must be finite, got Infinity",
    },
    { name: "0 iterations", values: [1], opts: { iterations: 0 }, message: "iterations must be at least 1" },
    {
      name: "fractional iterations",
      values: [1],
      opts: { iterations: 2.5 },
      message: "iterations must be a count (integer >= 0), got 2.5",
    },
    { name: "alpha 0", values: [1], opts: { alpha: 0 }, message: "alpha must be in (0, 1), got 0" },
  ];
  test.each(bad)("refuses $name", ({ values, opts, message }) => {
    expect(() => bootstrapMean(values, opts)).toThrow(new RangeError(`Cannot bootstrap a mean: ${message}`));
  });
});

describe("bootstrap (any statistic over items)", () => {
  test("with the mean it draws exactly what bootstrapMean draws", () => {
    expect(bootstrap(MIXED, meanOf, { seed: 3 })).toEqual(bootstrapMean(MIXED, { seed: 3 }));
  });

  test("a median interval holds the estimate and is deterministic", () => {
    const median = (xs: readonly number[]) => quantile(xs, 0.5);
    const ci = bootstrap(WALL, median);
    expect({ holds: ci.lo <= ci.estimate && ci.estimate <= ci.hi, again: bootstrap(WALL, median) }).toEqual({
      holds: true,
      again: ci,
    });
  });

  test.each([
    { name: "no items", items: [] as number[], statistic: meanOf, message: "no items" },
    {
      name: "a NaN statistic",
      items: [1],
      statistic: () => Number.NaN,
      message: "the statistic gave NaN on resample 0",
    },
  ])("refuses $name", ({ items, statistic, message }) => {
    expect(() => bootstrap(items, statistic)).toThrow(
      new RangeError(`Cannot bootstrap a statistic: ${message}`),
    );
  });
});

describe("clusterBootstrap and bootstrapRatio", () => {
  // Five tasks with unequal trial counts: pooled pass rate = 9 / 14.
  const tasks = [
    [1, 1, 1],
    [0, 0],
    [1, 0, 1, 1],
    [1, 1],
    [0, 1, 0],
  ];
  const clusters = tasks.map((trials) => trials.map((pass) => ({ pass })));
  const ratios = tasks.map((trials) => ({ num: trials.reduce((s, x) => s + x, 0), den: trials.length }));

  test("the pooled pass rate by clusters equals the ratio of sums, draw for draw", () => {
    const pooled = clusterBootstrap(clusters, passRate, { seed: 5 });
    expect({ pooled, estimate: pooled.estimate }).toEqual({
      pooled: bootstrapRatio(ratios, { seed: 5 }),
      estimate: 9 / 14,
    });
  });

  test("one-item clusters reduce to the item bootstrap", () => {
    expect(
      clusterBootstrap(
        MIXED.map((x) => [x]),
        meanOf,
      ),
    ).toEqual(bootstrapMean(MIXED));
  });

  test("one cluster gives a degenerate interval", () => {
    expect(bootstrapRatio([{ num: 2, den: 3 }])).toEqual({ estimate: 2 / 3, lo: 2 / 3, hi: 2 / 3 });
  });

  test("clustered intervals are wider than trial intervals when trials within a task agree", () => {
    // 20 tasks, 5 trials each, every task all-pass or all-fail: the trials are not independent.
    const split = Array.from({ length: 20 }, (_, i) =>
      Array.from({ length: 5 }, (): number => (i % 2 === 0 ? 1 : 0)),
    );
    const byTask = bootstrapRatio(split.map((t) => ({ num: t.reduce((s, x) => s + x, 0), den: t.length })));
    const byTrial = bootstrapMean(split.flat());
    expect(byTask.hi - byTask.lo > 1.5 * (byTrial.hi - byTrial.lo)).toEqual(true);
  });

  test.each([
    { name: "no clusters", clusters: [], message: "no clusters" },
    {
      name: "a zero denominator",
      clusters: [{ num: 0, den: 0 }],
      message: "clusters[0].den must be > 0, got 0",
    },
    {
      name: "a NaN numerator",
      clusters: [{ num: Number.NaN, den: 1 }],
      message: "clusters[0].num must be finite, got NaN",
    },
    {
      name: "a negative denominator",
      clusters: [{ num: 1, den: -2 }],
      message: "clusters[0].den must be > 0, got -2",
    },
  ])("bootstrapRatio refuses $name", ({ clusters, message }) => {
    expect(() => bootstrapRatio(clusters)).toThrow(
      new RangeError(`Cannot bootstrap a ratio over clusters: ${message}`),
    );
  });

  test("clusterBootstrap refuses no clusters", () => {
    expect(() => clusterBootstrap([], passRate)).toThrow(
      new RangeError("Cannot bootstrap over clusters: no clusters"),
    );
  });
});

describe("pairedBootstrap", () => {
  const obs = (cluster: string, values: number[]): Observation[] =>
    values.map((value) => ({ cluster, value }));

  test("the halo fixture: one task, control 0 of 3, fixer 3 of 3 -> delta 1, better", () => {
    expect(pairedBootstrap(obs("fix-bug", [0, 0, 0]), obs("fix-bug", [1, 1, 1]))).toEqual({
      clusters: 1,
      estimate: 1,
      lo: 1,
      hi: 1,
      verdict: "better",
    });
  });

  test("pairs by cluster: only shared clusters, per-cluster means, sorted keys, then the mean bootstrap", () => {
    const control = [
      ...obs("b", [1, 0]),
      ...obs("a", [0, 0, 0]),
      ...obs("c", [1]),
      ...obs("only-control", [1]),
    ];
    const variant = [
      ...obs("a", [1, 1, 0]),
      ...obs("c", [1, 1]),
      ...obs("b", [1]),
      ...obs("only-variant", [0]),
    ];
    // Sorted shared keys a, b, c; diffs 2/3 - 0, 1 - 1/2, 1 - 1. All-zero resamples (1 in 27) put lo at 0.
    const diffs = [2 / 3, 0.5, 0];
    expect(pairedBootstrap(control, variant, { seed: 2 })).toEqual({
      clusters: 3,
      ...bootstrapMean(diffs, { seed: 2 }),
      verdict: "no_significant_difference",
    });
  });

  test("a regression across many tasks is worse; noise is no_significant_difference", () => {
    const keys = Array.from({ length: 12 }, (_, i) => `t${i}`);
    const control = keys.flatMap((k) => obs(k, [1, 1, 1]));
    const worse = keys.flatMap((k, i) => obs(k, i < 9 ? [0, 0, 1] : [1, 1, 1]));
    const noise = keys.flatMap((k, i) => obs(k, i % 3 === 0 ? [1, 1, 0] : [1, 1, 1]));
    const mixedControl = keys.flatMap((k, i) => obs(k, i % 4 === 0 ? [1, 0, 1] : [1, 1, 1]));
    expect([pairedBootstrap(control, worse).verdict, pairedBootstrap(mixedControl, noise).verdict]).toEqual([
      "worse",
      "no_significant_difference",
    ]);
  });

  test.each([
    {
      name: "no shared cluster",
      control: obs("a", [1]),
      variant: obs("b", [1]),
      message: "no cluster appears in both arms",
    },
    { name: "empty arms", control: [], variant: [], message: "no cluster appears in both arms" },
    {
      name: "a NaN value",
      control: obs("a", [Number.NaN]),
      variant: obs("a", [1]),
      message: "control[0].value must be finite, got NaN",
    },
  ])("refuses $name", ({ control, variant, message }) => {
    expect(() => pairedBootstrap(control, variant)).toThrow(
      new RangeError(`Cannot compare arms: ${message}`),
    );
  });
});

describe("verdictOf", () => {
  test.each([
    { lo: 0.1, hi: 0.5, expected: "better" },
    { lo: -0.5, hi: -0.1, expected: "worse" },
    { lo: -0.1, hi: 0.1, expected: "no_significant_difference" },
    { lo: 0, hi: 0.5, expected: "no_significant_difference" },
    { lo: -0.5, hi: 0, expected: "no_significant_difference" },
    { lo: 0, hi: 0, expected: "no_significant_difference" },
  ])("[$lo, $hi] is $expected", ({ lo, hi, expected }) => {
    expect(verdictOf({ lo, hi })).toEqual(expected as ReturnType<typeof verdictOf>);
  });
});

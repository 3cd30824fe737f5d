// Two-proportion power (Fleiss, no continuity correction) against python3 (tests/stats/reference.py)
// and the textbook figure: 50% vs 60% at alpha 0.05, power 0.8 needs 388 per arm (387.3 rounded up).
import { describe, expect, test } from "bun:test";
import {
  minDetectableDifference,
  powerTwoProportions,
  sampleSizeTwoProportions,
} from "../../lib/stats/index.ts";
import { rounded } from "./_round.ts";

describe("sampleSizeTwoProportions", () => {
  const cases = [
    { p1: 0.5, p2: 0.6, opts: {}, expected: 388 },
    { p1: 0.6, p2: 0.5, opts: {}, expected: 388 },
    { p1: 0.2, p2: 0.3, opts: { power: 0.9 }, expected: 392 },
    { p1: 0.7, p2: 0.5, opts: { alpha: 0.01 }, expected: 139 },
    { p1: 0.9, p2: 0.99, opts: {}, expected: 100 },
  ];
  test.each(cases)("$p1 vs $p2 $opts", ({ p1, p2, opts, expected }) => {
    expect(sampleSizeTwoProportions(p1, p2, opts)).toEqual(expected);
  });

  const bad = [
    { name: "equal rates", args: [0.5, 0.5], message: "p1 and p2 must differ" },
    { name: "rate above 1", args: [0.5, 1.2], message: "p2 must be in [0, 1], got 1.2" },
    { name: "NaN rate", args: [Number.NaN, 0.5], message: "p1 must be in [0, 1], got NaN" },
  ];
  test.each(bad)("refuses $name", ({ args, message }) => {
    expect(() => sampleSizeTwoProportions(args[0]!, args[1]!)).toThrow(
      new RangeError(`Cannot compute a sample size: ${message}`),
    );
  });

  test("refuses power 1", () => {
    expect(() => sampleSizeTwoProportions(0.5, 0.6, { power: 1 })).toThrow(
      new RangeError("Cannot compute a sample size: power must be in (0, 1), got 1"),
    );
  });
});

describe("powerTwoProportions", () => {
  const cases = [
    { p1: 0.5, p2: 0.6, n: 388, expected: 0.8007 },
    { p1: 0.2, p2: 0.3, n: 100, expected: 0.371 },
    { p1: 0, p2: 1, n: 3, expected: 1 },
  ];
  test.each(cases)("$p1 vs $p2 with $n per arm", ({ p1, p2, n, expected }) => {
    expect(rounded(powerTwoProportions(p1, p2, n), 4)).toEqual(expected);
  });

  test("refuses n 0", () => {
    expect(() => powerTwoProportions(0.5, 0.6, 0)).toThrow(
      new RangeError("Cannot compute power: n must be at least 1"),
    );
  });
});

describe("minDetectableDifference", () => {
  const cases = [
    { p1: 0.5, n: 388, expected: 0.0999 },
    { p1: 0.5, n: 40, expected: 0.2949 },
    { p1: 0.2, n: 100, expected: 0.1786 },
    { p1: 0.9, n: 10, expected: null },
    { p1: 1, n: 1000, expected: null },
  ];
  test.each(cases)("baseline $p1 with $n per arm", ({ p1, n, expected }) => {
    const d = minDetectableDifference(p1, n);
    expect(d === null ? null : rounded(d, 4)).toEqual(expected);
  });

  test("is consistent with the sample size it inverts", () => {
    const d = minDetectableDifference(0.3, 200)!;
    expect(sampleSizeTwoProportions(0.3, 0.3 + d)).toEqual(200);
  });
});

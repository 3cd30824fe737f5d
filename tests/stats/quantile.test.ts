// Nearest-rank quantiles exactly as the original scorecard's wall p50/p95: x[ceil(q*n)-1], clamped.
import { describe, expect, test } from "bun:test";
import { median, quantile, quantiles } from "../../lib/stats/index.ts";

const ONE_TO_TEN = [10, 3, 7, 1, 9, 2, 8, 4, 6, 5];

describe("quantile", () => {
  const cases = [
    { name: "1..10 p50 (the original's test)", values: ONE_TO_TEN, q: 0.5, expected: 5 },
    { name: "1..10 p95 (the original's test)", values: ONE_TO_TEN, q: 0.95, expected: 10 },
    { name: "1..10 p90", values: ONE_TO_TEN, q: 0.9, expected: 9 },
    { name: "1..10 p91 rounds up", values: ONE_TO_TEN, q: 0.91, expected: 10 },
    { name: "q 0 clamps to the minimum", values: ONE_TO_TEN, q: 0, expected: 1 },
    { name: "q 1 is the maximum", values: ONE_TO_TEN, q: 1, expected: 10 },
    { name: "one value", values: [42], q: 0.95, expected: 42 },
    { name: "two values p50", values: [200, 100], q: 0.5, expected: 100 },
    { name: "negatives sort numerically", values: [-1, -10, 2], q: 0.5, expected: -1 },
    { name: "empty gives 0", values: [], q: 0.5, expected: 0 },
  ];
  test.each(cases)("$name", ({ values, q, expected }) => {
    expect(quantile(values, q)).toEqual(expected);
  });

  test("does not reorder its input", () => {
    const input = [3, 1, 2];
    quantile(input, 0.5);
    expect(input).toEqual([3, 1, 2]);
  });

  const bad = [
    {
      name: "q above 1",
      values: [1],
      q: 1.5,
      message: "Cannot compute a quantile: q must be in [0, 1], got 1.5",
    },
    {
      name: "q negative",
      values: [1],
      q: -0.1,
      message: "Cannot compute a quantile: q must be in [0, 1], got -0.1",
    },
    {
      name: "q NaN",
      values: [1],
      q: Number.NaN,
      message: "Cannot compute a quantile: q must be in [0, 1], got NaN",
    },
    {
      name: "a NaN value",
      values: [1, Number.NaN],
      q: 0.5,
      message: "Cannot compute a quantile: values[1] must be finite, got NaN",
    },
  ];
  test.each(bad)("refuses $name", ({ values, q, message }) => {
    expect(() => quantile(values, q)).toThrow(new RangeError(message));
  });
});

describe("quantiles", () => {
  const cases: { values: number[]; qs: number[]; expected: number[] }[] = [
    { values: ONE_TO_TEN, qs: [0.5, 0.95], expected: [5, 10] },
    { values: [], qs: [0.5, 0.95], expected: [0, 0] },
  ];
  test.each(cases)("$values.length values at $qs", ({ values, qs, expected }) => {
    expect(quantiles(values, qs)).toEqual(expected);
  });
});

describe("median", () => {
  const cases = [
    { name: "1..10 averages the two middle values", values: ONE_TO_TEN, expected: 5.5 },
    { name: "an odd count is the middle value", values: [9, 1, 5], expected: 5 },
    { name: "one value", values: [42], expected: 42 },
    { name: "two values", values: [200, 100], expected: 150 },
    { name: "negatives sort numerically", values: [-1, -10, 2, 4], expected: 0.5 },
    { name: "empty gives 0", values: [], expected: 0 },
  ];
  test.each(cases)("$name", ({ values, expected }) => {
    expect(median(values)).toEqual(expected);
  });

  test("does not reorder its input", () => {
    const input = [3, 1, 2, 0];
    median(input);
    expect(input).toEqual([3, 1, 2, 0]);
  });

  test("refuses a NaN value", () => {
    expect(() => median([1, Number.NaN])).toThrow(
      new RangeError("Cannot compute a median: values[1] must be finite, got NaN"),
    );
  });
});

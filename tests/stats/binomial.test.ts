// The Wilson score interval against the published examples of Newcombe (1998, Stat Med 17:857,
// Table II, method 3) and the edges (0 of n, n of n); python3 agrees (tests/stats/reference.py).
import { describe, expect, test } from "bun:test";
import { wilson } from "../../lib/stats/index.ts";
import { rounded } from "./_round.ts";

describe("wilson", () => {
  const cases = [
    { successes: 81, trials: 263, expected: { estimate: 0.308, lo: 0.2553, hi: 0.3662 } },
    { successes: 15, trials: 148, expected: { estimate: 0.1014, lo: 0.0624, hi: 0.1605 } },
    { successes: 0, trials: 20, expected: { estimate: 0, lo: 0, hi: 0.1611 } },
    { successes: 1, trials: 29, expected: { estimate: 0.0345, lo: 0.0061, hi: 0.1718 } },
    { successes: 3, trials: 3, expected: { estimate: 1, lo: 0.4385, hi: 1 } },
  ];
  test.each(cases)("$successes of $trials", ({ successes, trials, expected }) => {
    expect(rounded(wilson(successes, trials), 4)).toEqual(expected);
  });

  test("all fail and all pass give exact 0 and 1 bounds", () => {
    expect([wilson(0, 7).lo, wilson(7, 7).hi]).toEqual([0, 1]);
  });

  test("a higher confidence gives a wider interval (99%: 81 of 263)", () => {
    expect(rounded(wilson(81, 263, 0.99), 4)).toEqual({ estimate: 0.308, lo: 0.2401, hi: 0.3853 });
  });

  const bad = [
    { name: "no trials", args: [0, 0, 0.95], message: "trials must be at least 1" },
    { name: "successes above trials", args: [4, 3, 0.95], message: "successes 4 exceed trials 3" },
    {
      name: "negative successes",
      args: [-1, 3, 0.95],
      message: "successes must be a count (integer >= 0), got -1",
    },
    {
      name: "fractional trials",
      args: [1, 2.5, 0.95],
      message: "trials must be a count (integer >= 0), got 2.5",
    },
    {
      name: "NaN successes",
      args: [Number.NaN, 3, 0.95],
      message: "successes must be a count (integer >= 0), got NaN",
    },
    { name: "confidence 1", args: [1, 3, 1], message: "confidence must be in (0, 1), got 1" },
  ];
  test.each(bad)("refuses $name", ({ args, message }) => {
    const [s, n, c] = args as [number, number, number];
    expect(() => wilson(s, n, c)).toThrow(new RangeError(`Cannot compute a Wilson interval: ${message}`));
  });
});

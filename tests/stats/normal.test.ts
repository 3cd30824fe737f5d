// The standard normal quantile (AS 241) and CDF against python3's statistics.NormalDist.
import { describe, expect, test } from "bun:test";
import { normalCdf, normalQuantile } from "../../lib/stats/index.ts";
import { rounded } from "./_round.ts";

describe("normalQuantile", () => {
  const cases = [
    { p: 0.5, expected: 0 },
    { p: 0.975, expected: 1.95996398454 },
    { p: 0.025, expected: -1.95996398454 },
    { p: 0.8, expected: 0.841621233573 },
    { p: 0.3, expected: -0.524400512708 },
    { p: 0.999, expected: 3.090232306168 },
    { p: 1e-10, expected: -6.361340902404 },
  ];
  test.each(cases)("p $p", ({ p, expected }) => {
    expect(rounded(normalQuantile(p))).toEqual(expected);
  });

  test.each([{ p: 0 }, { p: 1 }, { p: Number.NaN }])("refuses p $p", ({ p }) => {
    expect(() => normalQuantile(p)).toThrow(
      new RangeError(`Cannot compute a normal quantile: p must be in (0, 1), got ${p}`),
    );
  });
});

describe("normalCdf", () => {
  const cases = [
    { x: 0, expected: 0.5 },
    { x: 1.96, expected: 0.975002 },
    { x: -1, expected: 0.158655 },
    { x: 2.5, expected: 0.99379 },
    { x: -3, expected: 0.00135 },
  ];
  test.each(cases)("x $x", ({ x, expected }) => {
    expect(rounded(normalCdf(x), 6)).toEqual(expected);
  });

  test("refuses NaN", () => {
    expect(() => normalCdf(Number.NaN)).toThrow(
      new RangeError("Cannot compute the normal CDF: x must be finite, got NaN"),
    );
  });
});

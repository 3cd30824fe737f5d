// The exact paired sign-flip test against a brute-force count of all 2^n sign patterns (independent of
// the meet-in-the-middle enumeration), the shifted and one-sided forms, the seeded Monte Carlo above
// EXACT_MAX, the smallest attainable p and the fewest units, and the argument errors.
import { describe, expect, test } from "bun:test";
import { EXACT_MAX, minAttainableP, minUnits, Rng, signFlipTest } from "../../lib/stats/index.ts";

/** p by brute force: every sign pattern of the non-zero values, compared with a tolerance. */
function brute(diffs: number[], alternative: "two-sided" | "greater" | "less", shift = 0): number {
  const x = diffs.map((d) => d - shift).filter((d) => d !== 0);
  const t = x.reduce((a, b) => a + b, 0);
  const eps = 1e-9 * x.reduce((a, b) => a + Math.abs(b), 0);
  let hits = 0;
  for (let mask = 0; mask < 2 ** x.length; mask++) {
    let s = 0;
    x.forEach((v, i) => {
      s += (mask >> i) & 1 ? Math.abs(v) : -Math.abs(v);
    });
    const hit =
      alternative === "two-sided"
        ? Math.abs(s) >= Math.abs(t) - eps
        : alternative === "greater"
          ? s >= t - eps
          : s <= t + eps;
    if (hit) hits++;
  }
  return x.length === 0 ? 1 : hits / 2 ** x.length;
}

describe("signFlipTest", () => {
  const cases: { name: string; diffs: number[]; p: number }[] = [
    { name: "six tasks all -1: 2 of 64", diffs: [-1, -1, -1, -1, -1, -1], p: 2 / 64 },
    { name: "six identical: no sign to flip", diffs: [0, 0, 0, 0, 0, 0], p: 1 },
    { name: "five all +1: 2 of 32", diffs: [1, 1, 1, 1, 1], p: 2 / 32 },
    { name: "one against five", diffs: [1, 1, 1, 1, 1, -0.5], p: 4 / 64 },
    { name: "a tie with the observed sum counts", diffs: [0.5, 0.5, -1], p: 1 },
    {
      name: "thirds and halves: sums equal but for rounding count as ties",
      diffs: [1 / 3, 1 / 3, 1 / 3, -0.5, 0.5, 2 / 3, 1 / 6],
      p: 20 / 128,
    },
  ];
  test.each(cases)("$name", ({ diffs, p }) => {
    expect(signFlipTest(diffs).p).toEqual(p);
  });

  test("exact up to 20 non-zero values: every form matches brute force on random data", () => {
    const rng = new Rng(3);
    const rows: boolean[] = [];
    for (let k = 0; k < 30; k++) {
      const n = 1 + rng.int(14);
      const diffs = Array.from({ length: n }, () => (rng.int(7) - 3) / 3);
      const shift = k % 3 === 0 ? -0.1 : 0;
      for (const alternative of ["two-sided", "greater", "less"] as const) {
        const r = signFlipTest(diffs, { alternative, shift });
        rows.push(r.exact && Math.abs(r.p - brute(diffs, alternative, shift)) < 1e-12);
      }
    }
    expect(rows.every(Boolean)).toEqual(true);
  });

  test("the shift tests a margin: 6 flat tasks are no worse than -5 points (1/64 one-sided)", () => {
    expect(signFlipTest([0, 0, 0, 0, 0, 0], { alternative: "greater", shift: -0.05 })).toEqual({
      p: 1 / 64,
      n: 6,
      statistic: 0.3,
      exact: true,
    });
  });

  test("above EXACT_MAX: seeded Monte Carlo near the exact value, never 0, reproducible", () => {
    const diffs = Array.from({ length: 24 }, (_, i) => (i % 4 === 0 ? -1 : 1));
    const a = signFlipTest(diffs, { seed: 5 });
    const b = signFlipTest(diffs, { seed: 5 });
    const asExact = signFlipTest(diffs, { exactMax: 24 });
    expect({
      same: a.p === b.p,
      exact: [a.exact, a.draws, EXACT_MAX],
      close: Math.abs(a.p - asExact.p) < 0.002,
      positive: signFlipTest(Array(40).fill(1), { draws: 1000 }).p,
    }).toEqual({ same: true, exact: [false, 100_000, 20], close: true, positive: 1 / 1001 });
  });

  test("smallest p and fewest units", () => {
    expect([
      minAttainableP(5),
      minAttainableP(6),
      minAttainableP(6, "greater"),
      minUnits(0.05),
      minUnits(0.025, "greater"),
      minUnits(0.01),
    ]).toEqual([1 / 16, 1 / 32, 1 / 64, 6, 6, 8]);
  });

  const bad: { name: string; run: () => unknown; message: string }[] = [
    { name: "NaN", run: () => signFlipTest([1, Number.NaN]), message: "values[1] must be finite, got NaN" },
    {
      name: "alternative",
      run: () => signFlipTest([1], { alternative: "up" as "less" }),
      message: "alternative must be two-sided, greater or less, got up",
    },
    {
      name: "exactMax",
      run: () => signFlipTest([1], { exactMax: 40 }),
      message: "exactMax must be at most 30, got 40",
    },
    {
      name: "draws",
      run: () => signFlipTest(Array(25).fill(1), { draws: 0 }),
      message: "draws must be at least 1",
    },
  ];
  test.each(bad)("refused: $name", ({ run, message }) => {
    expect(run).toThrow(`Cannot run a sign-flip test: ${message}`);
  });
});

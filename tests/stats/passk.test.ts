// pass@k and pass^k against exact fractions (python3 fractions.Fraction, tests/stats/reference.py),
// the suite average with k = min(k, n) over tasks in sorted order, and the refusals.
import { describe, expect, test } from "bun:test";
import { passAtK, passHatK, suitePassK } from "../../lib/stats/index.ts";
import { rounded } from "./_round.ts";

describe("passAtK and passHatK", () => {
  const cases = [
    { n: 10, c: 3, k: 1, expected: { at: 0.3, hat: 0.3 } },
    { n: 10, c: 3, k: 2, expected: { at: 0.533333333333, hat: 0.066666666667 } },
    { n: 10, c: 3, k: 5, expected: { at: 0.916666666667, hat: 0 } },
    { n: 10, c: 7, k: 3, expected: { at: 0.991666666667, hat: 0.291666666667 } },
    { n: 5, c: 4, k: 2, expected: { at: 1, hat: 0.6 } },
    { n: 10, c: 0, k: 3, expected: { at: 0, hat: 0 } },
    { n: 10, c: 10, k: 3, expected: { at: 1, hat: 1 } },
    { n: 5, c: 2, k: 4, expected: { at: 1, hat: 0 } },
    { n: 3, c: 1, k: 3, expected: { at: 1, hat: 0 } },
    { n: 20, c: 7, k: 10, expected: { at: 0.998452012384, hat: 0 } },
    { n: 200, c: 37, k: 50, expected: { at: 0.999993491927, hat: 0 } },
    { n: 1, c: 1, k: 1, expected: { at: 1, hat: 1 } },
    { n: 1, c: 0, k: 1, expected: { at: 0, hat: 0 } },
  ];
  test.each(cases)("n $n, c $c, k $k", ({ n, c, k, expected }) => {
    expect(rounded({ at: passAtK(n, c, k), hat: passHatK(n, c, k) })).toEqual(expected);
  });

  test("pass^k is +0, never -0, when fewer than k passed", () => {
    expect(Object.is(passHatK(5, 1, 3), 0)).toEqual(true);
  });

  const bad = [
    { name: "k above n", n: 3, c: 1, k: 4, message: "k 4 exceeds n 3" },
    { name: "c above n", n: 3, c: 4, k: 1, message: "c 4 exceeds n 3" },
    { name: "k zero", n: 3, c: 1, k: 0, message: "k must be at least 1" },
    { name: "n zero", n: 0, c: 0, k: 1, message: "n must be at least 1" },
    { name: "negative c", n: 3, c: -1, k: 1, message: "c must be a count (integer >= 0), got -1" },
    { name: "NaN n", n: Number.NaN, c: 1, k: 1, message: "n must be a count (integer >= 0), got NaN" },
    { name: "fractional k", n: 3, c: 1, k: 1.5, message: "k must be a count (integer >= 0), got 1.5" },
  ];
  test.each(bad)("refuses $name", ({ n, c, k, message }) => {
    expect(
      [() => passAtK(n, c, k), () => passHatK(n, c, k)].map((f) => {
        try {
          f();
          return "no error";
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      }),
    ).toEqual([
      `RangeError: Cannot compute pass@k: ${message}`,
      `RangeError: Cannot compute pass^k: ${message}`,
    ]);
  });
});

describe("suitePassK", () => {
  test("averages per task with k = min(k, trials), whatever the input order", () => {
    const tasks = [
      { task: "b", trials: 3, passes: 2 },
      { task: "a", trials: 5, passes: 1 },
      { task: "c", trials: 2, passes: 2 },
    ];
    expect(rounded([suitePassK(tasks, 3), suitePassK([...tasks].reverse(), 3)])).toEqual([
      { passAtK: 0.866666666667, passHatK: 0.333333333333 },
      { passAtK: 0.866666666667, passHatK: 0.333333333333 },
    ]);
  });

  test("k 1 is the mean of per-task pass rates", () => {
    const tasks = [
      { task: "x", trials: 4, passes: 1 },
      { task: "y", trials: 2, passes: 2 },
    ];
    expect(suitePassK(tasks, 1)).toEqual({ passAtK: 0.625, passHatK: 0.625 });
  });

  const bad = [
    { name: "no tasks", tasks: [], k: 1, message: "Cannot compute suite pass@k: no tasks" },
    {
      name: "a duplicate task",
      tasks: [
        { task: "a", trials: 1, passes: 1 },
        { task: "a", trials: 1, passes: 0 },
      ],
      k: 1,
      message: 'Cannot compute suite pass@k: task "a" appears twice',
    },
    {
      name: "k zero",
      tasks: [{ task: "a", trials: 1, passes: 1 }],
      k: 0,
      message: "Cannot compute suite pass@k: k must be at least 1",
    },
    {
      name: "a task with no trials",
      tasks: [{ task: "a", trials: 0, passes: 0 }],
      k: 2,
      message: 'Cannot compute suite pass@k: task "a" has no trials',
    },
  ];
  test.each(bad)("refuses $name", ({ tasks, k, message }) => {
    expect(() => suitePassK(tasks, k)).toThrow(new RangeError(message));
  });
});

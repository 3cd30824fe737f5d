// The seeded generator: the stream matches an independent python3 rendering of xoshiro128** seeded
// by SplitMix64, is deterministic per seed, draws integers without bias, and shuffles as a permutation.
import { describe, expect, test } from "bun:test";
import { Rng, shuffle } from "../../lib/stats/index.ts";

function take(rng: Rng, count: number, draw: (r: Rng) => number): number[] {
  return Array.from({ length: count }, () => draw(rng));
}

describe("Rng stream", () => {
  // Expected values: tests/stats/reference.py (python3: xoshiro128** 1.1 over SplitMix64, same seeding).
  const cases = [
    { seed: 1 as number | bigint, expected: [1695105466, 1423115009, 634581793, 1068227753] },
    { seed: 0, expected: [3737715805, 2584255861, 2876756834, 3286328325] },
    { seed: -1, expected: [477689756, 2493998634, 555695776, 607808419] },
    { seed: (1n << 64n) - 1n, expected: [477689756, 2493998634, 555695776, 607808419] },
    { seed: 2n ** 53n + 1n, expected: [2847984117, 1422201160, 1575901717, 3460112957] },
  ];
  test.each(cases)("seed $seed gives the reference uint32s", ({ seed, expected }) => {
    expect(take(new Rng(seed), 4, (r) => r.nextUint32())).toEqual(expected);
  });

  test("the default seed is 1; same seed, same stream; different seeds differ", () => {
    const a = take(new Rng(), 50, (r) => r.next());
    expect({
      same: take(new Rng(1), 50, (r) => r.next()),
      differs: take(new Rng(2), 50, (r) => r.next()).some((x, i) => x !== a[i]),
    }).toEqual({ same: a, differs: true });
  });

  test("floats lie in [0, 1) and average near 1/2", () => {
    const xs = take(new Rng(7), 100_000, (r) => r.next());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect({ inRange: xs.every((x) => x >= 0 && x < 1), nearHalf: Math.abs(mean - 0.5) < 0.005 }).toEqual({
      inRange: true,
      nearHalf: true,
    });
  });
});

describe("Rng.int", () => {
  test("stays in range for small, awkward and 2^53 bounds", () => {
    const rng = new Rng(3);
    const bounds = [1, 2, 3, 7, 1000, 2 ** 31 + 1, 2 ** 32, 2 ** 32 + 5, 2 ** 53];
    const ok = bounds.map((n) =>
      take(rng, 2000, (r) => r.int(n)).every((x) => Number.isInteger(x) && x >= 0 && x < n),
    );
    expect(ok).toEqual(bounds.map(() => true));
  });

  test("has no modulo bias: n = 3 * 2^30 (modulo would favour the low third 2:1)", () => {
    const n = 3 * 2 ** 30;
    const xs = take(new Rng(11), 60_000, (r) => r.int(n));
    const thirds = [0, 1, 2].map((t) => xs.filter((x) => Math.floor(x / 2 ** 30) === t).length / xs.length);
    expect(thirds.map((f) => Math.abs(f - 1 / 3) < 0.01)).toEqual([true, true, true]);
  });

  test("each face of a die is about equally likely (chi-square, 5 df, p > 0.001)", () => {
    const counts = [0, 0, 0, 0, 0, 0];
    const rng = new Rng(5);
    for (let i = 0; i < 60_000; i++) counts[rng.int(6)]! += 1;
    const chi = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi < 20.52).toEqual(true);
  });

  const bad = [
    { name: "zero", n: 0 },
    { name: "negative", n: -3 },
    { name: "fraction", n: 2.5 },
    { name: "NaN", n: Number.NaN },
    { name: "above 2^53", n: 2 ** 53 + 2 },
  ];
  test.each(bad)("refuses n $name", ({ n }) => {
    expect(() => new Rng(1).int(n)).toThrow(RangeError);
  });

  test.each([{ seed: 1.5 }, { seed: Number.NaN }, { seed: 2 ** 60 }])("refuses seed $seed", ({ seed }) => {
    expect(() => new Rng(seed)).toThrow("Cannot seed Rng: seed must be an integer");
  });
});

describe("shuffle", () => {
  test("returns a permutation, leaves the input alone, and is deterministic per seed", () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const a = shuffle(items, new Rng(9));
    expect({
      input: items,
      sorted: [...a].sort((x, y) => x - y),
      moved: a.some((x, i) => x !== i),
      again: shuffle(items, new Rng(9)),
    }).toEqual({ input: Array.from({ length: 20 }, (_, i) => i), sorted: items, moved: true, again: a });
  });

  test("every ordering of 3 items is about equally likely", () => {
    const rng = new Rng(4);
    const counts = new Map<string, number>();
    for (let i = 0; i < 60_000; i++) {
      const key = shuffle(["a", "b", "c"], rng).join("");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const fair = [...counts.values()].every((c) => Math.abs(c - 10_000) < 400);
    expect({ orderings: counts.size, fair }).toEqual({ orderings: 6, fair: true });
  });

  test.each([{ items: [] as string[] }, { items: ["x"] as string[] }])(
    "handles $items.length items",
    ({ items }) => {
      expect(shuffle(items, new Rng(1))).toEqual(items);
    },
  );
});

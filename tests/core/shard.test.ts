// The shard primitive (lib/core/shard.ts): K/N parsed strictly (K 0-based), the deal balanced (sizes
// differ by at most one unit, or one group's worth), deterministic under any permutation of the input,
// groups never split, and every unit in exactly one shard.
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../lib/core/errors.ts";
import { dealGroups, parseShard, selectShard, shardLabel, splitShards } from "../../lib/core/shard.ts";

describe("parseShard", () => {
  test.each([
    { text: "0/1", want: { index: 0, count: 1 } },
    { text: "0/4", want: { index: 0, count: 4 } },
    { text: "3/4", want: { index: 3, count: 4 } },
    { text: "12/100", want: { index: 12, count: 100 } },
  ])("$text", ({ text, want }) => {
    expect({ shard: parseShard(text), label: shardLabel(parseShard(text)) }).toEqual({
      shard: want,
      label: text,
    });
  });

  test.each([
    "4/4",
    "5/4",
    "-1/4",
    "1/0",
    "0/0",
    "1",
    "1/",
    "/4",
    " 1/4",
    "1/4 ",
    "01/4",
    "1/04",
    "a/b",
    "1.0/4",
    "1/4/5",
    "",
  ])("refuses %p with one line", (text) => {
    const e = (() => {
      try {
        parseShard(text);
      } catch (caught) {
        return caught;
      }
    })();
    expect(e).toBeInstanceOf(UsageError);
    expect({ exit: (e as UsageError).exitCode, message: (e as UsageError).message }).toEqual({
      exit: 2,
      message: `Cannot use --shard ${JSON.stringify(text)}: expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)`,
    });
  });
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `case-${String(i).padStart(3, "0")}`);
/** A seeded permutation (xorshift), so the test is the same every run. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
const id = (s: string) => s;
const sorted = (xs: string[][]) => xs.map((x) => [...x].sort());

describe("splitShards", () => {
  test.each([
    { units: 50, count: 4 },
    { units: 7, count: 3 },
    { units: 3, count: 5 },
    { units: 1000, count: 16 },
    { units: 0, count: 2 },
  ])("$units units over $count shards: balanced, complete, order-free", ({ units, count }) => {
    const all = ids(units);
    const shards = splitShards(all, count, id);
    const sizes = shards.map((s) => s.length);
    expect({
      spread: Math.max(...sizes) - Math.min(...sizes) <= 1,
      total: sizes.reduce((a, b) => a + b, 0),
      covered: shards.flat().sort(),
      inputOrderKept: shards.map((s) => s.join()),
      permuted: [1, 2, 3].map((seed) => sorted(splitShards(shuffled(all, seed), count, id))),
    }).toEqual({
      spread: true,
      total: units,
      covered: all,
      inputOrderKept: shards.map((s) => all.filter((u) => s.includes(u)).join()),
      permuted: [1, 2, 3].map(() => sorted(shards)),
    });
  });

  test("the deal is pinned to the ids' digests (a change would re-deal every user's shards)", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `case-${i}`);
    expect({ abcd: splitShards(["a", "b", "c", "d"], 2, id), ten: splitShards(ten, 3, id) }).toEqual({
      abcd: [
        ["b", "d"],
        ["a", "c"],
      ],
      ten: [
        ["case-1", "case-3", "case-7", "case-8"],
        ["case-0", "case-2", "case-9"],
        ["case-4", "case-5", "case-6"],
      ],
    });
  });

  test("groups stay whole and the load stays within one group of balanced", () => {
    const units = Array.from({ length: 120 }, (_, i) => ({
      id: `s${i % 17}/step${i}`,
      session: `s${i % 17}`,
    }));
    const shards = splitShards(
      units,
      4,
      (u) => u.id,
      (u) => u.session,
    );
    const home = new Map<string, Set<number>>();
    shards.forEach((s, k) => {
      for (const u of s) home.set(u.session, (home.get(u.session) ?? new Set()).add(k));
    });
    const sizes = shards.map((s) => s.length);
    const biggest = Math.max(
      ...[...new Set(units.map((u) => u.session))].map((g) => units.filter((u) => u.session === g).length),
    );
    expect({
      split: [...home.values()].filter((s) => s.size > 1).length,
      sessions: home.size,
      spreadWithinGroup: Math.max(...sizes) - Math.min(...sizes) <= biggest,
      permuted: sorted(
        splitShards(
          shuffled(units, 9),
          4,
          (u) => u.id,
          (u) => u.session,
        ).map((s) => s.map((u) => u.id)),
      ),
    }).toEqual({
      split: 0,
      sessions: 17,
      spreadWithinGroup: true,
      permuted: sorted(shards.map((s) => s.map((u) => u.id))),
    });
  });

  test("selectShard equals the matching slot of splitShards; dealGroups ignores map order", () => {
    const all = ids(30);
    const a = new Map(all.map((k, i) => [k, (i % 4) + 1]));
    const b = new Map([...a.entries()].reverse());
    expect({
      select: [0, 1, 2].map((index) => selectShard(all, { index, count: 3 }, id)),
      deal: [...dealGroups(b, 5).entries()].sort(),
    }).toEqual({ select: splitShards(all, 3, id), deal: [...dealGroups(a, 5).entries()].sort() });
  });
});

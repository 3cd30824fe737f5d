// The shard primitive (lib/core/shard.ts): K/N parsed strictly (K 0-based), the deal balanced (sizes
// differ by at most one unit, or one group's worth), deterministic under any permutation of the input,
// groups never split, every unit in exactly one shard; and shard-set: a set of stamped parts is
// checked to be one whole run (every refusal, one line, exit 2).
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../lib/core/errors.ts";
import { dealGroups, parseShard, selectShard, shardLabel, splitShards } from "../../lib/core/shard.ts";
import { assembleShards, type ShardPart, type ShardStamp, stampShard } from "../../lib/core/shard-set.ts";
import { refusal } from "../support/shard-parts.ts";

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

/** A run of `n` units split `count` ways, each part as a lane would hand it to assembleShards. */
function partsOf(n: number, count: number, same: Record<string, unknown> = {}): ShardPart[] {
  const all = ids(n);
  return Array.from({ length: count }, (_, index) => ({
    file: `p${index}`,
    stamp: stampShard(all, { index, count }, id).stamp,
    same,
  }));
}
const withStamp = (p: ShardPart, edit: (s: ShardStamp) => void): ShardPart => {
  const stamp = structuredClone(p.stamp as ShardStamp);
  edit(stamp);
  return { ...p, stamp };
};

describe("stampShard and assembleShards", () => {
  test("the parts of a run put back together give every unit its place, in any file order", () => {
    const parts = partsOf(23, 4);
    const order = assembleShards([...parts].reverse());
    const whole = order.map(({ part, unit }) => [...parts].reverse()[part]?.stamp?.ids[unit]);
    expect({ whole, positions: parts.map((p) => p.stamp?.at.length) }).toEqual({
      whole: ids(23),
      positions: splitShards(ids(23), 4, id).map((s) => s.length),
    });
  });

  const [p0, p1, p2] = partsOf(9, 3) as [ShardPart, ShardPart, ShardPart];
  test.each<{ name: string; parts: ShardPart[]; message: string }>([
    { name: "no parts", parts: [], message: "Cannot merge: no shard files given" },
    {
      name: "no stamp",
      parts: [{ ...p0, stamp: undefined }],
      message: 'Cannot merge "p0": not a shard (no shard field: was it run with --shard K/N?)',
    },
    {
      name: "positions and ids of different lengths",
      parts: [withStamp(p0, (s) => s.at.pop()), p1, p2],
      message: `Cannot merge "p0": shard.at has ${(p0.stamp?.at.length ?? 0) - 1} positions for ${p0.stamp?.ids.length} ids`,
    },
    {
      name: "groups of another length",
      parts: [{ ...p0, groups: [] }, p1, p2],
      message: `Cannot merge "p0": shard.at has ${p0.stamp?.at.length} positions for ${p0.stamp?.ids.length} ids`,
    },
    {
      name: "another setting",
      parts: [{ ...p0, same: { seed: 1 } }, { ...p1, same: { seed: 2 } }, p2],
      message: 'Cannot merge "p1": seed 2 differs from "p0"\'s 1',
    },
    {
      name: "another total",
      parts: [p0, withStamp(p1, (s) => Object.assign(s, { total: 10 })), p2],
      message: 'Cannot merge "p1": another case set than "p0" (shard.set differs)',
    },
    {
      name: "a position past the end",
      parts: [withStamp(p0, (s) => s.at.splice(0, 1, 9)), p1, p2],
      message: `Cannot merge "p0": unit "${p0.stamp?.ids[0]}" at position 9 of 9`,
    },
    {
      name: "a position taken twice",
      parts: [p0, withStamp(p1, (s) => s.at.splice(0, 1, p0.stamp?.at[0] ?? 0)), p2],
      message: `Cannot merge "p1": unit "${p1.stamp?.ids[0]}" also in "p0" (position ${p0.stamp?.at[0]})`,
    },
    {
      name: "a position in no part",
      parts: [
        withStamp(p0, (s) => {
          s.ids.pop();
          s.at.pop();
        }),
        p1,
        p2,
      ],
      message: `Cannot merge: position ${p0.stamp?.at.at(-1)} of 9 is in no shard file`,
    },
    {
      name: "a unit renamed (the set digest no longer holds)",
      parts: [withStamp(p0, (s) => s.ids.splice(0, 1, "case-999")), p1, p2],
      message: "Cannot merge: the shards' units are not the set they were dealt from (shard.set)",
    },
  ])("refused: $name (exit 2)", ({ parts, message }) => {
    expect(refusal(() => assembleShards(parts))).toEqual({ exit: 2, message });
  });
});

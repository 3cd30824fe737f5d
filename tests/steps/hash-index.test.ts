// HashIndex (lib/steps/harvest-spill.ts): harvest's map from 53-bit case-name hashes to row indices.
// Keys that share their low 32 bits land in the same slot and must probe past each other; the table
// must keep every entry across its growth; a missing key is undefined, never a neighbour's value.
import { describe, expect, test } from "bun:test";
import { HashIndex } from "../../lib/steps/harvest-spill.ts";

const TWO32 = 4294967296;

describe("HashIndex", () => {
  const cases: Array<{ name: string; keys: number[]; absent: number[] }> = [
    { name: "key 0 and row index 0", keys: [0], absent: [1, TWO32] },
    {
      name: "same low 32 bits, different high bits",
      keys: [7, TWO32 + 7, 2 * TWO32 + 7],
      absent: [3 * TWO32 + 7],
    },
    { name: "largest 53-bit key", keys: [2 ** 53 - 1, 2 ** 53 - 2], absent: [2 ** 53 - 3] },
    {
      name: "5,000 keys (grows past its first 1,024 slots several times)",
      keys: Array.from({ length: 5000 }, (_, i) => (i % 7) * TWO32 + i * 1024),
      absent: [5000 * 1024, TWO32 * 8],
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      const index = new HashIndex();
      c.keys.forEach((k, i) => {
        index.add(k, i);
      });
      expect(c.keys.map((k) => index.get(k))).toEqual(c.keys.map((_, i) => i));
      expect(c.absent.map((k) => index.get(k))).toEqual(c.absent.map(() => undefined));
    });
});

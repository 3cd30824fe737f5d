// The shard primitive every lane splits its work with: `--shard K/N` parsed (K 0-based, as a
// Kubernetes Indexed Job's $JOB_COMPLETION_INDEX or a CI matrix index gives it) and the deal of units
// to shards. The deal depends only on the units' stable ids (and group sizes), never on input order
// or time: groups are ordered by size (largest first), then by the SHA-256 of their key, and each goes
// to the least-loaded shard (lowest index on a tie). With groups of one this is a round-robin over the
// hash order, so shard sizes differ by at most one; a grouping key (a session) keeps units together.
import { UsageError } from "./errors.ts";
import { sha256Hex } from "./hash.ts";

/** One shard of a split run: `index` in [0, count). */
export interface Shard {
  index: number;
  count: number;
}

const SHAPE = /^(0|[1-9]\d{0,5})\/([1-9]\d{0,5})$/;

/** Reads `K/N` (0 <= K < N, decimal, no spaces); anything else is a UsageError naming the flag. */
export function parseShard(text: string, flag = "--shard"): Shard {
  const m = SHAPE.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || index >= count) {
    throw new UsageError(
      `Cannot use ${flag} ${JSON.stringify(text)}: expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)`,
    );
  }
  return { index, count };
}

/** The `K/N` text of a shard (what outputs record and parseShard reads back). */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The shard (0-based) of every group key: `sizes` maps each key to its number of units. Deterministic
 * in the keys and sizes alone; a Map iterated in any order gives the same answer.
 */
export function dealGroups(sizes: ReadonlyMap<string, number>, count: number): Map<string, number> {
  const order = [...sizes.keys()]
    .map((key) => ({ key, size: sizes.get(key) ?? 0, hash: sha256Hex(key) }))
    .sort(
      (a, b) =>
        b.size - a.size ||
        (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0) ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
  const load = new Float64Array(count);
  const placed = new Map<string, number>();
  for (const g of order) {
    let best = 0;
    for (let i = 1; i < count; i++) if ((load[i] ?? 0) < (load[best] ?? 0)) best = i;
    load[best] = (load[best] ?? 0) + g.size;
    placed.set(g.key, best);
  }
  return placed;
}

/**
 * The units of `shard`, in their input order (so a shard's outputs read like the whole run's).
 * `idOf` gives each unit's stable id; `groupOf` (default: the id) a key whose units stay together.
 */
export function selectShard<T>(
  units: readonly T[],
  shard: Shard,
  idOf: (unit: T) => string,
  groupOf: (unit: T) => string = idOf,
): T[] {
  const sizes = new Map<string, number>();
  for (const u of units) {
    const g = groupOf(u);
    sizes.set(g, (sizes.get(g) ?? 0) + 1);
  }
  const placed = dealGroups(sizes, shard.count);
  return units.filter((u) => placed.get(groupOf(u)) === shard.index);
}

/** Every shard's units at once (index = shard), each in input order: for planning and tests. */
export function splitShards<T>(
  units: readonly T[],
  count: number,
  idOf: (unit: T) => string,
  groupOf: (unit: T) => string = idOf,
): T[][] {
  return Array.from({ length: count }, (_, index) => selectShard(units, { index, count }, idOf, groupOf));
}

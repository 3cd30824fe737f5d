// What a shard records about itself (ShardStamp: K/N, the whole run's unit count and id digest, where
// each of its units sits in the whole run) and the check that a set of shard outputs is exactly one
// whole run: every K of N once, one case set, the same run settings, each unit where the deal puts
// it. A lane's merge (run-eval, eval-steps) reads its files, calls assembleShards, and rebuilds the
// unsharded output from the units in their whole-run order. Refusals are one line, exit 2.
import { z } from "zod";
import { UsageError } from "./errors.ts";
import { sha256Hex } from "./hash.ts";
import { dealGroups, type Shard, selectShard, shardLabel } from "./shard.ts";

/** The `shard` field of a sharded output (absent from an unsharded one, which stays as it was). */
export const ShardStamp = z.strictObject({
  index: z.number().int().min(0).describe("K: this shard, 0-based"),
  count: z.number().int().min(1).describe("N: how many shards the run was split into"),
  total: z.number().int().min(0).describe("units in the whole run"),
  set: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .describe("sha256 of the whole run's sorted `id<TAB>group` lines: the same case set"),
  ids: z.array(z.string()).describe("this shard's units' stable ids (what the deal read), in output order"),
  at: z.array(z.number().int().min(0)).describe("each unit's position in the whole run, in output order"),
});
export type ShardStamp = z.infer<typeof ShardStamp>;

/** The digest of a whole run's units (order-free). */
function setDigest(units: ReadonlyArray<{ id: string; group: string }>): string {
  const lines = units.map((u) => `${u.id}\t${u.group}`).sort();
  return `sha256:${sha256Hex(lines.join("\n"))}`;
}

/** The units of `shard` (input order) and the stamp its outputs carry. */
export function stampShard<T>(
  units: readonly T[],
  shard: Shard,
  idOf: (unit: T) => string,
  groupOf: (unit: T) => string = idOf,
): { units: T[]; stamp: ShardStamp } {
  const position = new Map(units.map((u, i) => [u, i]));
  const mine = selectShard(units, shard, idOf, groupOf);
  const set = setDigest(units.map((u) => ({ id: idOf(u), group: groupOf(u) })));
  const at = mine.map((u) => position.get(u) ?? -1);
  const ids = mine.map(idOf);
  return {
    units: mine,
    stamp: { index: shard.index, count: shard.count, total: units.length, set, ids, at },
  };
}

/** One shard output as a lane read it: its file, stamp, its units' groups (default: ids), settings. */
export interface ShardPart {
  file: string;
  stamp: ShardStamp | undefined;
  groups?: readonly string[];
  /** Settings every shard of one run shares (seed, suite, model...): compared by JSON text. */
  same: Record<string, unknown>;
}

/** Where each whole-run position's unit is: which part, which unit of it. */
export type WholeOrder = Array<{ part: number; unit: number }>;

const refuse = (file: string, why: string) => new UsageError(`Cannot merge "${file}": ${why}`);

/**
 * Checks that `parts` are the N shards of one run and returns the whole run's unit order. Refused
 * (UsageError, exit 2, one line naming the file): not a shard, K out of range, another N, another
 * setting or case set, a K given twice, a K missing, a unit the deal does not put in that shard.
 */
export function assembleShards(parts: readonly ShardPart[]): WholeOrder {
  if (parts.length === 0) throw new UsageError("Cannot merge: no shard files given");
  const first = parts[0] as ShardPart;
  const byIndex = new Map<number, ShardPart>();
  for (const p of parts) {
    const s = p.stamp;
    if (!s) throw refuse(p.file, "not a shard (no shard field: was it run with --shard K/N?)");
    const label = shardLabel(s);
    if (s.index >= s.count) throw refuse(p.file, `shard ${label} is out of range (K must be below N)`);
    if (s.at.length !== s.ids.length || (p.groups && p.groups.length !== s.ids.length))
      throw refuse(p.file, `shard.at has ${s.at.length} positions for ${s.ids.length} ids`);
    const f = first.stamp as ShardStamp;
    if (s.count !== f.count) throw refuse(p.file, `shard ${label}, but "${first.file}" is of ${f.count}`);
    for (const [key, value] of Object.entries(p.same)) {
      const want = JSON.stringify(first.same[key]);
      if (JSON.stringify(value) !== want)
        throw refuse(p.file, `${key} ${JSON.stringify(value)} differs from "${first.file}"'s ${want}`);
    }
    if (s.set !== f.set || s.total !== f.total)
      throw refuse(p.file, `another case set than "${first.file}" (shard.set differs)`);
    const twin = byIndex.get(s.index);
    if (twin) throw refuse(p.file, `shard ${label} given twice (also "${twin.file}")`);
    byIndex.set(s.index, p);
  }
  const { count, total, set } = first.stamp as ShardStamp;
  for (let k = 0; k < count; k++)
    if (!byIndex.has(k))
      throw new UsageError(
        `Cannot merge: shard ${k}/${count} is missing (given: ${parts.map((p) => p.file).join(", ")})`,
      );
  return placeUnits(parts, count, total, set);
}

/** Puts every unit at its position and checks the union is the stamped set, dealt as stamped. */
function placeUnits(parts: readonly ShardPart[], count: number, total: number, set: string): WholeOrder {
  const order = new Array<{ part: number; unit: number } | undefined>(total).fill(undefined);
  parts.forEach((p, part) => {
    (p.stamp as ShardStamp).at.forEach((at, unit) => {
      const id = (p.stamp as ShardStamp).ids[unit];
      if (at >= total) throw refuse(p.file, `unit "${id}" at position ${at} of ${total}`);
      const there = order[at];
      if (there) throw refuse(p.file, `unit "${id}" also in "${parts[there.part]?.file}" (position ${at})`);
      order[at] = { part, unit };
    });
  });
  const whole = order.map((o, at) => {
    if (!o) throw new UsageError(`Cannot merge: position ${at} of ${total} is in no shard file`);
    const p = parts[o.part] as ShardPart;
    const id = (p.stamp as ShardStamp).ids[o.unit] ?? "";
    return { id, group: p.groups?.[o.unit] ?? id, index: (p.stamp as ShardStamp).index, file: p.file };
  });
  if (setDigest(whole) !== set)
    throw new UsageError("Cannot merge: the shards' units are not the set they were dealt from (shard.set)");
  // One deal over the whole set (as each shard made it), then every unit must sit where it was dealt.
  const sizes = new Map<string, number>();
  for (const u of whole) sizes.set(u.group, (sizes.get(u.group) ?? 0) + 1);
  const dealt = dealGroups(sizes, count);
  const wrong = whole.find((u) => dealt.get(u.group) !== u.index);
  if (wrong) throw refuse(wrong.file, `unit "${wrong.id}" is not dealt to shard ${wrong.index}/${count}`);
  return order as WholeOrder;
}

// The formats a promotion run writes (agent_eval.py, reference §5.3-5.5): the sealed key, the
// sealed order, provenance.json (gi-receipt field names) and the graders' scores. One zod schema
// each, loose where the original was loose (extra provenance fields are kept, so a run written by
// either tool verifies under the other), strict where a grader types: scores. Loading refuses a bad
// shape with one ConfigError line (exit 3), never a stack.
import { z } from "zod";
import { pyJsonDumps } from "../compat/py/json.ts";
import { PyFloat } from "../compat/py/value.ts";
import { writeFileAtomic } from "../core/fsx.ts";
import { parseFile } from "./_load.ts";

/** 1980-01-01T00:00:00Z: the one mtime every staged entry, blind/ and checks/ carry. */
export const FIXED_MTIME = 315532800;

export const ARMS = ["baseline", "candidate"] as const;
export type ArmName = (typeof ARMS)[number];

const exitValue = z.union([z.number().int(), z.literal("timeout")]);

/** One run in sealed/key.json, keyed by its blind id. */
export const KeyRecord = z.looseObject({
  arm: z.enum(ARMS),
  index: z.number().int().min(1),
  raw: z.string(),
  exit: exitValue,
  duration_s: z.number(),
  checks_passed: z.boolean(),
  leak: z.boolean(),
  leak_reasons: z.array(z.string()),
  skipped: z.array(z.string()).default([]),
});
export type KeyRecord = z.infer<typeof KeyRecord>;
export const SealedKey = z.record(z.string().regex(/^[0-9a-f]{8}$/), KeyRecord);
export type SealedKey = z.infer<typeof SealedKey>;

/** sealed/order.json: the seed, the blind ids in run order, and the commitment's nonce. */
export const SealedOrder = z.looseObject({
  seed: z.number().int().min(0),
  order: z.array(z.string()),
  nonce: z.string().regex(/^[0-9a-f]{32}$/),
});
export type SealedOrder = z.infer<typeof SealedOrder>;

const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);

/** sealed/manifest.json (ours): every file of the run directory and provenance's digest, under an HMAC (manifest.ts). */
export const SealedManifest = z
  .object({
    version: z.literal(1),
    mac_alg: z.literal("HMAC-SHA256"),
    key: z.literal("HKDF-SHA256(sealed/order.json nonce:seed)"),
    files: z.array(z.object({ path: z.string(), sha256: HEX64, bytes: z.number().int().min(0) }).strict()),
    provenance_sha256: HEX64,
    mac: HEX64,
  })
  .strict();
export type SealedManifest = z.infer<typeof SealedManifest>;

export const Artifact = z.object({ path: z.string(), sha256: z.string(), bytes: z.number().int().min(0) });
export type Artifact = z.infer<typeof Artifact>;

const ArmRate = z.object({ passed: z.number().int(), n: z.number().int(), pass_rate: z.number() });

/** The verdict provenance stores once (§5.4); `stats` is ours: intervals and power. */
export const VerdictRecord = z.looseObject({
  result: z.enum(["promote", "hold", "reject", "insufficient", "invalid"]),
  baseline: ArmRate,
  candidate: ArmRate,
  pass_threshold: z.number(),
  min_pass_rate: z.number(),
  scores_sha256: z.string(),
  decided_at: z.string(),
});
export type VerdictRecord = z.infer<typeof VerdictRecord>;

/** provenance.json: what verdict and verify read; everything else is carried as written. */
export const Provenance = z.looseObject({
  schema: z.literal(1),
  kind: z.literal("idd-promotion-provenance"),
  task: z.looseObject({
    id: z.string(),
    rubric_sha256: z.string(),
  }),
  runs: z.looseObject({
    per_arm: z.number().int().min(0),
    min_runs: z.number().int().min(1),
    seed_sha256: z.string().optional(),
  }),
  leakcheck: z.looseObject({ post_leaks: z.number().int().min(0) }),
  key_sha256: z.string(),
  // Entries are checked one by one: verify answers `verified: false` for a bad one (exit 0), as the original.
  artifacts: z.array(z.unknown()),
  verdict: VerdictRecord.nullable(),
});
export type Provenance = z.infer<typeof Provenance>;

/** scores.json: `{<blind id>: {<criterion id>: true|false}}`, filled by graders. */
export const Scores = z.record(z.string(), z.record(z.string(), z.boolean()));
export type Scores = z.infer<typeof Scores>;

/** JSON Schemas committed as schemas/promotion-<name>.schema.json. */
export function promotionRunJsonSchemas(): Record<
  "provenance" | "scores" | "sealed-key" | "sealed-order" | "sealed-manifest",
  unknown
> {
  const io = { io: "input" } as const;
  return {
    provenance: z.toJSONSchema(Provenance, io),
    scores: z.toJSONSchema(Scores, io),
    "sealed-key": z.toJSONSchema(SealedKey, io),
    "sealed-order": z.toJSONSchema(SealedOrder, io),
    "sealed-manifest": z.toJSONSchema(SealedManifest, io),
  };
}

/**
 * `json.dumps(sort_keys=True, indent=2)` (ASCII-escaped, no trailing newline): the sealed manifest's
 * bytes and its MAC body. Never change it: runs sealed earlier must keep verifying.
 */
export function sortedJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true, indent: 2 });
}

/**
 * agent_eval.py's `_dump`: `json.dumps(sort_keys=True, indent=2, ensure_ascii=False) + "\n"`, the bytes
 * of every file a run and a verdict write that the original wrote too (sealed key and order,
 * provenance, blind criteria and scores template, the checks' case.json).
 */
export function pyDump(value: unknown): string {
  return `${pyJsonDumps(value, { sortKeys: true, indent: 2, ensureAscii: false })}\n`;
}

/** The one-line stdout form of a failure: `json.dumps(result, sort_keys=True)`. */
export function stdoutJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true });
}

/** The one-line stdout form of a result: `json.dumps(result, sort_keys=True, ensure_ascii=False)`. */
export function resultJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true, ensureAscii: false });
}

/** Python's float for a number (json.dumps writes `1.0`, `0.0`, `0.5`). */
const float = (x: number): PyFloat => new PyFloat(x);

/**
 * sealed/key.json's content as the original writes it: `duration_s` is `round(seconds, 3)`, a Python
 * float, so a whole second is `2.0`.
 */
export function keyJson(key: Record<string, KeyRecord>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(key).map(([bid, r]) => [bid, { ...r, duration_s: float(r.duration_s) }]),
  );
}

/** An interval's numbers as floats (ours, beside the original's fields, written the same way). */
function floatInterval(i: { estimate: number; lo: number; hi: number } | null): unknown {
  return i === null ? null : { ...i, estimate: float(i.estimate), lo: float(i.lo), hi: float(i.hi) };
}

/**
 * A verdict as the original writes it (stdout and provenance): pass rates, pass_threshold and
 * min_pass_rate are Python floats (`"pass_rate": 1.0`, `"pass_threshold": 1.0`), passed and n ints.
 * Our `stats` rates are written as floats too.
 */
export function verdictJson<
  V extends VerdictRecord & {
    stats?: {
      baseline: { estimate: number; lo: number; hi: number } | null;
      candidate: { estimate: number; lo: number; hi: number } | null;
      difference: { estimate: number; lo: number; hi: number } | null;
      power: { p1: number; p2: number };
    };
  },
>(v: V): Record<string, unknown> {
  const rate = (r: VerdictRecord["baseline"]) => ({ ...r, pass_rate: float(r.pass_rate) });
  const out: Record<string, unknown> = {
    ...v,
    baseline: rate(v.baseline),
    candidate: rate(v.candidate),
    pass_threshold: float(v.pass_threshold),
    min_pass_rate: float(v.min_pass_rate),
  };
  if (v.stats)
    out.stats = {
      ...v.stats,
      baseline: floatInterval(v.stats.baseline),
      candidate: floatInterval(v.stats.candidate),
      difference: floatInterval(v.stats.difference),
      power: { ...v.stats.power, p1: float(v.stats.power.p1), p2: float(v.stats.power.p2) },
    };
  return out;
}

export function writeSorted(path: string, value: unknown): void {
  writeFileAtomic(path, pyDump(value));
}

export function loadProvenance(path: string): Provenance {
  return parseFile(path, "provenance", Provenance);
}
export function loadSealedKey(path: string): SealedKey {
  return parseFile(path, "sealed key", SealedKey);
}
export function loadSealedOrder(path: string): SealedOrder {
  return parseFile(path, "sealed order", SealedOrder);
}
export function loadScores(path: string): Scores {
  return parseFile(path, "scores", Scores);
}

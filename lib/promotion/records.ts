// The formats a promotion run writes (agent_eval.py, reference §5.3-5.5): the sealed key, the
// sealed order, provenance.json (gi-receipt field names) and the graders' scores. One zod schema
// each, loose where the original was loose (extra provenance fields are kept, so a run written by
// either tool verifies under the other), strict where a grader types: scores. Loading refuses a bad
// shape with one ConfigError line (exit 3), never a stack.
import { z } from "zod";
import { pyJsonDumps } from "../compat/py/json.ts";
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

const Artifact = z.object({ path: z.string(), sha256: z.string(), bytes: z.number().int().min(0) });
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
  artifacts: z.array(Artifact),
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

/** The original's `json.dumps(sort_keys=True, indent=2)` bytes (ASCII-escaped, no trailing newline). */
export function sortedJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true, indent: 2 });
}

/** The one-line stdout form: `json.dumps(result, sort_keys=True)`. */
export function stdoutJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true });
}

export function writeSorted(path: string, value: unknown): void {
  writeFileAtomic(path, sortedJson(value));
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

// The judge's verdict cache (the suite's `judge.cache`, a directory relative to the suite file): one
// JSON file per key, so a rerun does not pay for the same judgement twice. The key is the rubric
// (id, version, file digest), the judge (wire, model), the prompt framing, the criteria and parts in
// the order shown, never the per-call nonce. Each entry is sealed: an HMAC-SHA256 over its key and
// verdict, keyed from the judge's own key when the suite gives one (forging an entry then takes that
// key) and from a fixed label otherwise (then the seal is only a digest: it catches an edited or moved
// entry, not a forger who reads this file). An entry whose seal, key or shape does not check, or whose
// verdict no longer fits the rubric, is a miss, asked again and overwritten, never a verdict. Only
// verdicts that parsed are stored. Memory only when no directory is given.
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { readRegular } from "../../core/confined.ts";
import { ensureDir, writeFileAtomic } from "../../core/fsx.ts";
import { sha256 } from "../../core/hash.ts";
import type { Part } from "../../judge/fence.ts";
import type { Rubric } from "./config.ts";
import { PROMPT_VERSION } from "./prompt.ts";
import { checkVerdict, type Verdict } from "./verdict.ts";

/** One cache file. */
export const CachedVerdict = z
  .object({
    version: z.literal(2),
    key: z.string(),
    score: z.number(),
    scores: z.record(z.string(), z.unknown()),
    rationale: z.string(),
    seal: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type CachedVerdict = z.infer<typeof CachedVerdict>;

/** The most a cache file may hold: a verdict is a few hundred bytes. */
const MAX_ENTRY_BYTES = 1 << 20;

/** The cache key of one judgement (hex SHA-256). */
export function cacheKey(
  rubric: Rubric,
  judge: { wire: string; model: string },
  criteria: readonly string[],
  parts: readonly Part[],
): string {
  const h = sha256();
  for (const v of [
    rubric.id,
    rubric.version,
    rubric.digest,
    judge.wire,
    judge.model,
    PROMPT_VERSION,
    criteria,
  ])
    h.update(`${JSON.stringify(v)}\0`);
  for (const p of parts) h.update(`${JSON.stringify([p.title, p.untrusted, p.body])}\0`);
  return h.digest("hex");
}

/** Verdicts by key, in memory and (when `dir` is set) on disk, sealed with a key derived from `secret`. */
export class VerdictCache {
  readonly #dir: string | undefined;
  readonly #mac: Buffer;
  readonly #mem = new Map<string, Verdict>();

  /** `secret`: the judge's key, when it has one (empty: the seal is a plain keyed digest). */
  constructor(dir?: string, secret = "") {
    this.#dir = dir;
    this.#mac = createHmac("sha256", secret).update("proctor judge cache seal v2").digest();
  }

  /** The verdict stored under `key`, its seal and then the rubric checked again; undefined for a miss. */
  get(key: string, rubric: Rubric): Verdict | undefined {
    const hit = this.#mem.get(key) ?? this.#read(key);
    if (hit === undefined) return undefined;
    const v = checkVerdict(rubric, hit.scores, hit.rationale);
    return "error" in v ? undefined : v;
  }

  /** Stores a verdict that parsed (atomically on disk, owner-only). */
  put(key: string, v: Verdict): void {
    this.#mem.set(key, v);
    if (this.#dir === undefined) return;
    ensureDir(this.#dir);
    const entry: CachedVerdict = {
      version: 2,
      key,
      score: v.score,
      scores: v.scores,
      rationale: v.rationale,
      seal: this.#seal(key, v.score, v.scores, v.rationale),
    };
    writeFileAtomic(join(this.#dir, `${key}.json`), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }

  #seal(key: string, score: number, scores: Record<string, unknown>, rationale: string): string {
    return createHmac("sha256", this.#mac)
      .update(JSON.stringify([key, score, scores, rationale]))
      .digest("hex");
  }

  #read(key: string): Verdict | undefined {
    if (this.#dir === undefined) return undefined;
    let entry: CachedVerdict;
    try {
      const text = readRegular(join(this.#dir, `${key}.json`), { maxBytes: MAX_ENTRY_BYTES }).toString(
        "utf8",
      );
      const parsed = CachedVerdict.safeParse(JSON.parse(text));
      if (!parsed.success) return undefined;
      entry = parsed.data;
    } catch {
      return undefined; // absent, not a regular file, too large or corrupt: a miss
    }
    const want = Buffer.from(this.#seal(key, entry.score, entry.scores, entry.rationale), "hex");
    if (entry.key !== key || !timingSafeEqual(want, Buffer.from(entry.seal, "hex"))) return undefined;
    return { score: entry.score, scores: entry.scores as Record<string, number>, rationale: entry.rationale };
  }
}

// The judge's verdict cache (the suite's `judge.cache`, a directory relative to the suite file): one
// JSON file per key, so a rerun does not pay for the same judgement twice. The key is the rubric
// (id, version, file digest), the judge (wire, model), the prompt framing, the criteria and parts in
// the order shown, never the per-call nonce. Only verdicts that parsed are stored, so a schema
// failure is asked again next time; every hit is checked against the rubric again and its score recomputed, so a
// stale, corrupt or edited entry is a miss, never a verdict. Memory only when no directory is given.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ensureDir, writeFileAtomic } from "../../core/fsx.ts";
import { sha256 } from "../../core/hash.ts";
import type { Rubric } from "./config.ts";
import { type Part, PROMPT_VERSION } from "./prompt.ts";
import { checkVerdict, type Verdict } from "./verdict.ts";

/** One cache file. */
export const CachedVerdict = z
  .object({
    version: z.literal(1),
    score: z.number(),
    scores: z.record(z.string(), z.unknown()),
    rationale: z.string(),
  })
  .strict();
export type CachedVerdict = z.infer<typeof CachedVerdict>;

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

/** Verdicts by key, in memory and (when `dir` is set) on disk. */
export class VerdictCache {
  readonly #dir: string | undefined;
  readonly #mem = new Map<string, Verdict>();

  constructor(dir?: string) {
    this.#dir = dir;
  }

  /** The verdict stored under `key`, checked against `rubric` again; undefined for a miss. */
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
    const entry: CachedVerdict = { version: 1, score: v.score, scores: v.scores, rationale: v.rationale };
    writeFileAtomic(join(this.#dir, `${key}.json`), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }

  #read(key: string): Verdict | undefined {
    if (this.#dir === undefined) return undefined;
    try {
      const entry = CachedVerdict.safeParse(JSON.parse(readFileSync(join(this.#dir, `${key}.json`), "utf8")));
      if (!entry.success) return undefined;
      return {
        score: entry.data.score,
        scores: entry.data.scores as Record<string, number>,
        rationale: entry.data.rationale,
      };
    } catch {
      return undefined; // absent or corrupt: a miss
    }
  }
}

// Reading a judge's reply, as strictly as the original: exactly one JSON object (lib/judge/reply.ts:
// whitespace around it and nothing else: no code fence, no prose, no trailing text) with only
// `scores` (every criterion of the rubric and no other, each a number in 0..1) and a non-empty
// `rationale`. The score is the weighted mean of the criteria, recomputed here, never taken from the
// reply. Anything else is a judge error (a grader error: never a pass), never a crash.
import { parseJsonObject } from "../../judge/reply.ts";
import { isRecord } from "../../wire/index.ts";
import type { Rubric } from "./config.ts";

/** A reply that parsed: the weighted score, each criterion's score, the judge's reason. */
export interface Verdict {
  score: number;
  scores: Record<string, number>;
  rationale: string;
}

/** The prefix of every reply-shape error, as the original words it. */
export const SCHEMA_ERROR = "judge reply failed schema validation";

const bad = (why: string) => ({ error: `${SCHEMA_ERROR}: ${why}` });

/** Parses `reply` against `rubric`; the verdict, or a schema error line. */
export function parseVerdict(rubric: Rubric, reply: string): Verdict | { error: string } {
  const parsed = parseJsonObject(reply);
  if ("error" in parsed) return bad(parsed.error);
  const data = parsed.data;
  // Go's decoder matches field names without regard to case, the last of a repeated one winning.
  const fields: { scores?: unknown; rationale?: unknown } = {};
  for (const [k, v] of Object.entries(data)) {
    const name = k.toLowerCase();
    if (name !== "scores" && name !== "rationale") return bad(`unknown field ${JSON.stringify(k)}`);
    fields[name] = v;
  }
  const { scores, rationale } = fields;
  if (rationale != null && typeof rationale !== "string") return bad("rationale: expected a string");
  if (scores != null && !isRecord(scores)) return bad("scores: expected an object of criterion scores");
  return checkVerdict(rubric, (scores ?? {}) as Record<string, unknown>, rationale ?? "");
}

/**
 * Checks scores against `rubric` (exactly its criteria, each a number in 0..1) and a non-empty
 * rationale, and recomputes the weighted score; used on replies and on every cache hit alike.
 */
export function checkVerdict(
  rubric: Rubric,
  scores: Record<string, unknown>,
  rationale: unknown,
): Verdict | { error: string } {
  if (typeof rationale !== "string" || rationale.trim() === "") return bad("rationale is required");
  const names = Object.keys(scores);
  if (names.length !== rubric.criteria.length)
    return bad(`want scores for exactly ${rubric.criteria.length} criteria, got ${names.length}`);
  const out: Record<string, number> = {};
  let sum = 0;
  let weights = 0;
  for (const c of rubric.criteria) {
    const s = Object.hasOwn(scores, c.name) ? scores[c.name] : undefined;
    if (typeof s !== "number" || !(s >= 0 && s <= 1))
      return bad(`criterion ${JSON.stringify(c.name)} needs a score in [0,1]`);
    out[c.name] = s;
    sum += c.weight * s;
    weights += c.weight;
  }
  return { score: sum / weights, scores: out, rationale };
}

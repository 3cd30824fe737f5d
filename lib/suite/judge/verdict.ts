// Reading a judge's reply, as strictly as the original: exactly one JSON object (whitespace around it
// and nothing else: no code fence, no prose, no trailing text) with only `scores` (every criterion of
// the rubric and no other, each a number in 0..1) and a non-empty `rationale`. The score is the
// weighted mean of the criteria, recomputed here, never taken from the reply. Anything else is a
// judge error (a grader error: never a pass), never a crash.
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

/** Where the JSON value starting at `from` (an object) ends, strings and escapes skipped; -1 if never. */
function objectEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Parses `reply` against `rubric`; the verdict, or a schema error line. */
export function parseVerdict(rubric: Rubric, reply: string): Verdict | { error: string } {
  const start = reply.search(/\S/);
  if (start < 0) return bad("the reply is empty");
  if (reply[start] !== "{")
    return bad(`expected one JSON object, got ${JSON.stringify(reply.slice(start, start + 20))}`);
  const end = objectEnd(reply, start);
  if (end < 0) return bad("the JSON object is not closed");
  let data: unknown;
  try {
    data = JSON.parse(reply.slice(start, end));
  } catch (error) {
    return bad(`invalid JSON: ${(error as Error).message}`);
  }
  if (reply.slice(end).trim() !== "") return bad("trailing data after the JSON object");
  if (!isRecord(data)) return bad("expected one JSON object");
  const unknown = Object.keys(data).find((k) => k !== "scores" && k !== "rationale");
  if (unknown !== undefined) return bad(`unknown field ${JSON.stringify(unknown)}`);
  if (data.rationale !== undefined && typeof data.rationale !== "string")
    return bad("rationale: expected a string");
  if (data.scores !== undefined && data.scores !== null && !isRecord(data.scores))
    return bad("scores: expected an object of criterion scores");
  return checkVerdict(rubric, (data.scores ?? {}) as Record<string, unknown>, data.rationale ?? "");
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

// `eval-steps judge`: grades pairs of one experiment with a judge model and appends one history
// line per judged pair. Selection follows halo's online grader (originals.md §6.9): the experiment's
// pairs not yet in the history whose both arms are usable (no error, status 200, a response), sorted
// by id, shuffled with the seed, the first --sample taken (0 = all). The store is streamed twice
// (ids, then the chosen pairs) so memory stays bounded; each grade is appended as soon as it
// arrives, so an interrupted run keeps what it paid for and the next run skips it.

import { sha256Bytes } from "../core/hash.ts";
import { createLogger } from "../core/log.ts";
import { pool } from "../core/pool.ts";
import { Rng, shuffle } from "../stats/index.ts";
import { appendHistory, gradedIds, type HistoryEntry, loadHistoryLines, originalNote } from "./history.ts";
import { askJudge, type JudgeRoute, pairAsk, parseVerdict, readRubric } from "./judge.ts";
import { loadPairKey, type Pair, type PairSide, readPairs } from "./pairs/index.ts";

/** Options of one judge run (the key is already read into `route`). */
export interface JudgePairsOptions {
  pairs: string;
  pairKeyFiles?: string[];
  experiment: string;
  history: string;
  rubric: string;
  route: JudgeRoute;
  sample?: number;
  seed?: number;
  parallel?: number;
  /** Longest store row in bytes (default DEFAULT_MAX_ROW_BYTES, lib/steps/pairs/index.ts). */
  maxRowBytes?: number;
  now?: () => Date;
}

/** What a judge run did. */
export interface JudgePairsResult {
  experiment: string;
  eligible: number;
  alreadyGraded: number;
  unusable: number;
  selected: number;
  graded: number;
  errors: Array<{ id: string; error: string }>;
}

const usable = (s: PairSide) =>
  !s.error && s.status === 200 && s.response !== undefined && s.response !== null && s.response !== "";

/** Which answer the judge sees first for pair `id`: seeded per pair, independent of the sample. */
export function orderOf(seed: number, id: string): HistoryEntry["order"] {
  return (sha256Bytes(`${seed}:${id}`)[0]! & 1) === 0 ? "control-first" : "candidate-first";
}

/** Grades one pair; an error line when the judge call or its answer failed. */
export async function judgePair(
  pair: Pair,
  rubric: { text: string; digest: string },
  route: JudgeRoute,
  seed: number,
  now: () => Date,
): Promise<{ entry: HistoryEntry } | { error: string }> {
  const order = orderOf(seed, pair.id);
  const [a, b] = order === "control-first" ? [pair.control, pair.candidate] : [pair.candidate, pair.control];
  const reply = await askJudge(route, pairAsk(rubric.text, pair.request, a.response, b.response));
  if (reply.error !== undefined) return { error: reply.error };
  const v = parseVerdict(reply.text ?? "", ["a", "b"] as const);
  if ("error" in v) return { error: v.error };
  const [control, candidate] =
    order === "control-first" ? [v.scores.a, v.scores.b] : [v.scores.b, v.scores.a];
  const entry: HistoryEntry = {
    version: 1,
    id: pair.id,
    experiment: pair.experiment,
    time: now().toISOString(),
    judge: { model: route.model, rubric: rubric.digest },
    control: { score: control, reason: v.reason },
    candidate: { score: candidate },
    delta: candidate - control,
    order,
    seed,
  };
  return { entry };
}

/** Selects, judges and appends; returns the counts. */
export async function judgePairs(o: JudgePairsOptions): Promise<JudgePairsResult> {
  const keys = (o.pairKeyFiles ?? []).map((p) => loadPairKey(p));
  const rubric = readRubric(o.rubric);
  // The original's lines (aggregate readings, no per-pair score) are said once, as harvest says them,
  // and grade nothing: the pairs they name are judged again, and our lines appended after theirs.
  const history = loadHistoryLines(o.history);
  const note = originalNote(o.history, history.original);
  if (note !== undefined) createLogger("eval-steps").warn(note);
  const graded = gradedIds(history.entries, o.experiment);
  const seed = o.seed ?? 1;
  const ids: string[] = [];
  let alreadyGraded = 0;
  let unusable = 0;
  const read = o.maxRowBytes ? { maxRowBytes: o.maxRowBytes } : {};
  for (const { pair } of readPairs(o.pairs, keys, read)) {
    if (pair.experiment !== o.experiment) continue;
    if (graded.has(pair.id)) alreadyGraded++;
    else if (!usable(pair.control) || !usable(pair.candidate)) unusable++;
    else ids.push(pair.id);
  }
  ids.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const sample = o.sample ?? 50;
  const chosen = new Set(shuffle(ids, new Rng(seed)).slice(0, sample === 0 ? undefined : sample));
  const pairs: Pair[] = [];
  for (const { pair } of readPairs(o.pairs, keys, read))
    if (pair.experiment === o.experiment && chosen.delete(pair.id)) pairs.push(pair);
  const now = o.now ?? (() => new Date());
  const errors: JudgePairsResult["errors"] = [];
  let done = 0;
  await pool(pairs, o.parallel ?? 4, async (pair) => {
    const r = await judgePair(pair, rubric, o.route, seed, now);
    if ("error" in r) errors.push({ id: pair.id, error: r.error });
    else {
      await appendHistory(o.history, [r.entry]);
      done++;
    }
  });
  errors.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return {
    experiment: o.experiment,
    eligible: ids.length,
    alreadyGraded,
    unusable,
    selected: pairs.length,
    graded: done,
    errors,
  };
}

// Harvest pass 1 and selection: one streamed read of the store keeps only per-pair facts (hashes,
// offsets, calls), orders each session into steps (auxiliary requests, byte-identical retries and
// arm-truncated steps are not steps), recovers production's action from the next request and selects.
// Only the chosen steps and where their rows are leave selectFromStore; a repeated pair id (two rows
// for one case file) is bad input naming both lines.
import { ConfigError } from "../core/errors.ts";
import { armAction, type RawCall } from "./action.ts";
import type { SelectReason, StepProtocol } from "./case.ts";
import { type PairKey, readPairs, wireProtocol } from "./pairs/index.ts";
import { type StepChoice, type StepView, selectSteps } from "./select.ts";
import { type RequestFacts, recoveredAction, requestFacts } from "./session.ts";
import { shortDigest } from "./session-key.ts";

/** What the first pass reads of harvest's options (HarvestOptions in harvest.ts extends this). */
export interface ScanOptions {
  pairs: string;
  experiment: string;
  perDepth?: number;
  judgeLoss?: number;
  seed?: number;
  /** Longest store row in bytes (default DEFAULT_MAX_ROW_BYTES, lib/steps/pairs/index.ts). */
  maxRowBytes?: number;
  /** Receives the largest read buffer held while scanning the store (tests bound memory with it). */
  stats?: { peakBuffer: number };
}

/** What the second pass needs of a chosen pair: where its row is, and its ids. */
export type Where = Pick<Meta, "id" | "session" | "line" | "offset" | "length" | "protocol">;

interface Meta {
  id: string;
  session: string;
  time: number;
  line: number;
  offset: number;
  length: number;
  protocol: StepProtocol;
  facts: RequestFacts;
  control: RawCall[];
  candidate: RawCall[];
  usable: boolean;
}

/** A second row of the experiment whose case file name is already taken: bad input, naming both lines. */
function duplicateError(path: string, first: Meta, line: number, id: string): ConfigError {
  const why = first.id === id ? "the same pair id" : "pair ids that give the same case file name";
  return new ConfigError(`Cannot read pair store "${path}": lines ${first.line} and ${line} have ${why}`);
}

/** Pass 1: every pair of the experiment as compact facts (the whole store is decoded: all or nothing). */
function scan(o: ScanOptions, fd: number, keys: readonly PairKey[]): { metas: Meta[]; rows: number } {
  const metas: Meta[] = [];
  const byCase = new Map<string, Meta>();
  let rows = 0;
  const read = { fd, ...(o.maxRowBytes ? { maxRowBytes: o.maxRowBytes } : {}), stats: o.stats };
  for (const row of readPairs(o.pairs, keys, read)) {
    rows++;
    const p = row.pair;
    if (p.experiment !== o.experiment) continue;
    const taken = byCase.get(caseId(p.id));
    if (taken) throw duplicateError(o.pairs, taken, row.line, p.id);
    const protocol = wireProtocol(p);
    const control = armAction(protocol, p.control.response);
    const candidate = armAction(protocol, p.candidate.response);
    const ok = (s: typeof p.control, a: typeof control) =>
      !s.error &&
      s.status === 200 &&
      s.response !== undefined &&
      s.response !== null &&
      a.readable &&
      !a.truncated;
    const t = Date.parse(p.time);
    metas.push({
      id: p.id,
      session: p.session_id ? `session:${p.session_id}` : `pair:${p.id}`,
      time: Number.isNaN(t) ? Number.POSITIVE_INFINITY : t,
      line: row.line,
      offset: row.offset,
      length: row.length,
      protocol,
      facts: requestFacts(protocol, p.request),
      control: control.calls,
      candidate: candidate.calls,
      usable: ok(p.control, control) && ok(p.candidate, candidate),
    });
    byCase.set(caseId(p.id), metas[metas.length - 1] as Meta);
  }
  return { metas, rows };
}

/** Orders sessions into steps with depths; returns the harvestable ones with production's action. */
function toSteps(
  metas: Meta[],
  losses: Map<string, number>,
): { views: StepView[]; byId: Map<string, Meta>; steps: number } {
  const sessions = new Map<string, Meta[]>();
  for (const m of metas) {
    const list = sessions.get(m.session);
    if (list) list.push(m);
    else sessions.set(m.session, [m]);
  }
  const views: StepView[] = [];
  const byId = new Map<string, Meta>();
  let steps = 0;
  for (const list of sessions.values()) {
    list.sort((a, b) => a.time - b.time || a.line - b.line);
    const seen = new Set<string>();
    const chain = list.filter((m) => {
      if (m.facts.tools.length === 0 || seen.has(m.facts.bodyHash)) return false; // auxiliary or retry
      seen.add(m.facts.bodyHash);
      return true;
    });
    steps += chain.length;
    chain.forEach((m, depth) => {
      if (!m.usable) return; // an arm failed or was truncated: not a step we can judge
      const production = recoveredAction(m.facts, chain[depth + 1]?.facts);
      const loss = losses.get(m.id);
      views.push({
        pairId: m.id,
        depth,
        tools: m.facts.tools,
        ...(production ? { production } : {}),
        control: m.control,
        candidate: m.candidate,
        ...(loss !== undefined ? { judgeLoss: loss } : {}),
      });
      byId.set(m.id, m);
    });
  }
  return { views, byId, steps };
}

/**
 * Pass 1 and selection. Only the chosen steps and where their rows are leave this function: every
 * other pair's facts (hashes, calls) can be collected before the second pass starts.
 */
export function selectFromStore(
  o: ScanOptions,
  fd: number,
  keys: readonly PairKey[],
  losses: Map<string, number>,
  reasons: SelectReason[],
): { cases: StepChoice[]; skipped: number; byId: Map<string, Where>; steps: number; rows: number } {
  const { metas, rows } = scan(o, fd, keys);
  const { views, byId, steps } = toSteps(metas, losses);
  metas.length = 0;
  const { cases, skipped } = selectSteps(views, {
    reasons,
    perDepth: o.perDepth ?? 5,
    judgeLossThreshold: o.judgeLoss ?? 0.2,
    seed: o.seed ?? 1,
  });
  const where = new Map<string, Where>();
  for (const c of cases) {
    const m = byId.get(c.view.pairId) as Meta;
    where.set(m.id, {
      id: m.id,
      session: m.session,
      line: m.line,
      offset: m.offset,
      length: m.length,
      protocol: m.protocol,
    });
  }
  return { cases, skipped, byId: where, steps, rows };
}

/** The case file name for a pair id: the id itself when file-safe, else a digest of it. */
export function caseId(pairId: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(pairId) ? pairId : `pair-${shortDigest(pairId)}`;
}

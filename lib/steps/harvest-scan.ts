// Harvest pass 1 and selection, in memory flat in the store's size. One streamed read of the store
// spills each pair's facts (hashes, offsets, calls) to lib/steps/harvest-spill.ts and keeps only
// numbers per pair in memory (session, time, line, where its record is). Each session is then read
// back in order and made into steps (auxiliary requests, byte-identical retries and arm-truncated
// steps are not steps), production's action is recovered from the next request, each step is judged
// and its choice spilled; `sample` draws over depths and ids alone. What leaves selectFromStore is a
// reader of the chosen steps. A repeated pair id (two rows for one case file) is bad input naming both
// lines.
import { randomBytes } from "node:crypto";
import { ConfigError } from "../core/errors.ts";
import { collectGarbage } from "../core/runtime.ts";
import type { OfferedTool } from "../wire/index.ts";
import { armAction, type RawCall } from "./action.ts";
import type { SelectReason, StepProtocol } from "./case.ts";
import { Column, HashIndex, Spill } from "./harvest-spill.ts";
import { type PairKey, readPairs, wireProtocol } from "./pairs/index.ts";
import { judgeStep, type SelectOptions, type StepChoice, samplePicks } from "./select.ts";
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

/** Where a pair's row is in the store, and its ids (what the second pass needs). */
export interface Where {
  id: string;
  session: string;
  line: number;
  offset: number;
  length: number;
  protocol: StepProtocol;
}

/** A chosen step as the second pass reads it back. */
export interface Chosen extends Pick<StepChoice, "expected" | "expectedFrom" | "alternative" | "reasons"> {
  depth: number;
  where: Where;
}

/** One pair's facts in the spill (tools by index into the scan's table of tool sets). */
interface PairRecord {
  w: Where;
  f: Omit<RequestFacts, "tools">;
  t: number;
  c: RawCall[];
  d: RawCall[];
  u: boolean;
}

/** Bytes of rows decoded between two full collections (see bytePacer). */
const GC_EVERY_BYTES = 16 << 20;

/**
 * Collects garbage every `every` bytes of input. Decoding a row leaves garbage of several times its
 * size; left to itself the collector lets the heap grow with the store (0.25 MB per MB). A full
 * collection of the small live heap every 16 MB of rows keeps the peak flat (at 8 MB the peak was no
 * lower and the collections cost 10% of a harvest's CPU).
 */
export function bytePacer(every = GC_EVERY_BYTES): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since = 0;
    collectGarbage();
  };
}

/** A second row of the experiment whose case file name is already taken: bad input, naming both lines. */
function duplicateError(path: string, first: Where, line: number, id: string): ConfigError {
  const why = first.id === id ? "the same pair id" : "pair ids that give the same case file name";
  return new ConfigError(`Cannot read pair store "${path}": lines ${first.line} and ${line} have ${why}`);
}

/** Pass 1's memory: a few numbers per pair, the sessions and tool sets by index, the spill. */
class Pass1 {
  readonly session = new Column();
  readonly time = new Column();
  readonly line = new Column();
  readonly at = new Column();
  readonly size = new Column();
  readonly toolSets: OfferedTool[][] = [];
  rows = 0;
  constructor(readonly spill: Spill) {}

  record(i: number): PairRecord {
    return this.spill.read(this.at.at(i), this.size.at(i)) as PairRecord;
  }
}

/**
 * A 53-bit hash of a case file name under a per-process seed, computed in place (a SHA-256 per pair
 * left a native hash object and a Buffer behind). Not cryptographic and need not be: a match is confirmed against the spill, and the random seed
 * keeps a store from being built to collide.
 */
function nameKey(s: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (h2 & 0x1fffff) + (h1 >>> 0);
}

/** Case file names seen, by a 53-bit hash (exact: a hash match is confirmed against the spill). */
function caseNames(p: Pass1): (name: string, i: number) => number | undefined {
  const byDigest = new HashIndex();
  const collided = new Map<string, number>();
  const seed = randomBytes(4).readUInt32BE(0);
  return (name, i) => {
    const k = nameKey(name, seed);
    const j = byDigest.get(k);
    if (j === undefined) return void byDigest.add(k, i);
    if (caseId(p.record(j).w.id) === name) return j;
    const c = collided.get(name);
    if (c === undefined) collided.set(name, i);
    return c;
  };
}

/** Pass 1: every pair of the experiment as a spilled record (the whole store is decoded: all or nothing). */
function scan(o: ScanOptions, fd: number, keys: readonly PairKey[], spill: Spill): Pass1 {
  const p = new Pass1(spill);
  const sessions = new Map<string, number>();
  let sessionCount = 0;
  const toolIndex = new Map<string, number>();
  const taken = caseNames(p);
  const pace = bytePacer();
  const read = { fd, ...(o.maxRowBytes ? { maxRowBytes: o.maxRowBytes } : {}), stats: o.stats };
  for (const row of readPairs(o.pairs, keys, read)) {
    p.rows++;
    pace(row.length);
    const pair = row.pair;
    if (pair.experiment !== o.experiment) continue;
    const first = taken(caseId(pair.id), p.line.length);
    if (first !== undefined) throw duplicateError(o.pairs, p.record(first).w, row.line, pair.id);
    const protocol = wireProtocol(pair);
    const control = armAction(protocol, pair.control.response);
    const candidate = armAction(protocol, pair.candidate.response);
    const ok = (s: typeof pair.control, a: typeof control) =>
      !s.error &&
      s.status === 200 &&
      s.response !== undefined &&
      s.response !== null &&
      a.readable &&
      !a.truncated;
    const t = Date.parse(pair.time);
    const { tools, ...facts } = requestFacts(protocol, pair.request);
    const toolsKey = JSON.stringify(tools);
    let ti = toolIndex.get(toolsKey);
    if (ti === undefined) {
      ti = p.toolSets.push(tools) - 1;
      toolIndex.set(toolsKey, ti);
    }
    // A pair without a session id is a session of its own (its id is unique: checked above).
    let s = pair.session_id ? sessions.get(pair.session_id) : undefined;
    if (s === undefined) {
      s = sessionCount++;
      if (pair.session_id) sessions.set(pair.session_id, s);
    }
    const where: Where = {
      id: pair.id,
      session: pair.session_id ? `session:${pair.session_id}` : `pair:${pair.id}`,
      line: row.line,
      offset: row.offset,
      length: row.length,
      protocol,
    };
    const rec: PairRecord = {
      w: where,
      f: facts,
      t: ti,
      c: control.calls,
      d: candidate.calls,
      u: ok(pair.control, control) && ok(pair.candidate, candidate),
    };
    const ref = spill.append(rec);
    p.session.push(s);
    p.time.push(Number.isNaN(t) ? Number.POSITIVE_INFINITY : t);
    p.line.push(row.line);
    p.at.push(ref.offset);
    p.size.push(ref.length);
  }
  return p;
}

/** The spilled choices: where each is, its depth, whether it has a reason, and ids when sampling. */
interface Choices {
  at: Column;
  size: Column;
  depth: Column;
  reasoned: Column;
  ids: string[];
  skipped: number;
  steps: number;
}

/** Orders each session into steps with depths, judges every harvestable step and spills its choice. */
function chooseSteps(p: Pass1, losses: Map<string, number>, sel: SelectOptions): Choices {
  const n = p.line.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Sessions in the order they first appear, each in time order (the line breaks ties).
  order.sort(
    (a, b) => p.session.at(a) - p.session.at(b) || p.time.at(a) - p.time.at(b) || p.line.at(a) - p.line.at(b),
  );
  const out: Choices = {
    at: new Column(),
    size: new Column(),
    depth: new Column(),
    reasoned: new Column(),
    ids: [],
    skipped: 0,
    steps: 0,
  };
  const sampling = sel.reasons.includes("sample");
  const pace = bytePacer(GC_EVERY_BYTES / 32); // a spilled record is small, its garbage is not

  for (let k = 0; k < n; ) {
    const s = p.session.at(order[k] as number);
    const list: PairRecord[] = [];
    for (; k < n && p.session.at(order[k] as number) === s; k++) {
      const i = order[k] as number;
      pace(p.size.at(i));
      list.push(p.record(i));
    }
    const seen = new Set<string>();
    const chain = list.filter((m) => {
      if ((p.toolSets[m.t] as OfferedTool[]).length === 0 || seen.has(m.f.bodyHash)) return false; // auxiliary or retry
      seen.add(m.f.bodyHash);
      return true;
    });
    out.steps += chain.length;
    chain.forEach((m, depth) => {
      if (!m.u) return; // an arm failed or was truncated: not a step we can judge
      const tools = p.toolSets[m.t] as OfferedTool[];
      const next = chain[depth + 1];
      const production = recoveredAction({ ...m.f, tools }, next ? { ...next.f, tools } : undefined);
      const loss = losses.get(m.w.id);
      const c = judgeStep(
        {
          pairId: m.w.id,
          depth,
          tools,
          ...(production ? { production } : {}),
          control: m.c,
          candidate: m.d,
          ...(loss !== undefined ? { judgeLoss: loss } : {}),
        },
        sel,
      );
      if (!c) {
        out.skipped++;
        return;
      }
      const chosen: Chosen = {
        depth,
        where: m.w,
        expected: c.expected,
        expectedFrom: c.expectedFrom,
        ...(c.alternative ? { alternative: c.alternative } : {}),
        reasons: c.reasons,
      };
      const ref = p.spill.append(chosen);
      out.at.push(ref.offset);
      out.size.push(ref.length);
      out.depth.push(depth);
      out.reasoned.push(c.reasons.length > 0 ? 1 : 0);
      if (sampling) out.ids.push(m.w.id);
    });
  }
  return out;
}

/** The chosen steps, read back one at a time from the spill; close() drops the spill. */
export interface Selection {
  cases: number;
  chosen(k: number): Chosen;
  skipped: number;
  steps: number;
  rows: number;
  close(): void;
}

/**
 * Pass 1 and selection (see the module comment). Nothing per pair but a few numbers stays in memory:
 * the choices are read back from the spill by `chosen(k)`, in input order.
 */
export function selectFromStore(
  o: ScanOptions,
  fd: number,
  keys: readonly PairKey[],
  losses: Map<string, number>,
  reasons: SelectReason[],
): Selection {
  const spill = new Spill();
  try {
    const p = scan(o, fd, keys, spill);
    const sel = {
      reasons,
      perDepth: o.perDepth ?? 5,
      judgeLossThreshold: o.judgeLoss ?? 0.2,
      seed: o.seed ?? 1,
    };
    const c = chooseSteps(p, losses, sel);
    const sampled = new Set<number>();
    if (reasons.includes("sample"))
      for (const i of samplePicks(
        c.depth.length,
        (i) => c.depth.at(i),
        (i) => c.ids[i] as string,
        sel.perDepth,
        sel.seed,
      ))
        sampled.add(i);
    c.ids.length = 0;
    const cases = new Column();
    for (let i = 0; i < c.depth.length; i++) if (c.reasoned.at(i) === 1 || sampled.has(i)) cases.push(i);
    return {
      cases: cases.length,
      chosen(k) {
        const i = cases.at(k);
        const x = spill.read(c.at.at(i), c.size.at(i)) as Chosen;
        if (sampled.has(i)) x.reasons.push("sample");
        return x;
      },
      skipped: c.skipped,
      steps: c.steps,
      rows: p.rows,
      close: () => spill.close(),
    };
  } catch (error) {
    spill.close();
    throw error;
  }
}

/** The case file name for a pair id: the id itself when file-safe, else a digest of it. */
export function caseId(pairId: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(pairId) ? pairId : `pair-${shortDigest(pairId)}`;
}

// `eval-steps harvest`: shadow pairs -> redacted step cases. One streamed pass over the store keeps
// only per-pair facts (hashes, offsets, calls), orders each session, drops auxiliary requests,
// byte-identical retries and arm-truncated steps, recovers production's action from the next request,
// selects; then the selected rows are re-read by offset, redacted and checked, staged in a private
// directory and moved into --out only when every case passed. Any failure writes nothing.
import { Buffer } from "node:buffer";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ConfigError, UpstreamError, UsageError } from "../errors.ts";
import { readLineAt } from "../pairs/lines.ts";
import { loadPairKey, type PairKey, pairDecoder, readPairs, rowError, wireProtocol } from "../pairs.ts";
import { assertCleanFast } from "../redact/clean.ts";
import { patternDetectors, REDACTION_RULES_VERSION, STRICT_DETECTORS } from "../redact/strict.ts";
import type { Detector } from "../redact.ts";
import { armAction, type RawCall } from "./action.ts";
import { SELECT_REASONS, type SelectReason, type StepCase, type StepProtocol } from "./case.ts";
import { buildCase } from "./harvest-case.ts";
import { judgeLoss, loadHistory } from "./history.ts";
import { type StepChoice, type StepView, selectSteps } from "./select.ts";
import { type RequestFacts, recoveredAction, requestFacts } from "./session.ts";
import { deriveSessionKey, hashSession, type SessionKey, shortDigest } from "./session-key.ts";

/** Everything harvest takes (the CLI flags, and what eval-mcp's eval_harvest passes). */
export interface HarvestOptions {
  pairs: string;
  pairKeyFiles?: readonly string[];
  /** Hashes session ids; default: derived from the first pair key (lib/steps/session-key.ts). */
  sessionKeyFile?: string;
  experiment: string;
  /** Required unless dryRun. */
  out?: string;
  history?: string;
  select?: readonly SelectReason[];
  perDepth?: number;
  judgeLoss?: number;
  keepFields?: readonly string[];
  redactPatterns?: readonly string[];
  seed?: number;
  dryRun?: boolean;
  /** The harvest time written to provenance (tests pin it). */
  now?: Date;
  /** Extra detectors for the final leak check only (tests plant one that must stop the harvest). */
  leakDetectors?: readonly Detector[];
}

/** What a case looks like in the preview: provenance and expected tool names, nothing else. */
export interface CasePreview {
  id: string;
  reasons: SelectReason[];
  expectedTools: string[];
  expectedFrom: "production" | "control";
  provenance: StepCase["provenance"];
}

/** The outcome: counts, the selection preview and (unless dry-run) the files written. */
export interface HarvestResult {
  experiment: string;
  dryRun: boolean;
  rows: number;
  steps: number;
  skippedInvalidExpected: number;
  cases: CasePreview[];
  written: string[];
}

/** The default --select. */
export const DEFAULT_SELECT: readonly SelectReason[] = ["diverged", "invalid-call", "premature-stop"];

/** What the second pass needs of a chosen pair: where its row is, and its ids. */
type Where = Pick<Meta, "id" | "session" | "line" | "offset" | "length" | "protocol">;

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

function checkOptions(o: HarvestOptions): { select: SelectReason[]; patterns: Detector[] } {
  const select = [...(o.select ?? DEFAULT_SELECT)];
  for (const r of select)
    if (!(SELECT_REASONS as readonly string[]).includes(r))
      throw new UsageError(
        `Cannot harvest: unknown --select reason "${r}" (expected ${SELECT_REASONS.join(", ")})`,
      );
  if (select.length === 0) throw new UsageError("Cannot harvest: --select is empty");
  if (select.includes("judge-loss") && !o.history)
    throw new UsageError("Cannot harvest: --select judge-loss needs --history (from eval-steps judge)");
  if (!o.experiment) throw new UsageError("Cannot harvest: --experiment is required");
  if (!o.dryRun && !o.out) throw new UsageError("Cannot harvest: --out is required unless --dry-run");
  const perDepth = o.perDepth ?? 5;
  if (!Number.isInteger(perDepth) || perDepth < 0)
    throw new UsageError(`Cannot harvest: --per-depth must be a whole number >= 0, got ${perDepth}`);
  const loss = o.judgeLoss ?? 0.2;
  if (!(loss >= 0 && loss <= 1))
    throw new UsageError(`Cannot harvest: --judge-loss must be in [0, 1], got ${loss}`);
  if (!Number.isSafeInteger(o.seed ?? 1))
    throw new UsageError(`Cannot harvest: --seed must be an integer, got ${o.seed}`);
  let patterns: Detector[];
  try {
    patterns = patternDetectors(o.redactPatterns ?? []);
  } catch (error) {
    throw new UsageError(`Cannot harvest: bad --redact-pattern: ${(error as Error).message}`);
  }
  for (const [i, p] of patterns.entries())
    if (new RegExp(p.pattern.source, p.pattern.flags.replace("g", "")).test(""))
      throw new UsageError(
        `Cannot harvest: --redact-pattern "${o.redactPatterns?.[i]}" matches the empty string`,
      );
  return { select, patterns };
}

function sessionKeyOf(o: HarvestOptions, keys: readonly PairKey[]): SessionKey {
  if (o.sessionKeyFile) {
    const k = loadPairKey(o.sessionKeyFile);
    return { kid: k.kid, key: k.key };
  }
  const first = keys[0];
  if (!first)
    throw new UsageError(
      "Cannot harvest: session ids are hashed with a key: give --pair-key-file or --session-key-file",
    );
  return deriveSessionKey(first);
}

/** Pass 1: every pair of the experiment as compact facts (the whole store is decoded: all or nothing). */
function scan(path: string, keys: readonly PairKey[], experiment: string): { metas: Meta[]; rows: number } {
  const metas: Meta[] = [];
  let rows = 0;
  for (const row of readPairs(path, keys)) {
    rows++;
    const p = row.pair;
    if (p.experiment !== experiment) continue;
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
function selectFromStore(
  o: HarvestOptions,
  keys: readonly PairKey[],
  losses: Map<string, number>,
  reasons: SelectReason[],
): { cases: StepChoice[]; skipped: number; byId: Map<string, Where>; steps: number; rows: number } {
  const { metas, rows } = scan(o.pairs, keys, o.experiment);
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

/** Harvests step cases from a pair store (see the module comment); throws ToolErrors with exit codes. */
export async function harvest(o: HarvestOptions): Promise<HarvestResult> {
  const { select, patterns } = checkOptions(o);
  const keys = (o.pairKeyFiles ?? []).map(loadPairKey);
  const sessionKey = sessionKeyOf(o, keys);
  const losses = new Map<string, number>();
  if (o.history)
    for (const e of loadHistory(o.history)) if (e.experiment === o.experiment) losses.set(e.id, judgeLoss(e));
  const { cases, skipped, byId, steps, rows } = selectFromStore(o, keys, losses, select);
  const harvestedAt = (o.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  const provenanceOf = (c: StepChoice): StepCase["provenance"] => {
    const m = byId.get(c.view.pairId) as Where;
    return {
      pairId: m.id,
      experiment: o.experiment,
      session: hashSession(sessionKey, m.session),
      depth: c.view.depth,
      harvestedAt,
      redaction: REDACTION_RULES_VERSION,
    };
  };
  const previews: CasePreview[] = cases.map((c) => ({
    id: caseId(c.view.pairId),
    reasons: c.reasons,
    expectedTools: c.expected.map((x) => x.name),
    expectedFrom: c.expectedFrom,
    provenance: provenanceOf(c),
  }));
  const result = {
    experiment: o.experiment,
    dryRun: o.dryRun === true,
    rows,
    steps,
    skippedInvalidExpected: skipped,
    cases: previews,
  };
  if (o.dryRun) return { ...result, written: [] };
  const detectors = [...STRICT_DETECTORS, ...patterns];
  const leakCheck = [...detectors, ...(o.leakDetectors ?? [])];
  const reread = rereader(o.pairs, keys);
  try {
    const written = writeCases(o.out as string, cases, (c) => {
      const m = byId.get(c.view.pairId) as Where;
      const pair = reread(m);
      const built = buildCase(c, pair.request, m.protocol, caseId(m.id), provenanceOf(c), {
        detectors,
        keepFields: o.keepFields ?? [],
      });
      assertCleanFast(built.scanned, leakCheck, `case "${built.case.id}"`);
      return built.case;
    });
    return { ...result, written };
  } finally {
    reread.close();
  }
}

/** Re-reads selected rows by offset through one descriptor and one decoder (opened on first use). */
function rereader(path: string, keys: readonly PairKey[]) {
  const decode = pairDecoder(keys);
  let fd: number | undefined;
  const read = (m: Where) => {
    if (fd === undefined)
      try {
        fd = openSync(path, "r");
      } catch (error) {
        throw new ConfigError(
          `Cannot read pair store "${path}": ${(error as NodeJS.ErrnoException).code ?? "error"}`,
        );
      }
    try {
      const pair = decode(readLineAt(fd, m.offset, m.length)).pair;
      // The store was rewritten between the two passes (a prune, not an append): never mix two stores.
      if (pair.id !== m.id) throw new Error(`the store changed while harvesting (expected pair "${m.id}")`);
      return pair;
    } catch (error) {
      throw rowError(path, m.line, error);
    }
  };
  return Object.assign(read, {
    close: () => {
      if (fd !== undefined) closeSync(fd);
    },
  });
}

/** A new private file (O_EXCL): open, write, close; writeFileSync adds a truncate per file. */
function writeNew(path: string, text: string): void {
  const buf = Buffer.from(text, "utf8");
  const fd = openSync(path, "wx", 0o600);
  try {
    for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
  } finally {
    closeSync(fd);
  }
}

/** Builds every case into a private staging directory, then moves them all into `out`; else nothing. */
function writeCases(out: string, cases: StepChoice[], build: (c: StepChoice) => StepCase): string[] {
  let stage: string;
  try {
    mkdirSync(out, { recursive: true, mode: 0o700 });
    chmodSync(out, 0o700); // cases quote real traffic: the suite directory is private
    stage = mkdtempSync(join(out, ".harvest-"));
    chmodSync(stage, 0o700);
  } catch (error) {
    throw new UpstreamError(
      `Cannot write cases to "${out}": ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  try {
    const names: string[] = [];
    for (const c of cases) {
      const sc = build(c);
      const name = `${sc.id}.json`;
      writeNew(join(stage, name), `${JSON.stringify(sc, null, 2)}\n`);
      names.push(name);
    }
    const written: string[] = [];
    for (const name of names) {
      renameSync(join(stage, name), join(out, name));
      written.push(join(out, name));
    }
    return written;
  } catch (error) {
    if (error instanceof Error && "exitCode" in error) throw error;
    throw new UpstreamError(
      `Cannot write cases to "${out}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

// `eval-steps harvest`: shadow pairs -> redacted step cases. Pass 1 and selection are in
// lib/steps/harvest-scan.ts; this module checks the options, loads keys and the judge history, opens
// the store once (both passes read that one descriptor), re-reads the selected rows by offset, redacts
// and checks each case, and hands them to lib/steps/harvest-files.ts, which publishes --out in one
// rename. Any failure writes nothing.
import { closeSync } from "node:fs";
import { accessProblem } from "../core/confined.ts";
import { ConfigError, UsageError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { assertCleanFast } from "../redact/clean.ts";
import type { Detector } from "../redact/index.ts";
import { patternDetectors, REDACTION_RULES_VERSION, STRICT_DETECTORS } from "../redact/strict.ts";
import { SELECT_REASONS, type SelectReason } from "./case.ts";
import { buildCase } from "./harvest-case.ts";
import { checkOut, type HarvestFiles, plainFiles, publishCases } from "./harvest-files.ts";
import {
  type CasePreview,
  collectResult,
  type HarvestResult,
  type HarvestRun,
  lazyResult,
} from "./harvest-result.ts";
import {
  bytePacer,
  type Chosen,
  caseId,
  type ScanOptions,
  type Selection,
  selectFromStore,
  type Where,
} from "./harvest-scan.ts";
import { type HistoryEntry, judgeLoss, originalNote, readHistory } from "./history.ts";
import { loadPairKey, type PairKey, pairDecoder, rowError } from "./pairs/index.ts";
import { readLineAt } from "./pairs/lines.ts";
import { deriveSessionKey, hashSession, type SessionKey } from "./session-key.ts";

export type { CasePreview, HarvestResult, HarvestRun } from "./harvest-result.ts";
export { caseId } from "./harvest-scan.ts";

/** Everything harvest takes (the CLI flags, and what eval-mcp's eval_harvest passes). */
export interface HarvestOptions extends ScanOptions {
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
  /** Longest store row in bytes (default DEFAULT_MAX_ROW_BYTES, lib/steps/pairs/index.ts). */
  maxRowBytes?: number;
  /** How files are opened (default: the paths as given; eval-mcp confines them under its root). */
  files?: HarvestFiles;
  /** Receives the largest read buffer held while scanning the store (tests bound memory with it). */
  stats?: { peakBuffer: number };
}

/** The default --select. */
export const DEFAULT_SELECT: readonly SelectReason[] = ["diverged", "invalid-call", "premature-stop"];

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
  // The numbers are checked by the one numeric parser, so a caller (eval-mcp) reads the flags' messages.
  numberFlag("--max-row-bytes", o.maxRowBytes, { min: 1 });
  numberFlag("--per-depth", o.perDepth, { min: 0, fallback: 5 });
  numberFlag("--judge-loss", o.judgeLoss, { integer: false, min: 0, max: 1, fallback: 0.2 });
  numberFlag("--seed", o.seed);
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

function sessionKeyOf(o: HarvestOptions, keys: readonly PairKey[], files: HarvestFiles): SessionKey {
  if (o.sessionKeyFile) {
    const k = loadPairKey(o.sessionKeyFile, files.read);
    return { kid: k.kid, key: k.key };
  }
  const first = keys[0];
  if (!first)
    throw new UsageError(
      "Cannot harvest: session ids are hashed with a key: give --pair-key-file or --session-key-file (eval-steps keygen --out FILE makes one)",
    );
  return deriveSessionKey(first);
}

/** The judge losses of the experiment from --history (a missing file is an empty history). */
function lossesOf(o: HarvestOptions, files: HarvestFiles): Map<string, number> {
  const losses = new Map<string, number>();
  if (!o.history) return losses;
  let entries: HistoryEntry[] = [];
  let text: string | undefined;
  try {
    text = files.read(o.history, HISTORY_MAX_BYTES).toString("utf8");
  } catch (error) {
    const missing = (error as { reason?: string; code?: string }).reason === "missing";
    if (!missing && (error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new ConfigError(`Cannot read history "${o.history}": ${accessProblem(error)}`, { cause: error });
  }
  if (text !== undefined) {
    // The original's lines are aggregate readings without a per-pair score: said once, then ignored.
    const lines = readHistory(text, o.history);
    entries = lines.entries;
    const note = originalNote(o.history, lines.original);
    if (note !== undefined) createLogger("eval-steps").warn(note);
  }
  for (const e of entries) if (e.experiment === o.experiment) losses.set(e.id, judgeLoss(e));
  return losses;
}

/** The largest judge history read whole (one line per judged pair: far beyond any real history). */
const HISTORY_MAX_BYTES = 256 << 20;

/** Opens the store once: both passes read this descriptor, so the file cannot be swapped between them. */
function openStore(o: HarvestOptions, files: HarvestFiles): number {
  try {
    return files.open(o.pairs).fd;
  } catch (error) {
    throw new ConfigError(`Cannot read pair store "${o.pairs}": ${accessProblem(error)}`, { cause: error });
  }
}

/** Refuses a non-empty --out before the store is read (publishCases checks again at the rename). */
function checkOutEarly(o: HarvestOptions, files: HarvestFiles): void {
  if (o.dryRun || !o.out) return;
  let parent: ReturnType<HarvestFiles["outParent"]>;
  try {
    parent = files.outParent(o.out);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Cannot write cases to "${o.out}": ${accessProblem(error)}`, { cause: error });
  }
  try {
    checkOut(parent.dir, parent.name, o.out);
  } finally {
    closeSync(parent.dir.fd);
  }
}

/** Harvests step cases from a pair store (see the module comment); throws ToolErrors with exit codes. */
export async function harvest(o: HarvestOptions): Promise<HarvestResult> {
  using r = await harvestRun(o);
  return collectResult(r);
}

/**
 * The same harvest, its previews left in the spill and read back on demand (memory flat in the case
 * count): the CLI streams its output from them. Dispose the outcome to drop the spill.
 */
export async function harvestRun(o: HarvestOptions): Promise<HarvestRun> {
  const { select, patterns } = checkOptions(o);
  const files = o.files ?? plainFiles;
  const keys = (o.pairKeyFiles ?? []).map((p) => loadPairKey(p, files.read));
  const sessionKey = sessionKeyOf(o, keys, files);
  const losses = lossesOf(o, files);
  checkOutEarly(o, files);
  const fd = openStore(o, files);
  let selection: Selection | undefined;
  try {
    selection = selectFromStore(o, fd, keys, losses, select);
    return publishFrom(o, fd, { keys, sessionKey, patterns, files }, selection);
  } catch (error) {
    selection?.close();
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** Writes the cases (unless dry-run); the outcome keeps `selection` open for its previews. */
function publishFrom(
  o: HarvestOptions,
  fd: number,
  x: { keys: readonly PairKey[]; sessionKey: SessionKey; patterns: Detector[]; files: HarvestFiles },
  selection: Selection,
): HarvestRun {
  const harvestedAt = (o.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  const preview = (c: Chosen): CasePreview => ({
    id: caseId(c.where.id),
    reasons: c.reasons,
    expectedTools: c.expected.map((x) => x.name),
    expectedFrom: c.expectedFrom,
    provenance: {
      pairId: c.where.id,
      experiment: o.experiment,
      session: hashSession(x.sessionKey, c.where.session),
      depth: c.depth,
      harvestedAt,
      redaction: REDACTION_RULES_VERSION,
    },
  });
  const counts = {
    experiment: o.experiment,
    dryRun: o.dryRun === true,
    rows: selection.rows,
    steps: selection.steps,
    skippedInvalidExpected: selection.skipped,
  };
  const done = () =>
    lazyResult(
      counts,
      selection.cases,
      (k) => preview(selection.chosen(k)),
      o.out,
      () => selection.close(),
    );
  if (o.dryRun) return done();
  const detectors = [...STRICT_DETECTORS, ...x.patterns];
  // The same table as the redaction unless tests plant more: findStrict's memo (lib/redact/strict.ts)
  // is per table, so the re-scan of every string the redaction left unchanged is a lookup.
  const leakCheck = o.leakDetectors?.length ? [...detectors, ...o.leakDetectors] : detectors;
  const reread = rereader(o.pairs, fd, x.keys);
  const pace = bytePacer(); // more often costs more CPU than it saves memory (a full collection here is ~60 ms)
  function* built() {
    for (let k = 0; k < selection.cases; k++) {
      const c = selection.chosen(k);
      const m = c.where;
      pace(m.length);
      const b = buildCase(c, reread(m).request, m.protocol, caseId(m.id), preview(c).provenance, {
        detectors,
        keepFields: o.keepFields ?? [],
      });
      assertCleanFast(b.scanned, leakCheck, `case "${b.case.id}"`);
      yield { name: `${b.case.id}.json`, text: `${JSON.stringify(b.case, null, 2)}\n` };
    }
  }
  publishCases(x.files, o.out as string, built()); // its paths are remade from the previews
  return done();
}

/** Re-reads selected rows by offset through the store's descriptor and one decoder. */
function rereader(path: string, fd: number, keys: readonly PairKey[]) {
  const decode = pairDecoder(keys);
  return (m: Where) => {
    try {
      const pair = decode(readLineAt(fd, m.offset, m.length)).pair;
      // The store was rewritten in place between the two passes: never mix two stores.
      if (pair.id !== m.id) throw new Error(`the store changed while harvesting (expected pair "${m.id}")`);
      return pair;
    } catch (error) {
      throw rowError(path, m.line, error);
    }
  };
}

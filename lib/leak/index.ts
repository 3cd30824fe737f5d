// Leak detection for the promotion lane: the pre-run held-out check (an arm's skills/ must not carry
// the rubric canary or the task prompt), the criteria-shingle check, the staging check and the
// post-run scan of a run root. Pure library code: it reads files and returns offenders; the driver
// decides exit codes and wording. Files are read in fixed-size chunks with a bounded carry, so size
// is no limit and a match across a chunk boundary is still found.
//
// Tokenisation is the original's (agent_eval.py): words = re.findall(r"[a-z0-9]+", text.lower()),
// i.e. Unicode lowercase, then maximal runs of ASCII a-z/0-9; everything else separates words. A
// shingle is 8 consecutive words, keyed here as the words joined by one space. Shingle checks apply
// only to files that decode as UTF-8 (as in the original); the canary is looked for in every file.
// Every scan also compares normalised text (lib/leak/_normalize.ts: format characters dropped, NFKC,
// look-alikes to Latin) with the normalised needles, and decodes base64/hex runs of 16+ characters
// (lib/leak/_decode.ts); what the raw comparison finds is still found (lib/leak/_scan.ts). The
// canary is also looked for in its fixed encodings (UTF-16/32, ROT13, reversed, base32), written
// with escapes (backslash, HTML references, percent), and cut in two across the files of one scan.
// Compressed git objects are read as the bytes they are, never inflated.
import { Buffer } from "node:buffer";
import { constants, readSync } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { basename } from "node:path";
import { sha256 } from "../core/hash.ts";
import { normalizeText } from "./_normalize.ts";
import { MIN_PIECE } from "./_pieces.ts";
import { FileScan, type Needles, needles } from "./_scan.ts";
import { type WalkEntry, walkRunRoot } from "./walk.ts";

export { MIN_PIECE, type WalkEntry, walkRunRoot };

/** Words per shingle. */
export const SHINGLE_WORDS = 8;
/** Bytes per read; the carry between reads is bounded by the canary and the longest key. */
export const CHUNK_BYTES = 1 << 20;

export type LeakKind = "canary" | "held-out" | "criteria-shingle" | "rubric-copy" | "unreadable";

/** One file that leaks; `criterion` is set for `criteria-shingle`, `split` for a piece of a cut canary. */
export interface Offender {
  path: string;
  kind: LeakKind;
  criterion?: string;
  split?: true;
}

export interface Criterion {
  id: string;
  text: string;
}

/** What to look for; every part is optional, so one spec serves each stage. */
export interface LeakSpec {
  /** Raw byte substring, in every file (empty: no canary check). */
  canary?: string;
  /** From promptShingles(prompt): held-out check, UTF-8 files only. */
  promptShingles?: ReadonlySet<string>;
  /** Any 8-word shingle of a criterion, UTF-8 files only. */
  criteria?: readonly Criterion[];
  /** Hex sha256 of the rubric file (any case): a byte-for-byte copy is a leak (staging check). */
  rubricSha256?: string;
}

/** A file to scan: `path` is what offenders report, `abs` where it is read. */
export interface ScanTarget {
  path: string;
  abs: string;
  /** false: canary (and rubric copy) only, no shingle checks. Default true. */
  shingles?: boolean;
}

export interface LeakReport {
  offenders: Offender[];
  /** Sockets, FIFOs and devices: listed, never opened. */
  skipped: string[];
}

/** The words of `text`, exactly as the original tokenises. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Every run of `n` consecutive words of `text`, each joined by one space. Fewer words: none. */
export function shingles(text: string, n = SHINGLE_WORDS): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) out.add(w.slice(i, i + n).join(" "));
  return out;
}

/**
 * The held-out keys of a prompt: its 8-word shingles, or, when it has fewer than 8 words, all its
 * words as one key (the original's "prompt-text" case); those of the prompt as given and of its
 * normalised form (lib/leak/_normalize.ts). Matched as whole consecutive words; the original
 * compared joined strings, which would also flag a word inside a longer one.
 */
export function promptShingles(prompt: string): Set<string> {
  const keys = (text: string): Set<string> => {
    const w = words(text);
    return w.length > 0 && w.length < SHINGLE_WORDS ? new Set([w.join(" ")]) : shingles(text);
  };
  return new Set([...keys(prompt), ...keys(normalizeText(prompt))]);
}

const HELD_OUT = "\u0000held-out";

function keyTable(spec: LeakSpec): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const add = (key: string, value: string) => {
    const values = table.get(key);
    if (!values) table.set(key, [value]);
    else if (!values.includes(value)) values.push(value);
  };
  for (const key of spec.promptShingles ?? []) add(key, HELD_OUT);
  for (const c of spec.criteria ?? []) {
    for (const key of shingles(c.text)) add(key, c.id);
    for (const key of shingles(normalizeText(c.text))) add(key, c.id);
  }
  return table;
}

/** The longest prefix and suffix of the normalised canary a file holds (bytes). */
interface Pieces {
  prefix: number;
  suffix: number;
}

type Outcome =
  | { kind: "special" }
  | { kind: "unreadable" }
  | { kind: "read"; offenders: Offender[]; pieces?: Pieces };

async function scanFile(target: ScanTarget, spec: LeakSpec, needles: Needles, buf: Buffer): Promise<Outcome> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    const st = await lstat(target.abs);
    if (st.isSymbolicLink()) return { kind: "read", offenders: [] }; // never followed
    if (st.isDirectory()) return { kind: "unreadable" }; // the walker yields one only when it cannot list it
    if (!st.isFile()) return { kind: "special" };
    fh = await open(target.abs, flags);
  } catch {
    return { kind: "unreadable" };
  }
  try {
    if (!(await fh.stat()).isFile()) return { kind: "special" }; // swapped since the lstat
    const scan = new FileScan(needles, target.shingles !== false);
    const hash = spec.rubricSha256 ? sha256() : undefined;
    // Read in place, not through the promise API: scanning a chunk already holds the thread for
    // milliseconds, and a synchronous read costs less CPU than a trip to the I/O threads (5% of the scan).
    const fd = fh.fd;
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      scan.push(chunk);
      hash?.update(chunk);
    }
    scan.end();
    const offenders: Offender[] = [];
    const path = target.path;
    if (scan.canaryFound) offenders.push({ path, kind: "canary" });
    const hits = scan.hits;
    if (hits.has(HELD_OUT)) offenders.push({ path, kind: "held-out" });
    for (const c of spec.criteria ?? []) {
      if (hits.has(c.id)) offenders.push({ path, kind: "criteria-shingle", criterion: c.id });
    }
    if (hash && hash.digest("hex") === spec.rubricSha256?.toLowerCase()) {
      offenders.push({ path, kind: "rubric-copy" });
    }
    const pieces = scan.canaryFound ? undefined : { prefix: scan.pieces.prefix, suffix: scan.pieces.suffix };
    return { kind: "read", offenders, ...(pieces ? { pieces } : {}) };
  } catch {
    return { kind: "unreadable" };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * Scans each target in order. Offenders come per file in target order, then canary, held-out,
 * criteria (in `spec.criteria` order), rubric-copy; a file that cannot be opened or read is one
 * `unreadable` offender (a read that fails midway reports only that), and so is a directory
 * (walkRunRoot yields one only when it cannot list it). A symlink target is ignored, never followed.
 */
export async function findLeaks(
  spec: LeakSpec,
  files: Iterable<ScanTarget> | AsyncIterable<ScanTarget>,
  opts: { chunkBytes?: number } = {},
): Promise<LeakReport> {
  const keys = needles(spec.canary ?? "", keyTable(spec));
  const chunkBytes = Math.max(1, opts.chunkBytes ?? CHUNK_BYTES);
  const report: LeakReport = { offenders: [], skipped: [] };
  const buf = Buffer.allocUnsafe(chunkBytes); // one read buffer for every file: files are scanned one at a time
  const pieces: (Pieces & { path: string })[] = [];
  for await (const target of files) {
    const outcome = await scanFile(target, spec, keys, buf);
    if (outcome.kind === "special") report.skipped.push(target.path);
    else if (outcome.kind === "unreadable") report.offenders.push({ path: target.path, kind: "unreadable" });
    else {
      report.offenders.push(...outcome.offenders);
      if (outcome.pieces) pieces.push({ path: target.path, ...outcome.pieces });
    }
  }
  report.offenders.push(...splitCanary(pieces, keys.canaryNormalized.length));
  return report;
}

/**
 * The files holding a piece of a canary cut in two (`n` bytes): a prefix of at least MIN_PIECE
 * bytes that some file's suffix of at least MIN_PIECE bytes completes (the same file's too), and
 * that suffix. Only files without the whole canary are asked.
 */
function splitCanary(files: readonly (Pieces & { path: string })[], n: number): Offender[] {
  const piece = (len: number) => (len >= MIN_PIECE ? len : 0);
  const maxPrefix = Math.max(0, ...files.map((f) => piece(f.prefix)));
  const maxSuffix = Math.max(0, ...files.map((f) => piece(f.suffix)));
  if (n < 2 * MIN_PIECE || maxPrefix === 0 || maxSuffix === 0 || maxPrefix + maxSuffix < n) return [];
  return files
    .filter(
      (f) =>
        (piece(f.prefix) > 0 && f.prefix + maxSuffix >= n) ||
        (piece(f.suffix) > 0 && f.suffix + maxPrefix >= n),
    )
    .map((f) => ({ path: f.path, kind: "canary", split: true }));
}

/** A rubric as the leak checks need it. */
export interface LeakRubric {
  canary: string;
  criteria: readonly Criterion[];
}

/** A pre-run offender: which arm's skills carry it. */
export interface ArmOffender extends Offender {
  arm: string;
}

/**
 * The pre-run held-out and criteria-shingle checks over one arm's extracted skills directory.
 * Paths are relative to the directory's parent (`skills/demo/NOTES.md`).
 */
export async function scanSkills(
  arm: string,
  dir: string,
  rubric: LeakRubric,
  prompt: string,
  opts: { chunkBytes?: number } = {},
): Promise<{ offenders: ArmOffender[]; skipped: string[] }> {
  const prefix = basename(dir);
  const targets = function* (): Generator<ScanTarget> {
    for (const e of walkRunRoot(dir)) yield { path: `${prefix}/${e.path}`, abs: e.abs };
  };
  const spec: LeakSpec = {
    canary: rubric.canary,
    promptShingles: promptShingles(prompt),
    criteria: rubric.criteria,
  };
  const report = await findLeaks(spec, targets(), opts);
  return { offenders: report.offenders.map((o) => ({ arm, ...o })), skipped: report.skipped };
}

/**
 * The post-run scan: every regular file under `root` for the canary, and the files `shingled`
 * accepts (the driver's transcripts, call log and out/ files) also for criteria shingles.
 */
export function scanRunRoot(
  root: string,
  rubric: LeakRubric,
  shingled: (path: string) => boolean,
  opts: { chunkBytes?: number } = {},
): Promise<LeakReport> {
  const targets = function* (): Generator<ScanTarget> {
    for (const e of walkRunRoot(root)) yield { path: e.path, abs: e.abs, shingles: shingled(e.path) };
  };
  return findLeaks({ canary: rubric.canary, criteria: rubric.criteria }, targets(), opts);
}

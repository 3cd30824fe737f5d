// The index a runner builds once for its own cassette copy (run-eval: WORK/cassettes.json). Inside
// the sandbox the shim's per-user cache never helps: the copy is a new inode written a moment ago (the
// settle rule) and the cache would sit in the sandbox's private /tmp, so every gh call re-parsed the
// whole cassette. The runner knows its copy is final once the work directory is prepared, so it writes
// the index beside it (`.cassettes.json.idx`, see sidecarPath) keyed by the copy's stamps, and binds it
// read-only into the sandbox: the subject can read it but neither change nor replace it. A subject that
// changes the cassette changes its stamps, so the shim parses the bytes as before; every hit is read
// from the cassette's bytes anyway. Small cassettes (parsed whole by the shim) get no index.
// The runner's own cost is kept off the case: the index is kept in the per-user cache under the stamp
// of the case's own cassette when the copy provably holds its bytes (stamped before the copy, settled,
// unchanged after it: the very entry a replay of that file would use), else under the SHA-256 of the
// copy, so a cassette is parsed once per version and a warm case reads no cassette byte at all.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fsx.ts";
import { sha256Hex } from "../../core/hash.ts";
import { type FileStat, statFileSync } from "../../core/runtime.ts";
import { decodeCassette, parseCassette } from "../cassette.ts";
import { cassetteStamp, MAGIC, sidecarPath } from "./_index-format.ts";
import { defaultCacheDir } from "./cache-dir.ts";
import { buildIndex, prune } from "./replay-index.ts";

/** Cassettes at least this large get an index (the shim's own threshold). */
export const INDEX_ABOVE = 64 * 1024;

/** The case's own cassette as stat'ed before the runner copied it (stampSource). */
export interface SourceStamp {
  path: string;
  st: FileStat;
  /** When it was stat'ed, ms since the epoch. */
  at: number;
}

/** Options for writeCaseIndex; tests lower the threshold and point the cache elsewhere. */
export interface CaseIndexOptions {
  indexAbove?: number;
  /** The runner's cache of built indexes; null: none (default: the shim's per-user cache dir). */
  cacheDir?: string | null;
  /** The file the copy was made from, stamped before the copy: its stamp keys the cache. */
  source?: SourceStamp | null;
  /** How long the source must have stood unchanged before it was stamped (default 2000 ms). */
  settleMs?: number;
}

/** Stats the case's own cassette; call it before copying, and pass it to writeCaseIndex. */
export function stampSource(path: string): SourceStamp | null {
  const at = Date.now();
  const st = statFileSync(path);
  return st?.isFile ? { path, st, at } : null;
}

/**
 * Writes the index of the final cassette copy at `path` beside it (mode 0444) and returns its path,
 * or null when the copy is small, invalid (the shim reports that itself) or cannot be indexed.
 */
export function writeCaseIndex(path: string, opts: CaseIndexOptions = {}): string | null {
  try {
    const st = statFileSync(path);
    if (!st?.isFile || st.size < (opts.indexAbove ?? INDEX_ABOVE)) return null;
    let key = sourceKey(st, opts.source, opts.settleMs ?? 2000);
    let bytes: Buffer | undefined;
    if (!key) {
      bytes = readFileSync(path);
      key = sha256Hex(bytes).slice(0, 16); // same length as a stamp: the header keeps its shape
    }
    const dir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
    const cached = dir ? join(dir, `${key}.idx`) : null;
    let index = cached ? readOrEmpty(cached) : "";
    if (!index.startsWith(`${MAGIC} ${key} `)) {
      bytes ??= readFileSync(path);
      // as the shim reads it: invalid UTF-8 throws (and the shim reports it), a BOM stays
      index = buildIndex(bytes, parseCassette(decodeCassette(bytes, path), path), key);
      if (dir && cached) {
        try {
          writeFileAtomic(cached, index, { mode: 0o600 });
          prune(dir);
        } catch {
          // a cache we cannot write only costs the next case a parse
        }
      }
    }
    const file = sidecarPath(path);
    writeFileSync(file, index.replace(` ${key} `, ` ${cassetteStamp(st)} `), { mode: 0o444, flag: "wx" });
    // the copy must still be the one indexed (nothing else writes WORK before the subject starts)
    const after = statFileSync(path);
    return after && cassetteStamp(after) === cassetteStamp(st) ? file : null;
  } catch {
    return null; // no index only costs the subject's gh calls time
  }
}

/**
 * The source's stamp when the copy (`copy`) holds exactly its bytes: it had stood unchanged for
 * `settleMs` when stamped, is unchanged now (a write in between, the copy's included, would have moved
 * its ctime past the stamp), and is the copy's size. Null otherwise: the copy is hashed instead.
 */
function sourceKey(copy: FileStat, source: SourceStamp | null | undefined, settleMs: number): string | null {
  if (!source) return null;
  const settled = source.at - settleMs;
  if (source.st.mtimeMs >= settled || source.st.ctimeMs >= settled) return null;
  const now = statFileSync(source.path);
  if (!now || cassetteStamp(now) !== cassetteStamp(source.st) || now.size !== copy.size) return null;
  return cassetteStamp(source.st);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

// The index a runner builds once for its own cassette copy (run-eval: WORK/cassettes.json). Inside
// the sandbox the shim's per-user cache never helps: the copy is a new inode written a moment ago (the
// settle rule) and the cache would sit in the sandbox's private /tmp, so every gh call re-parsed the
// whole cassette. The runner knows its copy is final once the work directory is prepared, so it writes
// the index beside it (`.cassettes.json.idx`, see sidecarPath) keyed by the copy's stamps, and binds it
// read-only into the sandbox: the subject can read it but neither change nor replace it. A subject that
// changes the cassette changes its stamps, so the shim parses the bytes as before; every hit is read
// from the cassette's bytes anyway. Small cassettes (parsed whole by the shim) get no index. The
// runner's own cost is a SHA-256 of the copy when the same bytes were indexed before: the index is kept
// in the runner's per-user cache under the content's digest, so a cassette is parsed once per version.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fsx.ts";
import { sha256Hex } from "../../core/hash.ts";
import { parseCassette } from "../cassette.ts";
import { buildIndex, cassetteStamp, defaultCacheDir, prune, sidecarPath } from "./replay-cache.ts";

/** Cassettes at least this large get an index (the shim's own threshold). */
export const INDEX_ABOVE = 64 * 1024;

/** Options for writeCaseIndex; tests lower the threshold and point the cache elsewhere. */
export interface CaseIndexOptions {
  indexAbove?: number;
  /** The runner's cache of built indexes; null: none (default: the shim's per-user cache dir). */
  cacheDir?: string | null;
}

/**
 * Writes the index of the final cassette copy at `path` beside it (mode 0444) and returns its path,
 * or null when the copy is small, invalid (the shim reports that itself) or cannot be indexed.
 */
export function writeCaseIndex(path: string, opts: CaseIndexOptions = {}): string | null {
  try {
    const st = statSync(path, { bigint: true });
    if (!st.isFile() || st.size < BigInt(opts.indexAbove ?? INDEX_ABOVE)) return null;
    const bytes = readFileSync(path);
    const key = sha256Hex(bytes).slice(0, 16); // same length as a stamp: the header keeps its shape
    const dir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
    const cached = dir ? join(dir, `${key}.idx`) : null;
    let index = cached ? readOrEmpty(cached) : "";
    if (!index.startsWith("proctor-cassette-index-") || index.split(" ", 2)[1] !== key) {
      // as the shim reads it: invalid UTF-8 throws (and the shim reports it), a BOM stays
      const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
      index = buildIndex(bytes, parseCassette(text, path), key);
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
    return cassetteStamp(statSync(path, { bigint: true })) === cassetteStamp(st) ? file : null;
  } catch {
    return null; // no index only costs the subject's gh calls time
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

// The index a runner builds once for its own cassette copy (run-eval: WORK/cassettes.json). Inside
// the sandbox the shim's per-user cache never helps: the copy is a new inode written a moment ago (the
// settle rule) and the cache would sit in the sandbox's private /tmp, so every gh call re-parsed the
// whole cassette. The runner knows its copy is final once the work directory is prepared, so it writes
// the index beside it (`.cassettes.json.idx`, see sidecarPath) keyed by the copy's stamps, and binds it
// read-only into the sandbox: the subject can read it but neither change nor replace it. A subject that
// changes the cassette changes its stamps, so the shim parses the bytes as before; every hit is read
// from the cassette's bytes anyway. Small cassettes (parsed whole by the shim) get no index.
import { statSync } from "node:fs";
import { writeFileAtomic } from "../../core/fsx.ts";
import { parseCassette, readCassetteText } from "../cassette.ts";
import { buildIndex, cassetteStamp, sidecarPath } from "./replay-cache.ts";

/** Cassettes at least this large get an index (the shim's own threshold). */
export const INDEX_ABOVE = 64 * 1024;

/**
 * Writes the index of the final cassette copy at `path` beside it (mode 0444) and returns its path,
 * or null when the copy is small, invalid (the shim reports that itself) or cannot be indexed.
 */
export function writeCaseIndex(path: string, indexAbove = INDEX_ABOVE): string | null {
  try {
    const st = statSync(path, { bigint: true });
    if (!st.isFile() || st.size < BigInt(indexAbove)) return null;
    const text = readCassetteText(path);
    const cassette = { ...parseCassette(text, path), text };
    const file = sidecarPath(path);
    writeFileAtomic(file, buildIndex(Buffer.from(text, "utf8"), cassette, cassetteStamp(st)), {
      mode: 0o444,
    });
    // the copy must still be the one indexed (nothing else writes WORK before the subject starts)
    return cassetteStamp(statSync(path, { bigint: true })) === cassetteStamp(st) ? file : null;
  } catch {
    return null; // no index only costs the subject's gh calls time
  }
}

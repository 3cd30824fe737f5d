// What the two sides of a cassette index agree on (replay-cache.ts reads it on every gh call,
// replay-index.ts and case-index.ts write it): the file's first word and row width, the stamp that
// names the cassette state it was built for, and where a runner keeps one beside its copy.
// No imports beyond the runtime seam: the replay path loads this.
import { type FileStat, fastHash } from "../../core/runtime.ts";

/** The index file's first word; v3: stamps from runtime.statFile (ms). */
export const MAGIC = "proctor-cassette-index-v3";
/** One row: hash index start end\n. */
export const ROW = 16 + 1 + 10 + 1 + 10 + 1 + 10 + 1;

/** A cassette's identity and change stamps (dev, inode, size, mtime, ctime), hashed. */
export function cassetteStamp(st: FileStat): string {
  return fastHash(`${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);
}

/** Where a runner leaves the index of its cassette copy: `.<name>.idx` in the same directory. */
export function sidecarPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.idx`;
}

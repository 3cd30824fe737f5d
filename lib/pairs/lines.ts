// Line-by-line reading of a large JSONL file in fixed-size chunks, with each line's byte offset and
// length, so a caller can stream a 200 MB store in flat memory and later re-read just the lines it
// picked. Synchronous on purpose: one reader, no interleaving, and it is faster than a stream.
import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";

/** One line: its 1-based number, byte offset, byte length (without the newline) and text. */
export interface Line {
  n: number;
  offset: number;
  length: number;
  text: string;
}

const CHUNK = 1 << 20;

/** Every line of the file at `path` (a final line without a newline included; CR before LF dropped). */
export function* readLines(path: string): Generator<Line> {
  const fd = openSync(path, "r");
  try {
    let buf = Buffer.alloc(CHUNK);
    let filled = 0; // bytes of buf holding unread data
    let base = 0; // file offset of buf[0]
    let n = 0;
    for (;;) {
      if (filled === buf.length) {
        const bigger = Buffer.alloc(buf.length * 2); // one line longer than the buffer
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const got = readSync(fd, buf, filled, buf.length - filled, base + filled);
      const end = filled + got;
      let start = 0;
      for (let nl = buf.indexOf(10, filled); nl !== -1 && nl < end; nl = buf.indexOf(10, start)) {
        const stop = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
        yield { n: ++n, offset: base + start, length: stop - start, text: buf.toString("utf8", start, stop) };
        start = nl + 1;
      }
      if (got === 0) {
        if (start < end)
          yield { n: ++n, offset: base + start, length: end - start, text: buf.toString("utf8", start, end) };
        return;
      }
      buf.copy(buf, 0, start, end);
      base += start;
      filled = end - start;
    }
  } finally {
    closeSync(fd);
  }
}

/** Re-reads one line by its offset and length (from a `Line` of an earlier pass). */
export function readLineAt(fd: number, offset: number, length: number): string {
  const buf = Buffer.alloc(length);
  let at = 0;
  while (at < length) {
    const got = readSync(fd, buf, at, length - at, offset + at);
    if (got === 0) break;
    at += got;
  }
  return buf.toString("utf8", 0, at);
}

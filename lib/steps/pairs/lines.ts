// Line-by-line reading of a large JSONL file in fixed-size chunks, with each line's byte offset and
// length, so a caller can stream a 200 MB store in flat memory and later re-read just the lines it
// picked. A line longer than `maxLine` stops the read (LineTooLongError naming it) before more than
// the cap is buffered: memory stays bounded whatever the file holds. Synchronous on purpose: one
// reader, no interleaving, and it is faster than a stream.
import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { readAt } from "../../core/fsx.ts";

/** One line: its 1-based number, byte offset, byte length (without the newline) and text. */
export interface Line {
  n: number;
  offset: number;
  length: number;
  text: string;
}

/** How long a line may be, and where the reader reports the largest buffer it held. */
export interface LineOptions {
  /** Longest line in bytes (without its line break); default unbounded. */
  maxLine?: number;
  /** Updated with the size of the largest read buffer allocated (proves memory stays bounded). */
  stats?: { peakBuffer: number };
}

/** A line longer than the cap; `n` is its 1-based number. */
export class LineTooLongError extends Error {
  readonly n: number;
  constructor(n: number, max: number) {
    super(`longer than ${max} bytes`);
    this.name = "LineTooLongError";
    this.n = n;
  }
}

const CHUNK = 1 << 20;

/**
 * Every line of the file at `source` (a path, or an open descriptor read from offset 0 and left open);
 * a final line without a newline included; CR before LF dropped.
 */
export function* readLines(source: string | number, o: LineOptions = {}): Generator<Line> {
  const fd = typeof source === "number" ? source : openSync(source, "r");
  const max = o.maxLine ?? Number.POSITIVE_INFINITY;
  // The buffer grows to hold one line, but never past the cap plus CR LF.
  const limit = Math.max(CHUNK, Number.isFinite(max) ? max + 2 : Number.POSITIVE_INFINITY);
  const note = (size: number) => {
    if (o.stats) o.stats.peakBuffer = Math.max(o.stats.peakBuffer, size);
  };
  try {
    let buf = Buffer.alloc(CHUNK);
    note(buf.length);
    let filled = 0; // bytes of buf holding unread data
    let base = 0; // file offset of buf[0]
    let n = 0;
    for (;;) {
      if (filled === buf.length) {
        const bigger = Buffer.alloc(Math.min(buf.length * 2, limit)); // one line longer than the buffer
        note(bigger.length);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const got = readSync(fd, buf, filled, buf.length - filled, base + filled);
      const end = filled + got;
      let start = 0;
      for (let nl = buf.indexOf(10, filled); nl !== -1 && nl < end; nl = buf.indexOf(10, start)) {
        const stop = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
        if (stop - start > max) throw new LineTooLongError(n + 1, max);
        yield { n: ++n, offset: base + start, length: stop - start, text: buf.toString("utf8", start, stop) };
        start = nl + 1;
      }
      // The unfinished line is already past the cap even if its last byte were a CR.
      if (end - start > max + 1 || (got === 0 && end - start > max)) throw new LineTooLongError(n + 1, max);
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
    if (typeof source !== "number") closeSync(fd);
  }
}

/** Re-reads one line by its offset and length (from a `Line` of an earlier pass). */
export function readLineAt(fd: number, offset: number, length: number): string {
  return readAt(fd, offset, length).toString("utf8");
}

// Pieces of the canary in one file's (normalised) stream, for the split check of lib/leak/index.ts: the
// longest prefix of the canary that occurs in the file, and the longest suffix. A canary cut in two
// (`"CANARY-7f3a" + "9c0e..."`, or one half in each of two files) leaves a prefix in one place and
// the rest as a suffix in another. Both only grow, from MIN_PIECE bytes up (a shorter piece counts as
// none), so each read costs one native substring search per end, and one more per byte a piece grows.
import { Buffer } from "node:buffer";
import { anchorOf, includesAnchored } from "./_byte-search.ts";

/**
 * The shortest piece of a cut canary the split check counts: a canary cut in two at any point, both
 * pieces at least this many bytes, in two files or two places of one, is a leak.
 */
export const MIN_PIECE = 4;

/** Tracks the longest prefix and suffix of `needle` seen in a byte stream (a carry of needle-1 bytes). */
export class PieceSearch {
  /** Bytes of the longest prefix seen: 0, or at least MIN_PIECE. */
  prefix = 0;
  /** Bytes of the longest suffix seen: 0, or at least MIN_PIECE. */
  suffix = 0;
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly needle: Buffer) {}

  push(chunk: Buffer): void {
    const n = this.needle.length;
    if (n < MIN_PIECE || this.prefix === n || chunk.length === 0) return;
    const seam = this.tail.length > 0 ? Buffer.concat([this.tail, chunk.subarray(0, n - 1)]) : undefined;
    const seen = (piece: Buffer) =>
      (seam !== undefined && seam.indexOf(piece) !== -1) || includesAnchored(chunk, piece, anchorOf(piece));
    const grow = (len: number) => Math.max(len + 1, MIN_PIECE);
    while (this.prefix < n && seen(this.needle.subarray(0, grow(this.prefix))))
      this.prefix = grow(this.prefix);
    while (this.suffix < n && seen(this.needle.subarray(n - grow(this.suffix))))
      this.suffix = grow(this.suffix);
    const keep = Math.min(n - 1, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep)); // copy: the read buffer is reused
  }
}

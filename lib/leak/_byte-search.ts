// A streaming byte-substring search for lib/leak/_scan.ts (the canary): fed one chunk at a time with
// a carry of at most needle-1 bytes (AnySearch: several needles, one carry), so a match across a
// chunk boundary is still found and memory never depends on the file's size.
import { Buffer } from "node:buffer";

/** Finds `needle` in a byte stream; the carry is at most `needle.length - 1` bytes. */
export class ByteSearch {
  found = false;
  private tail: Buffer = Buffer.alloc(0);
  /** An empty needle is never found (no canary, no canary check). */
  constructor(readonly needle: Buffer) {}

  /** A fresh stream. */
  reset(): void {
    this.found = false;
    this.tail = Buffer.alloc(0);
  }

  /**
   * Takes a chunk known not to hold the needle whole (another search of the same bytes said so):
   * only the carry is kept, for a match that a later chunk completes.
   */
  skip(chunk: Buffer): void {
    const n = this.needle.length;
    if (this.found || n === 0) return;
    const keep = Math.min(n - 1, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep));
  }

  push(chunk: Buffer): void {
    const n = this.needle.length;
    if (this.found || n === 0) return;
    if (this.tail.length > 0) {
      // Only the window that straddles the boundary: carry + the first n-1 bytes of this chunk.
      const seam = Buffer.concat([this.tail, chunk.subarray(0, n - 1)]);
      if (seam.indexOf(this.needle) !== -1) {
        this.found = true;
        return;
      }
    }
    if (chunk.indexOf(this.needle) !== -1) {
      this.found = true;
      return;
    }
    const keep = Math.min(n - 1, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep)); // copy: the read buffer is reused
  }
}

/** How common a byte is in text, roughly: space and the commonest letters highest, digits and capitals low. */
function commonness(b: number): number {
  if (b === 32 || b === 10) return 12;
  if ("etaoinshr".includes(String.fromCharCode(b))) return 10;
  if (b >= 97 && b <= 122) return 6;
  if (b >= 65 && b <= 90) return 2;
  if (b >= 48 && b <= 57) return 2;
  if (b < 32 || b >= 128) return 1;
  return 3;
}

/** The offset of `needle`'s rarest byte (the earliest of equals): where a search for it should start. */
export function anchorOf(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) if (commonness(needle[i]!) < commonness(needle[best]!)) best = i;
  return best;
}

/**
 * Whether `needle` occurs in `hay` wholly: the runtime's search looks for the needle from its rarest
 * byte on (text full of its first letter costs a candidate per letter otherwise), each hit then
 * checked from the needle's start.
 */
export function includesAnchored(hay: Buffer, needle: Buffer, anchor: number): boolean {
  if (anchor === 0) return hay.indexOf(needle) !== -1;
  const key = needle.subarray(anchor);
  for (let at = hay.indexOf(key, anchor); at !== -1; at = hay.indexOf(key, at + 1)) {
    const start = at - anchor;
    if (hay.compare(needle, 0, anchor, start, at) === 0) return true;
  }
  return false;
}

/**
 * Finds any of several needles in a byte stream with one shared carry (the longest needle's length
 * less one): a native substring search per needle per chunk, none once one is found.
 */
export class AnySearch {
  found = false;
  private tail: Buffer = Buffer.alloc(0);
  private readonly keep: number;

  /** Every needle holds a NUL byte: a chunk without one is skipped. */
  private readonly withNul: boolean;

  private readonly anchors: number[];

  constructor(readonly needles: readonly Buffer[]) {
    this.keep = Math.max(0, ...needles.map((n) => n.length - 1));
    this.withNul = needles.length > 0 && needles.every((n) => n.includes(0));
    this.anchors = needles.map(anchorOf);
  }

  push(chunk: Buffer): void {
    if (this.found || this.needles.length === 0) return;
    const seam = this.tail.length > 0 ? Buffer.concat([this.tail, chunk.subarray(0, this.keep)]) : undefined;
    // Needles with a NUL byte (UTF-16, UTF-32) cannot be in text without one: one byte search skips them.
    const nul = this.withNul && (chunk.indexOf(0) !== -1 || (seam !== undefined && seam.indexOf(0) !== -1));
    if (this.withNul && !nul) {
      this.carry(chunk);
      return;
    }
    for (const [i, n] of this.needles.entries()) {
      if ((seam && seam.indexOf(n) !== -1) || includesAnchored(chunk, n, this.anchors[i] as number)) {
        this.found = true;
        return;
      }
    }
    this.carry(chunk);
  }

  private carry(chunk: Buffer): void {
    const keep = Math.min(this.keep, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep)); // copy: the read buffer is reused
  }
}

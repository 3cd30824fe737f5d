// A streaming byte-substring search for lib/leak/_scan.ts (the canary): fed one chunk at a time with
// a carry of at most needle-1 bytes, so a match across a chunk boundary is still found and memory
// never depends on the file's size.
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

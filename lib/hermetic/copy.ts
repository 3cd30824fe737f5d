// Streamed, capped copies of files a subject left behind (its call log, its OUT for --keep) to a
// place the runner owns. The source is opened through lib/core/confined.ts (no link at any component, a
// FIFO or device refused without blocking, a file over the cap refused before any read); the copy
// goes 1 MiB at a time and skips all-zero 64 KiB blocks, setting the length at the end, so a sparse file
// stays sparse and a dense run of zeros costs no disk either. A failed copy leaves no partial file.
import { closeSync, constants, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ConfinedPathError, openConfined } from "../core/confined.ts";

const CHUNK = 1 << 20;
/** Zero runs this long (aligned) become holes; a multiple of every common filesystem block size. */
const BLOCK = 64 << 10;
const ZERO = Buffer.alloc(BLOCK);
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Copies the open file `src` into the open, empty file `dest`: at most `cap` bytes (a file that grows
 * past it is refused: "too-large"), all-zero blocks left as holes. Returns the bytes copied.
 */
export function copyFd(src: number, dest: number, shown: string, cap: number): number {
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = 0;
  for (;;) {
    const n = readSync(src, buf, 0, CHUNK, pos);
    if (n === 0) break;
    if (pos + n > cap) throw new ConfinedPathError(shown, "too-large", `over ${cap} bytes`);
    for (let at = 0; at < n; at += BLOCK) {
      const end = Math.min(n, at + BLOCK);
      if (buf.subarray(at, end).equals(ZERO.subarray(0, end - at))) continue; // a hole in the copy
      for (let off = at; off < end; ) off += writeSync(dest, buf, off, end - off, pos + off);
    }
    pos += n;
  }
  ftruncateSync(dest, pos);
  return pos;
}

/**
 * Copies the regular file `rel` under `root` to `dest`, created exclusively (nothing there is
 * replaced or written through). Throws ConfinedPathError for a refused source; on any failure `dest`
 * is removed again. Returns the bytes copied.
 */
export function copyConfined(root: string, rel: string, dest: string, cap: number, mode = 0o644): number {
  const src = openConfined(root, rel, { maxBytes: cap });
  try {
    const fd = openSync(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
    try {
      return copyFd(src.fd, fd, join(root, rel), cap);
    } catch (error) {
      unlinkSync(dest);
      throw error;
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(src.fd);
  }
}

/** A refusal in words without its path ("not a regular file", "larger than the size cap (...)"). */
export function refusalWords(error: ConfinedPathError): string {
  const words = error.message.slice(`Refused "${error.path}": `.length);
  return error.reason === "too-large" ? `${words}; --max-file-bytes raises the cap` : words;
}

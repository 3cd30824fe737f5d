// Release archives for scripts/build.ts (never shipped). A small ustar writer instead of the tar CLI:
// GNU and BSD tar disagree on the flags that make an archive reproducible (sorted names, fixed owner
// and mtime), and an archive here is one directory, one executable and a few symlinks to it. Entries
// carry uid/gid 0, the given mtime and no user names, and gzip runs with no name or time in its
// header, so the same inputs give the same bytes on any machine with the same zlib.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

/** One archive entry: the executable (its bytes) or a symlink to it. */
export type TarEntry =
  | { kind: "dir"; name: string }
  | { kind: "file"; name: string; data: Uint8Array; mode: number }
  | { kind: "symlink"; name: string; target: string };

const BLOCK = 512;

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL, as ustar fields are read by every tar.
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function header(entry: TarEntry, size: number, mtime: number): Uint8Array {
  if (Buffer.byteLength(entry.name) > 100)
    throw new Error(`Cannot archive "${entry.name}": name over 100 bytes`);
  const h = Buffer.alloc(BLOCK);
  const put = (text: string, at: number) => h.write(text, at, "utf8");
  const mode = entry.kind === "file" ? entry.mode : entry.kind === "dir" ? 0o755 : 0o777;
  put(entry.name, 0);
  put(octal(mode, 8), 100);
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148); // checksum placeholder: eight spaces while summing
  put(entry.kind === "file" ? "0" : entry.kind === "dir" ? "5" : "2", 156);
  if (entry.kind === "symlink") put(entry.target, 157);
  put("ustar\0" + "00", 257);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

/** The uncompressed tar stream of `entries`, in the given order, each stamped with `mtime` (seconds). */
export function tar(entries: TarEntry[], mtime: number): Buffer {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = entry.kind === "file" ? entry.data : new Uint8Array(0);
    parts.push(header(entry, data.length, mtime), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // end of archive
  return Buffer.concat(parts);
}

/**
 * The release archive of one platform as .tar.gz bytes: `<dir>/proctor` and one symlink per tool
 * name, so unpacking it gives a folder to put on PATH.
 */
export function releaseArchive(opts: {
  dir: string;
  binary: string;
  links: readonly string[];
  mtime: number;
}): Buffer {
  const entries: TarEntry[] = [
    { kind: "dir", name: `${opts.dir}/` },
    { kind: "file", name: `${opts.dir}/proctor`, data: readFileSync(opts.binary), mode: 0o755 },
    ...[...opts.links]
      .sort()
      .map((link): TarEntry => ({ kind: "symlink", name: `${opts.dir}/${link}`, target: "proctor" })),
  ];
  return gzipSync(tar(entries, opts.mtime), { level: 9 });
}

/** Bytes the entries of an uncompressed ustar stream hold once unpacked (for the size budget). */
export function unpackedBytes(tarStream: Uint8Array): number {
  const buf = Buffer.from(tarStream.buffer, tarStream.byteOffset, tarStream.byteLength);
  let total = 0;
  for (let at = 0; at + BLOCK <= buf.length; ) {
    const size = Number.parseInt(buf.subarray(at + 124, at + 135).toString("latin1"), 8) || 0;
    total += size;
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return total;
}

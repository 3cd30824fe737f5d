// The one SHA-256 helper: digests of bytes or text, of a file read in bounded chunks (never whole in
// memory), and an incremental hasher for callers that already read a stream themselves. Keyed uses
// (HMAC, HKDF) stay on node:crypto where they are made: they are not digests. The non-cryptographic
// cache hash is fastHash in runtime.ts.
import { Buffer } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import { closeSync, createReadStream, openSync, readSync } from "node:fs";

/** A SHA-256 digest being fed piece by piece (text is UTF-8); `.digest("hex")` ends it. */
export type Sha256 = Hash;

/** A fresh incremental SHA-256 (for a caller that reads its own stream or needs `copy()`). */
export function sha256(): Sha256 {
  return createHash("sha256");
}

/** The SHA-256 of bytes or UTF-8 text, as 64 lowercase hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The SHA-256 of bytes or UTF-8 text, as its 32 raw bytes (key ids, seeded bits). */
export function sha256Bytes(data: string | Uint8Array): Buffer {
  return createHash("sha256").update(data).digest();
}

/** The SHA-256 of a file's bytes as hex, streamed in chunks (follows links, as reading it would). */
export async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** The SHA-256 of an open descriptor's remaining bytes as hex, read in 1 MiB chunks, and how many. */
export function sha256Fd(fd: number): { sha256: string; bytes: number } {
  const h = createHash("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    bytes += n;
    h.update(buf.subarray(0, n));
  }
  return { sha256: h.digest("hex"), bytes };
}

/** The SHA-256 of a file's bytes as hex, read synchronously in chunks (follows links). */
export function sha256FileSync(path: string): string {
  const fd = openSync(path, "r");
  try {
    return sha256Fd(fd).sha256;
  } finally {
    closeSync(fd);
  }
}

// The one ustar writer: directories, regular files and symlinks, in the order given, each with a
// fixed owner and mtime and no user names, so the same entries give the same bytes on any machine
// (release archives in scripts/build/archive.ts, settings files copied into a container by
// lib/isolation/docker). It writes a stream only; which entries and in what order is the caller's.
// Below it, the header kit of a tar rewriter (lib/isolation/docker/_sparse.ts): numeric fields, the
// checksum, names, a header made like another, PAX records.
import { Buffer } from "node:buffer";

/** One entry. Modes default to 0755 (dir), 0644 (file), 0777 (symlink); names over 100 bytes use the prefix field; an owner of its own overrides the stamp's. */
export type TarEntry = (
  | { kind: "dir"; name: string; mode?: number }
  | { kind: "file"; name: string; data: Uint8Array; mode?: number }
  | { kind: "symlink"; name: string; target: string }
) & { uid?: number; gid?: number };

/** Owner and modification time (seconds) stamped on every entry; all default to 0. */
export interface TarStamp {
  uid?: number;
  gid?: number;
  mtime?: number;
}

const BLOCK = 512;
const TYPE = { file: "0", symlink: "2", dir: "5" } as const;

/** width - 1 octal digits and a NUL, as ustar fields are read by every tar. */
function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** Splits a path into ustar name (<=100 bytes) and prefix (<=155 bytes), or throws. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: "" };
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`Cannot put "${path}" in a tar: path too long`);
}

function header(entry: TarEntry, size: number, stamp: Required<TarStamp>): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (text: string, at: number) => h.write(text, at, "utf8");
  const { name, prefix } = splitName(entry.name);
  const mode = entry.kind === "symlink" ? 0o777 : (entry.mode ?? (entry.kind === "dir" ? 0o755 : 0o644));
  put(name, 0);
  put(octal(mode, 8), 100);
  put(octal(entry.uid ?? stamp.uid, 8), 108);
  put(octal(entry.gid ?? stamp.gid, 8), 116);
  put(octal(size, 12), 124);
  put(octal(stamp.mtime, 12), 136);
  put("        ", 148); // checksum placeholder: eight spaces while summing
  put(TYPE[entry.kind], 156);
  if (entry.kind === "symlink") {
    if (Buffer.byteLength(entry.target) > 100)
      throw new Error(`Cannot put "${entry.name}" in a tar: link target over 100 bytes`);
    put(entry.target, 157);
  }
  put("ustar\0" + "00", 257);
  put(prefix, 345);
  return checksummed(h);
}

/** `h` with its checksum written (the sum of its bytes, the checksum field counted as spaces). */
function checksummed(h: Buffer): Buffer {
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return h;
}

/** The uncompressed tar stream of `entries`, in the given order, ending with two empty blocks. */
export function tar(entries: readonly TarEntry[], stamp: TarStamp = {}): Buffer {
  const full = { uid: 0, gid: 0, mtime: 0, ...stamp };
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = entry.kind === "file" ? entry.data : new Uint8Array(0);
    parts.push(header(entry, data.length, full), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // end of archive
  return Buffer.concat(parts);
}

/** Bytes the entries of an uncompressed ustar stream hold once unpacked (for a size budget). */
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

/** The first entry of a tar stream, as `docker cp CONTAINER:PATH -` gives one file: never a link followed. */
export interface FirstEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
  size: number;
  /** A regular file's bytes, when it held at most `maxBytes`. */
  data?: Buffer;
}

/** Reads the first header of `stream` (null: no entry); a file's data only when it is within `maxBytes`. */
export function firstEntry(stream: Uint8Array, maxBytes: number): FirstEntry | null {
  const buf = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  if (buf.length < BLOCK || buf.subarray(0, BLOCK).every((b) => b === 0)) return null;
  const field = (at: number, len: number) => {
    const raw = buf.subarray(at, at + len);
    const end = raw.indexOf(0);
    return raw.subarray(0, end < 0 ? len : end).toString("utf8");
  };
  const prefix = field(345, 155);
  const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
  const size = Number.parseInt(field(124, 12).trim() || "0", 8) || 0;
  const flag = String.fromCharCode(buf[156] ?? 0);
  const kind =
    flag === "0" || flag === "\0" ? "file" : flag === "5" ? "dir" : flag === "2" ? "symlink" : "other";
  const fits = kind === "file" && size <= maxBytes && buf.length >= BLOCK + size;
  return { name, kind, size, ...(fits ? { data: Buffer.from(buf.subarray(BLOCK, BLOCK + size)) } : {}) };
}

/** A header's numeric field: octal text, or GNU's base-256 when its high bit is set. */
export function headerNumber(field: Uint8Array): number {
  if ((field[0]! & 0x80) === 0)
    return Number.parseInt(Buffer.from(field).toString("latin1").replace(/\0.*$/s, "").trim() || "0", 8);
  let n = field[0]! & 0x7f;
  for (const b of field.subarray(1)) n = n * 256 + b;
  return n;
}

/** Writes `value` into `field`: octal digits and a NUL, or base-256 when they cannot hold it. */
export function setHeaderNumber(field: Buffer, value: number): void {
  field.fill(0);
  if (value <= 8 ** (field.length - 1) - 1) {
    field.write(value.toString(8).padStart(field.length - 1, "0"), "latin1");
    return;
  }
  let v = value;
  for (let i = field.length - 1; i > 0; i--) {
    field[i] = v % 256;
    v = Math.floor(v / 256);
  }
  field[0] = 0x80;
}

/** Whether a header block's checksum holds. */
export function checksumHolds(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return sum === headerNumber(h.subarray(148, 156));
}

/** A member's name as its header gives it: ustar's prefix and name joined (a GNU header has no prefix). */
export function headerName(h: Buffer): string {
  const field = (a: number, b: number) => h.subarray(a, b).toString("utf8").replace(/\0.*$/s, "");
  const prefix = h.subarray(257, 263).toString("latin1") === "ustar\0" ? field(345, 500) : "";
  return prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
}

/**
 * A ustar header made like `like` (its mode, owner, mtime, user and group names, device numbers),
 * of typeflag `type` and `size` bytes, named by the first 100 bytes of `name`.
 */
export function headerLike(like: Buffer, type: string, size: number, name: string): Buffer {
  const h = Buffer.alloc(BLOCK);
  Buffer.from(name, "utf8").subarray(0, 100).copy(h, 0);
  like.copy(h, 100, 100, 124);
  setHeaderNumber(h.subarray(124, 136), size);
  like.copy(h, 136, 136, 148);
  h.write(type, 156, "latin1");
  h.write("ustar\u000000", 257, "latin1");
  like.copy(h, 265, 265, 345);
  return checksummed(h);
}

/** One PAX record, `<length> <key>=<value>\n`, its length (in bytes) counting itself. */
export function paxRecord(key: string, value: string): string {
  const bytes = Buffer.byteLength(` ${key}=${value}\n`);
  let n = bytes + 1;
  while (String(n).length + bytes !== n) n = String(n).length + bytes;
  return `${n} ${key}=${value}\n`;
}

/** The records of a PAX extended header's data, in order (a malformed rest is left unread). */
export function paxRecords(data: Buffer): [string, string][] {
  const out: [string, string][] = [];
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const length = Number(data.subarray(at, space).toString("latin1"));
    if (space < 0 || !(length > space - at) || at + length > data.length) break;
    const record = data.subarray(space + 1, at + length - 1);
    const eq = record.indexOf(0x3d);
    if (eq < 0) break;
    out.push([record.subarray(0, eq).toString("utf8"), record.subarray(eq + 1).toString("utf8")]);
    at += length;
  }
  return out;
}

// The one tar reader: walks an uncompressed archive file member by member (ustar, GNU long names and
// link names, PAX path/linkpath/size records) without unpacking anything, so an archive a hostile
// process wrote is only ever read: no path is created, no link followed. Each member's data is
// streamed to the caller in chunks (a 1 GiB member is never held whole). lib/core/tar.ts writes.
import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";

const BLOCK = 512;
const CHUNK = 1 << 20;

/** One member: its path as stored (no leading `./`), its kind, its data size and a link's target. */
export interface TarMember {
  path: string;
  kind: "file" | "dir" | "symlink" | "hardlink" | "sparse" | "other";
  size: number;
  /** A symlink's or hard link's target. */
  link?: string;
  /** The member's mode bits (permission and set-id bits). */
  mode: number;
}

function text(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString("utf8");
}

/** A numeric header field: octal text, or GNU base-256 when its first byte has the high bit set. */
function numeric(b: Buffer): number {
  if ((b[0] ?? 0) & 0x80) {
    let n = (b[0] ?? 0) & 0x7f;
    for (let i = 1; i < b.length; i++) n = n * 256 + (b[i] ?? 0);
    return n;
  }
  return Number.parseInt(text(b).trim() || "0", 8) || 0;
}

/** PAX records (`<len> key=value\n`) as a map; malformed records end the read. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const len = Number.parseInt(data.subarray(at, space).toString("latin1"), 10);
    if (space < 0 || !Number.isFinite(len) || len <= 0) break;
    const record = data.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

const KINDS: Record<string, TarMember["kind"]> = {
  "0": "file",
  "\0": "file",
  "7": "file",
  "1": "hardlink",
  "2": "symlink",
  "5": "dir",
  S: "sparse",
};

/**
 * Calls `onMember` for each member of the archive at `path`, then `onData` with its data in chunks
 * (none for an empty one). Stops at the end-of-archive blocks, or at the end of a truncated file.
 */
export function readTar(
  path: string,
  onMember: (m: TarMember) => void,
  onData: (chunk: Buffer) => void = () => {},
): void {
  const fd = openSync(path, "r");
  const header = Buffer.alloc(BLOCK);
  const chunk = Buffer.alloc(CHUNK);
  let at = 0;
  const read = (buf: Buffer, len: number): number => {
    let got = 0;
    while (got < len) {
      const n = readSync(fd, buf, got, len - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  };
  /** The data of a member of `size` bytes: to `each` chunk by chunk, the position moved past its padding. */
  const data = (size: number, each: (c: Buffer) => void): boolean => {
    for (let left = size; left > 0; ) {
      const n = read(chunk, Math.min(CHUNK, left));
      if (n === 0) return false;
      each(chunk.subarray(0, n));
      at += n;
      left -= n;
    }
    at += (BLOCK - (size % BLOCK)) % BLOCK;
    return true;
  };
  const whole = (size: number): Buffer | undefined => {
    const parts: Buffer[] = [];
    return data(size, (c) => parts.push(Buffer.from(c))) ? Buffer.concat(parts) : undefined;
  };
  try {
    let longName: string | undefined;
    let longLink: string | undefined;
    let pax = new Map<string, string>();
    while (read(header, BLOCK) === BLOCK && !header.every((b) => b === 0)) {
      at += BLOCK;
      const flag = String.fromCharCode(header[156] ?? 0);
      const size = numeric(header.subarray(124, 136));
      if (flag === "L" || flag === "K" || flag === "x" || flag === "g") {
        const body = whole(size);
        if (body === undefined) return;
        if (flag === "L") longName = text(body);
        else if (flag === "K") longLink = text(body);
        else if (flag === "x") pax = paxRecords(body);
        continue;
      }
      const prefix = header.subarray(257, 263).toString("latin1").startsWith("ustar")
        ? text(header.subarray(345, 500))
        : "";
      const short = text(header.subarray(0, 100));
      const name = pax.get("path") ?? longName ?? (prefix ? `${prefix}/${short}` : short);
      const link = pax.get("linkpath") ?? longLink ?? text(header.subarray(157, 257));
      const kind = KINDS[flag] ?? "other";
      const stored = pax.has("size") && kind !== "sparse" ? Number(pax.get("size")) : size;
      onMember({
        path: name.replace(/^(\.\/)+/, ""),
        kind,
        size: stored,
        ...(kind === "symlink" || kind === "hardlink" ? { link } : {}),
        mode: numeric(header.subarray(100, 108)) & 0o7777,
      });
      longName = undefined;
      longLink = undefined;
      pax = new Map();
      if (!data(stored, kind === "file" || kind === "sparse" ? onData : () => {})) return;
    }
  } finally {
    closeSync(fd);
  }
}

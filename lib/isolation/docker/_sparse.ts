// /work as it comes out of a container (`docker cp NAME:/work -`: the engine's tar, every hole of a
// sparse file sent as zeros) rewritten, as it streams, into the snapshot the next phase gets: a file
// with runs of zero blocks becomes a PAX sparse member (GNU's format 1.0: GNU.sparse.* records, then a
// regular member holding its map and only its data), which GNU tar extracts with its holes and the
// engine's own `docker cp` reads too (it refuses GNU's older typeflag S). A 2 GiB sparse file then
// costs the host's temp folder and every later container a few blocks. Every other member passes
// through byte for byte. What the snapshot holds (data, maps, headers) is capped: past the cap the copy
// stops. A file waits for its header in memory up to MEMORY_BYTES, then in a spill file beside the snapshot.
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import {
  checksumHolds,
  headerLike,
  headerName,
  headerNumber,
  paxRecord,
  paxRecords,
} from "../../core/tar.ts";

const BLOCK = 512;
/** The hole size looked for: a filesystem block, so holes line up with the ones the file had. */
export const HOLE = 4096;
const MEMORY_BYTES = 8 * 1024 * 1024;
const META_BYTES = 1024 * 1024;
const ZERO_HOLE = Buffer.alloc(HOLE);

/** Why a copy out stopped before its end: not a tar, or (OverCapError) too large. */
export class CarryError extends Error {}
/** The snapshot would pass its cap. */
export class OverCapError extends CarryError {}

const padding = (n: number) => (BLOCK - (n % BLOCK)) % BLOCK;

/** A member's metadata (PAX x, g; GNU L, K) as it came: its header and its data (padding cut). */
interface Meta {
  header: Buffer;
  data: Buffer;
}

/**
 * The PAX sparse member (format 1.0) of regular file `h`: one x header (the records that came with it
 * but its path and size, then GNU.sparse.major, minor, name and realsize), the member header, and its
 * map block (the count, then each run's offset and length, a final [size, 0] when it ends in a hole).
 * The data runs follow it. `name` is its full name (from an L member, a path record or the header).
 */
function paxSparse(
  h: Buffer,
  meta: Meta[],
  name: string,
  size: number,
  stored: number,
  runs: number[][],
): Buffer[] {
  const kept = meta.filter((m) => m.header[156] !== 0x4c /* L: the name goes in GNU.sparse.name */);
  const records = kept
    .filter((m) => m.header[156] === 0x78 /* x */)
    .flatMap((m) => paxRecords(m.data))
    .filter(([k]) => k !== "path" && k !== "size" && !k.startsWith("GNU.sparse."));
  const map = [...runs];
  const last = map.at(-1);
  if (!last || last[0]! + last[1]! < size) map.push([size, 0]);
  const mapText = `${[map.length, ...map.flat()].join("\n")}\n`;
  const mapBlock = Buffer.alloc(Buffer.byteLength(mapText) + padding(Buffer.byteLength(mapText)));
  mapBlock.write(mapText, 0, "utf8");
  const pax = Buffer.from(
    [
      ...records.map(([k, v]) => paxRecord(k, v)),
      paxRecord("GNU.sparse.major", "1"),
      paxRecord("GNU.sparse.minor", "0"),
      paxRecord("GNU.sparse.name", name),
      paxRecord("GNU.sparse.realsize", String(size)),
    ].join(""),
    "utf8",
  );
  const slash = name.lastIndexOf("/");
  const stand = `${name.slice(0, slash + 1)}GNUSparseFile.0/${name.slice(slash + 1)}`;
  return [
    ...kept
      .filter((m) => m.header[156] !== 0x78)
      .flatMap((m) => [m.header, m.data, Buffer.alloc(padding(m.data.length))]),
    headerLike(h, "x", pax.length, "././@PaxHeader"),
    pax,
    Buffer.alloc(padding(pax.length)),
    // What a tar that knows no PAX sparse member would write: a file of map and data beside the real one.
    headerLike(
      h,
      "0",
      mapBlock.length + stored,
      Buffer.byteLength(stand) <= 100 ? stand : "GNUSparseFile.0/file",
    ),
    mapBlock,
  ];
}

/** One regular file's data on its way: its header and metadata, its data runs, where the data waits. */
interface Pending {
  meta: Meta[];
  header: Buffer;
  size: number;
  seen: number;
  runs: number[][];
  chunks: Buffer[];
  held: number;
  spill?: { path: string; fd: number };
}

/** A member's full name: a GNU long name (L), else a PAX path record, else its header's prefix and name. */
function memberName(h: Buffer, meta: readonly Meta[]): string {
  const long = meta.find((m) => m.header[156] === 0x4c /* L */);
  if (long) return long.data.toString("utf8").replace(/\0.*$/s, "");
  for (const m of meta)
    if (m.header[156] === 0x78 /* x */) for (const [k, v] of paxRecords(m.data)) if (k === "path") return v;
  return headerName(h);
}

/**
 * A push parser: feed it the engine's tar as it streams (push), then finish(). It writes the
 * snapshot to `path`; `spill` is where a large file waits for its header; past `cap` bytes written it
 * throws CarryError.
 */
export class SparseCarry {
  readonly #fd: number;
  readonly #cap: number;
  readonly #spill: string;
  #written = 0;
  #queue: Buffer[] = [];
  #queued = 0;
  #state: "header" | "meta" | "pass" | "file" | "pad" | "end" = "header";
  #meta: Meta[] = [];
  #metaHeader?: Buffer;
  #metaNeed = 0;
  #left = 0;
  #file?: Pending;

  constructor(path: string, spill: string, cap: number) {
    this.#fd = openSync(path, "w", 0o600);
    this.#cap = cap;
    this.#spill = spill;
  }

  #write(b: Buffer): void {
    if (this.#written + b.length + (this.#file?.held ?? 0) > this.#cap)
      throw new OverCapError(`over the cap of ${this.#cap} bytes (holes not counted)`);
    if (b.length > 0) writeSync(this.#fd, b);
    this.#written += b.length;
  }

  #take(n: number): Buffer {
    const first = this.#queue[0]!;
    if (first.length >= n) {
      if (first.length === n) this.#queue.shift();
      else this.#queue[0] = first.subarray(n);
      this.#queued -= n;
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const c = this.#queue[0]!;
      const k = Math.min(c.length, n - at);
      c.copy(out, at, 0, k);
      at += k;
      if (k === c.length) this.#queue.shift();
      else this.#queue[0] = c.subarray(k);
    }
    this.#queued -= n;
    return out;
  }

  /** Takes the next piece of the stream; throws CarryError past the cap or on a stream that is no tar. */
  push(chunk: Buffer): void {
    if (this.#state === "end") return;
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    while (this.#step()) {}
  }

  /** One step of the parser; false when it needs more input. */
  #step(): boolean {
    switch (this.#state) {
      case "end":
        this.#queue = [];
        this.#queued = 0;
        return false;
      case "header":
        if (this.#queued < BLOCK) return false;
        this.#header(Buffer.from(this.#take(BLOCK)));
        return true;
      case "meta": {
        if (this.#queued < this.#metaNeed) return false;
        const data = Buffer.from(this.#take(this.#metaNeed));
        const header = this.#metaHeader!;
        this.#meta.push({ header, data: data.subarray(0, headerNumber(header.subarray(124, 136))) });
        this.#state = "header";
        return true;
      }
      case "pass": {
        if (this.#left === 0) {
          this.#state = "header";
          return true;
        }
        if (this.#queued === 0) return false;
        const b = this.#take(Math.min(this.#queued, this.#left));
        this.#write(b);
        this.#left -= b.length;
        return true;
      }
      case "pad":
        if (this.#queued < this.#left) return false;
        this.#take(this.#left);
        this.#left = 0;
        this.#state = "header";
        return true;
      case "file":
        return this.#fileStep();
    }
  }

  #header(h: Buffer): void {
    if (h.every((b) => b === 0)) {
      if (this.#meta.length > 0) throw new CarryError("not a tar: metadata without a member");
      this.#state = "end";
      return;
    }
    if (!checksumHolds(h)) throw new CarryError("not a tar: a header's checksum is wrong");
    const type = String.fromCharCode(h[156]!);
    const field = headerNumber(h.subarray(124, 136));
    if (type === "x" || type === "g" || type === "L" || type === "K") {
      if (field > META_BYTES) throw new CarryError(`not a tar: a ${type} header of ${field} bytes`);
      this.#metaHeader = h;
      this.#metaNeed = field + padding(field);
      this.#state = "meta";
      return;
    }
    const meta = this.#meta;
    this.#meta = [];
    // A PAX size record holds what the header's field cannot (8 GiB and more): such a file passes as it is.
    const paxSize = meta
      .filter((m) => m.header[156] === 0x78)
      .flatMap((m) => paxRecords(m.data))
      .find(([k]) => k === "size");
    const size = paxSize ? Number(paxSize[1]) : field;
    const regular = type === "0" || type === "\0" || type === "7";
    if (!regular || paxSize || size < HOLE) {
      // Members with no holes worth keeping pass as they are, their data and padding too.
      for (const m of meta)
        this.#write(Buffer.concat([m.header, m.data, Buffer.alloc(padding(m.data.length))]));
      this.#write(h);
      this.#left = regular || size > 0 ? size + padding(size) : 0;
      this.#state = "pass";
      return;
    }
    this.#file = { meta, header: h, size, seen: 0, runs: [], chunks: [], held: 0 };
    this.#state = "file";
  }

  #fileStep(): boolean {
    const f = this.#file!;
    const left = f.size - f.seen;
    if (left === 0) {
      this.#emit(f);
      this.#file = undefined;
      this.#left = padding(f.size);
      this.#state = "pad";
      return true;
    }
    const n = Math.min(HOLE, left);
    if (this.#queued < n) return false;
    const block = this.#take(n);
    const zero = n === HOLE ? block.equals(ZERO_HOLE) : block.every((b) => b === 0);
    if (!zero) {
      const last = f.runs.at(-1);
      if (last && last[0]! + last[1]! === f.seen) last[1]! += n;
      else f.runs.push([f.seen, n]);
      this.#hold(f, block);
    }
    f.seen += n;
    return true;
  }

  /** Keeps a data block until the file's header can be written: in memory, then in the spill file. */
  #hold(f: Pending, block: Buffer): void {
    if (this.#written + f.held + block.length > this.#cap)
      throw new OverCapError(`over the cap of ${this.#cap} bytes (holes not counted)`);
    f.held += block.length;
    if (!f.spill && f.held <= MEMORY_BYTES) {
      f.chunks.push(Buffer.from(block));
      return;
    }
    if (!f.spill) {
      f.spill = { path: this.#spill, fd: openSync(this.#spill, "w+", 0o600) };
      for (const c of f.chunks) writeSync(f.spill.fd, c);
      f.chunks = [];
    }
    writeSync(f.spill.fd, block);
  }

  /** Writes a finished file: as it came when it has no hole, else as a PAX sparse member. */
  #emit(f: Pending): void {
    const stored = f.held;
    f.held = 0; // counted as it is written from here on
    const head =
      stored === f.size
        ? [...f.meta.flatMap((m) => [m.header, m.data, Buffer.alloc(padding(m.data.length))]), f.header]
        : paxSparse(f.header, f.meta, memberName(f.header, f.meta), f.size, stored, f.runs);
    for (const b of head) this.#write(b);
    const mapBytes = stored === f.size ? 0 : head.at(-1)!.length;
    if (f.spill) {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < stored; ) {
        const n = readSync(f.spill.fd, buf, 0, Math.min(buf.length, stored - at), at);
        this.#write(buf.subarray(0, n));
        at += n;
      }
      closeSync(f.spill.fd);
      rmSync(f.spill.path, { force: true });
      f.spill = undefined;
    } else for (const c of f.chunks) this.#write(c);
    this.#write(Buffer.alloc(padding(mapBytes + stored)));
  }

  /** Ends the snapshot (the end-of-archive blocks); throws CarryError when the stream stopped short. */
  finish(): number {
    try {
      if (this.#state !== "end")
        throw new CarryError("not a tar: the stream ended before its end-of-archive");
      this.#write(Buffer.alloc(2 * BLOCK));
      return this.#written;
    } finally {
      this.close();
    }
  }

  /** Closes the snapshot and removes a spill file left by a stream that stopped. */
  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // closed already
    }
    const spill = this.#file?.spill;
    if (spill) {
      try {
        closeSync(spill.fd);
      } catch {
        // closed already
      }
      rmSync(spill.path, { force: true });
    }
  }
}

/**
 * A stdout sink (lib/core/proc.ts onStdout) feeding `carry`: on any failure (the cap, a stream that is
 * no tar, a snapshot that cannot be written) it keeps the error and stops the stream.
 */
export function carrySink(carry: SparseCarry): {
  onStdout: (chunk: Buffer) => boolean;
  failed: () => Error | undefined;
} {
  let error: Error | undefined;
  return {
    onStdout: (chunk) => {
      try {
        carry.push(chunk);
        return true;
      } catch (e) {
        error =
          e instanceof CarryError
            ? e
            : new CarryError(
                `cannot write the snapshot: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
              );
        return false;
      }
    },
    failed: () => error,
  };
}

// Replay without a scan. For a large cassette an index maps the hash of each exact entry's
// normalised argv to the byte span of that entry, so a replay stats the cassette, reads a few index
// rows and JSON-parses one entry (never the whole file: in a fresh process even reading 5 MB costs
// more than the start-up budget). The index is named by the cassette's identity and change stamps
// (dev, inode, size, mtime, ctime); it is only an accelerator: a missing, foreign-owned, corrupt or
// stale one means a full parse, and every hit is re-checked against bytes. Two places hold one: beside
// a runner's cassette copy (lib/gh/shim/case-index.ts, sidecarPath), read first, and the per-user
// cache (cache-dir.ts says where; replay-index.ts builds and writes). This file is the warm path every
// gh call takes, so it reads through lib/core/runtime.ts (under Bun without node:fs, whose load alone
// costs more CPU than the rest of the call) and loads replay-index.ts only to build an index.
import { type FileStat, fastHash, readFileRange, statFile } from "../../core/runtime.ts";
import {
  argvKey,
  CallIndex,
  type Cassette,
  type CassetteCall,
  isPrefix,
  loadCassetteText,
  parseCassette,
  toCall,
} from "../cassette.ts";
import { cassetteStamp, MAGIC, ROW, sidecarPath } from "./_index-format.ts";
import { readableCacheDir } from "./cache-dir.ts";

export { cassetteStamp, sidecarPath } from "./_index-format.ts";

/** What the dispatcher needs from a cassette: a lookup, and the full parse for a miss report. */
export interface Replayer {
  lookup(key: readonly string[]): Promise<CassetteCall | undefined>;
  full(): Promise<Cassette>;
  /** True once the whole cassette has been read and parsed (the index exists to avoid that). */
  parsedWhole(): boolean;
}

/** The whole cassette, read and parsed on first use. */
export type LazyCassette = (() => Promise<Cassette & { text: string }>) & { parsed: boolean };

/** Options for openReplayer; tests lower the thresholds and point the cache elsewhere. */
export interface ReplayOptions {
  /** Cassettes smaller than this many bytes are parsed whole (default 64 KiB). */
  indexAbove?: number;
  /** Cache directory; null disables the cache (default `<tmpdir>/proctor-<uid>/cassette-index`). */
  cacheDir?: string | null;
  /**
   * A cassette changed less than this long ago gets no cache yet (default 2000 ms): on a file system
   * with coarse timestamps a same-size rewrite in the same tick would otherwise keep its old stamps.
   */
  settleMs?: number;
}

/** The first read of an index: the header line and, mostly, the prefix entries with it. */
const HEAD = 4096;

/**
 * Opens a cassette for replay (`stat`: the caller's statFile of it, if it has one); a lookup throws
 * CassetteError for an unreadable or invalid file.
 */
export async function openReplayer(
  path: string,
  opts: ReplayOptions = {},
  stat?: FileStat | null,
): Promise<Replayer> {
  const full = lazyFull(path);
  const st = stat === undefined ? await statFile(path) : stat;
  if (!st?.isFile || st.size < (opts.indexAbove ?? 64 * 1024)) return memoryReplayer(full);
  const stamp = cassetteStamp(st);
  // run-eval's runner writes the index of its final copy beside it, bound read-only into the sandbox
  // (lib/gh/shim/case-index.ts); it counts only while the copy keeps the stamps it was built for.
  const beside = await indexedReplayer(path, sidecarPath(path), stamp, full, async () =>
    memoryReplayer(full),
  );
  if (beside) return beside;
  if (opts.cacheDir === null) return memoryReplayer(full);
  const dir = opts.cacheDir === undefined ? await readableCacheDir() : opts.cacheDir;
  const rebuild = async (): Promise<Replayer> => {
    const cassette = await full(); // an invalid cassette throws here, before any cache is written
    const { writeCacheIndex } = await import("./replay-index.ts");
    writeCacheIndex(cassette, st, stamp, opts.cacheDir, opts.settleMs ?? 2000);
    return memoryReplayer(full);
  };
  if (!dir) return rebuild(); // none yet: writing one makes it
  return (await indexedReplayer(path, `${dir}/${stamp}.idx`, stamp, full, rebuild)) ?? rebuild();
}

function lazyFull(path: string): LazyCassette {
  let cassette: Promise<Cassette & { text: string }> | undefined;
  const full = () => {
    cassette ??= (async () => {
      const text = await loadCassetteText(path);
      const parsed = { ...parseCassette(text, path), text };
      full.parsed = true;
      return parsed;
    })();
    return cassette;
  };
  full.parsed = false;
  return full;
}

/** A replayer over the whole cassette, parsed on its first lookup. */
export function memoryReplayer(full: LazyCassette): Replayer {
  let index: CallIndex | undefined;
  return {
    async lookup(key) {
      index ??= new CallIndex((await full()).calls);
      return index.lookup(key);
    },
    full,
    parsedWhole: () => full.parsed,
  };
}

class StaleIndex extends Error {}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

async function indexedReplayer(
  path: string,
  file: string,
  stamp: string,
  full: LazyCassette,
  rebuild: () => Promise<Replayer>,
): Promise<Replayer | null> {
  const size = (await statFile(file))?.size; // a stat, not a failed read: no error to build
  if (size === undefined) return null;
  try {
    const head = await readFileRange(file, 0, HEAD);
    const nl = head.indexOf(0x0a);
    const [magic, stampRead, countText, prefixText] = latin1.decode(head.subarray(0, nl)).split(" ");
    const count = Number(countText);
    const prefixBytes = Number(prefixText);
    const table = nl + 1 + prefixBytes + 1;
    if (magic !== MAGIC || stampRead !== stamp || !Number.isInteger(count) || !Number.isInteger(prefixBytes))
      return null;
    if (size !== table + count * ROW) return null;
    const prefixText2 =
      table <= head.length
        ? head.subarray(nl + 1, nl + 1 + prefixBytes)
        : await readFileRange(file, nl + 1, nl + 1 + prefixBytes);
    const prefixes = JSON.parse(utf8.decode(prefixText2)) as [number, number, number, string[]][];
    if (!Array.isArray(prefixes)) return null;
    let fallback: Replayer | undefined;
    const entryAt = async (index: number, start: number, end: number): Promise<CassetteCall> => {
      try {
        const call = toCall(JSON.parse(utf8.decode(await readFileRange(path, start, end))), index);
        if (call) return call;
      } catch {
        // not an entry: the index does not describe these bytes
      }
      throw new StaleIndex();
    };
    const rows = new RowTable(file, table, count);
    const lookup = async (key: readonly string[]): Promise<CassetteCall | undefined> => {
      const k = argvKey(key);
      const h = fastHash(k);
      for (let r = await rows.firstAtOrAfter(h); r < count; r++) {
        const text = await rows.row(r);
        if (text.slice(0, 16) !== h) break;
        const [, i, s, e] = text.split(" ").map(Number);
        const call = await entryAt(i!, s!, e!);
        if (!call.prefix && argvKey(call.key) === k) return call;
      }
      for (const [i, s, e, pk] of prefixes) {
        if (!isPrefix(pk, key)) continue;
        const call = await entryAt(i, s, e);
        if (!call.prefix || !isPrefix(call.key, key)) throw new StaleIndex();
        return call;
      }
      return undefined;
    };
    return {
      full,
      parsedWhole: () => full.parsed,
      async lookup(key) {
        if (fallback) return fallback.lookup(key);
        try {
          return await lookup(key);
        } catch {
          fallback = await rebuild(); // the index disagrees with the bytes: trust the bytes
          return fallback.lookup(key);
        }
      },
    };
  } catch {
    return null;
  }
}

/** An index's rows (sorted by hash), read a block at a time. */
class RowTable {
  private block = { from: 0, text: "" };

  constructor(
    private readonly file: string,
    private readonly table: number,
    private readonly count: number,
  ) {}

  private async load(from: number, to: number): Promise<void> {
    const bytes = await readFileRange(this.file, this.table + from * ROW, this.table + to * ROW);
    this.block = { from, text: latin1.decode(bytes) };
  }

  /** Row `r` without its newline. */
  async row(r: number): Promise<string> {
    if (r < this.block.from || (r - this.block.from + 1) * ROW > this.block.text.length)
      await this.load(r, Math.min(this.count, r + 8));
    const at = (r - this.block.from) * ROW;
    return this.block.text.slice(at, at + ROW - 1);
  }

  private async hash(r: number): Promise<string> {
    return (await this.row(r)).slice(0, 16);
  }

  /**
   * The first row whose hash is at least `h`. The hashes are uniform, so h's rank is near
   * count * h / 2^64: one read of the rows around that (2.5 * sqrt(count) each side, five standard
   * deviations) holds it for all but about one key in a million, which a binary search then finds.
   */
  async firstAtOrAfter(h: string): Promise<number> {
    const guess = Math.floor((Number.parseInt(h.slice(0, 12), 16) / 2 ** 48) * this.count);
    const reach = Math.ceil(2.5 * Math.sqrt(this.count)) + 2;
    let lo = Math.max(0, guess - reach);
    let hi = Math.min(this.count, guess + reach);
    await this.load(lo, hi);
    if (lo > 0 && (await this.hash(lo)) >= h) [lo, hi] = [0, lo];
    else if (hi < this.count && (await this.hash(hi - 1)) < h) [lo, hi] = [hi, this.count];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((await this.hash(mid)) < h) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

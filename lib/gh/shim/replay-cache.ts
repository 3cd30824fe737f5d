// Replay without a scan. For a large cassette a per-user cache file maps the hash of each exact
// entry's normalised argv to the byte span of that entry, so a replay stats the cassette, reads a
// few index rows and JSON-parses one entry (pread, never the whole file: in a fresh process even
// reading 5 MB costs more than the start-up budget). The cache is named by the cassette's identity
// and change stamps (dev, inode, size, mtime, ctime in ns); it is only an accelerator: a missing,
// foreign-owned, corrupt or stale one means a full parse, and every hit is re-checked against bytes.
// A runner that copies a cassette for a sandbox writes the index beside its copy instead
// (lib/gh/shim/case-index.ts, sidecarPath), read first under the same stamp rule.
import {
  type BigIntStats,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, join } from "node:path";
import { readAt, writeFileAtomic } from "../../core/fsx.ts";
import { fastHash } from "../../core/runtime.ts";
import {
  argvKey,
  CallIndex,
  type Cassette,
  type CassetteCall,
  isPrefix,
  parseCassette,
  readCassetteText,
  toCall,
} from "../cassette.ts";
import { callSpans } from "./_spans.ts";

/** What the dispatcher needs from a cassette: a lookup, and the full parse for a miss report. */
export interface Replayer {
  lookup(key: readonly string[]): CassetteCall | undefined;
  full(): Cassette;
  /** True once the whole cassette has been read and parsed (the index exists to avoid that). */
  parsedWhole(): boolean;
}

type LazyCassette = (() => Cassette & { text: string }) & { parsed: boolean };

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

const MAGIC = "proctor-cassette-index-v2";
const MAX_INDEXES = 64;
const ROW = 16 + 1 + 10 + 1 + 10 + 1 + 10 + 1; // hash index start end\n

/** Opens a cassette for replay; throws CassetteError for an unreadable or invalid file. */
export function openReplayer(path: string, opts: ReplayOptions = {}): Replayer {
  const full = lazyFull(path);
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    return memoryReplayer(full); // the read reports the error
  }
  if (!st.isFile() || st.size < BigInt(opts.indexAbove ?? 64 * 1024)) return memoryReplayer(full);
  const stamp = cassetteStamp(st);
  // run-eval's runner writes the index of its final copy beside it, bound read-only into the sandbox
  // (lib/gh/shim/case-index.ts); it counts only while the copy keeps the stamps it was built for.
  const beside = indexedReplayer(path, sidecarPath(path), stamp, full, () => memoryReplayer(full));
  if (beside) return beside;
  const dir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  if (!dir) return memoryReplayer(full);
  const file = join(dir, `${stamp}.idx`);
  const rebuild = (): Replayer => {
    const replayer = memoryReplayer(full);
    const cassette = full(); // an invalid cassette throws here, before any cache is written
    const settled = BigInt(Date.now()) * 1_000_000n - BigInt(opts.settleMs ?? 2000) * 1_000_000n;
    if (st.mtimeNs < settled && st.ctimeNs < settled) {
      try {
        writeFileAtomic(file, buildIndex(Buffer.from(cassette.text, "utf8"), cassette, stamp), {
          mode: 0o600,
        });
        prune(dir);
      } catch {
        // a cache we cannot write only costs time
      }
    }
    return replayer;
  };
  return indexedReplayer(path, file, stamp, full, rebuild) ?? rebuild();
}

/** A cassette's identity and change stamps (dev, inode, size, mtime, ctime in ns), hashed. */
export function cassetteStamp(st: BigIntStats): string {
  return fastHash(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
}

/** Where a runner leaves the index of its cassette copy: `.<name>.idx` in the same directory. */
export function sidecarPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.idx`);
}

function lazyFull(path: string): LazyCassette {
  let cassette: (Cassette & { text: string }) | undefined;
  const full = () => {
    if (!cassette) {
      const text = readCassetteText(path);
      cassette = { ...parseCassette(text, path), text };
      full.parsed = true;
    }
    return cassette;
  };
  full.parsed = false;
  return full;
}

function memoryReplayer(full: LazyCassette): Replayer {
  let index: CallIndex | undefined;
  return {
    lookup(key) {
      index ??= new CallIndex(full().calls);
      return index.lookup(key);
    },
    full,
    parsedWhole: () => full.parsed,
  };
}

/** The index file: header, prefix entries in lookup order (JSON), rows sorted by argv hash. */
export function buildIndex(bytes: Buffer, cassette: Cassette, stamp: string): string {
  const spans = callSpans(bytes);
  if (!spans || spans.length !== cassette.raw.length) throw new Error("cannot locate cassette entries");
  const rows: string[] = [];
  const seen = new Set<string>();
  for (const c of cassette.calls) {
    const k = argvKey(c.key);
    if (c.prefix || seen.has(k)) continue;
    seen.add(k);
    const [start, end] = spans[c.index]!;
    rows.push(`${fastHash(k)} ${pad(c.index)} ${pad(start)} ${pad(end)}\n`);
  }
  rows.sort();
  const order = new CallIndex(cassette.calls).prefixOrder();
  const prefixes = Buffer.from(
    JSON.stringify(order.map((c) => [c.index, ...spans[c.index]!, c.key])),
    "utf8",
  );
  return `${MAGIC} ${stamp} ${rows.length} ${prefixes.length}\n${prefixes}\n${rows.join("")}`;
}

function pad(n: number): string {
  return String(n).padStart(10, "0");
}

class StaleIndex extends Error {}

function indexedReplayer(
  path: string,
  file: string,
  stamp: string,
  full: LazyCassette,
  rebuild: () => Replayer,
): Replayer | null {
  let idx: number;
  try {
    idx = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const head = readAt(idx, 0, 256).toString("latin1");
    const nl = head.indexOf("\n");
    const [magic, stampRead, countText, prefixText] = head.slice(0, nl).split(" ");
    const count = Number(countText);
    const prefixBytes = Number(prefixText);
    const table = nl + 1 + prefixBytes + 1;
    if (magic !== MAGIC || stampRead !== stamp || !Number.isInteger(count) || !Number.isInteger(prefixBytes))
      return null;
    if (fstatSync(idx).size !== table + count * ROW) return null;
    const prefixes = JSON.parse(readAt(idx, nl + 1, prefixBytes).toString("utf8")) as [
      number,
      number,
      number,
      string[],
    ][];
    if (!Array.isArray(prefixes)) return null;
    let fallback: Replayer | undefined;
    const entryAt = (index: number, start: number, end: number): CassetteCall => {
      const fd = openSync(path, "r");
      try {
        const call = toCall(JSON.parse(readAt(fd, start, end - start).toString("utf8")), index);
        if (!call) throw new StaleIndex();
        return call;
      } catch {
        throw new StaleIndex();
      } finally {
        closeSync(fd);
      }
    };
    const lookup = (key: readonly string[]): CassetteCall | undefined => {
      const k = argvKey(key);
      const h = fastHash(k);
      // Binary search with one small pread per probe: 14 reads for 10,000 rows, no page-ins.
      const fd = openSync(file, "r");
      const row = (r: number) => readAt(fd, table + r * ROW, ROW - 1).toString("latin1");
      const rowsFor: string[] = [];
      try {
        let lo = 0;
        let hi = count;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (row(mid).slice(0, 16) < h) lo = mid + 1;
          else hi = mid;
        }
        for (let r = lo; r < count; r++) {
          const text = row(r);
          if (text.slice(0, 16) !== h) break;
          rowsFor.push(text);
        }
      } finally {
        closeSync(fd);
      }
      for (const text of rowsFor) {
        const [, i, s, e] = text.split(" ").map(Number);
        const call = entryAt(i!, s!, e!);
        if (!call.prefix && argvKey(call.key) === k) return call;
      }
      for (const [i, s, e, pk] of prefixes) {
        if (!isPrefix(pk, key)) continue;
        const call = entryAt(i, s, e);
        if (!call.prefix || !isPrefix(call.key, key)) throw new StaleIndex();
        return call;
      }
      return undefined;
    };
    return {
      full,
      parsedWhole: () => full.parsed,
      lookup(key) {
        if (fallback) return fallback.lookup(key);
        try {
          return lookup(key);
        } catch {
          fallback = rebuild(); // the index disagrees with the bytes: trust the bytes
          return fallback.lookup(key);
        }
      },
    };
  } catch {
    return null;
  } finally {
    closeSync(idx);
  }
}

/** Keeps the cache bounded: past MAX_INDEXES files, the least recently written go. */
export function prune(dir: string): void {
  const names = readdirSync(dir).filter((n) => n.endsWith(".idx"));
  if (names.length <= MAX_INDEXES) return;
  const aged = names.map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }));
  aged.sort((a, b) => a.mtime - b.mtime);
  for (const { path } of aged.slice(0, aged.length - MAX_INDEXES)) rmSync(path, { force: true });
}

/** `<tmpdir>/proctor-<user>/cassette-index`, or null when that directory is not ours alone. */
export function defaultCacheDir(): string | null {
  try {
    const uid = process.getuid?.();
    const root = join(tmpdir(), `proctor-${uid ?? userInfo().username}`);
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const st = lstatSync(root);
    if (!st.isDirectory()) return null;
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return null;
    const dir = join(root, "cassette-index");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return null;
  }
}

// The cold side of lib/gh/shim/replay-cache.ts: building a cassette's index and keeping the per-user
// cache of them (written atomically, mode 0600, at most 64, only for a cassette that has stood
// unchanged for a moment; cache-dir.ts says where). A replay loads this only when no index answers
// it, so none of this (node:fs, node:path, fsx) is paid by a call an index answers.
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fsx.ts";
import { type FileStat, fastHash } from "../../core/runtime.ts";
import { argvKey, CallIndex, type Cassette } from "../cassette.ts";
import { MAGIC } from "./_index-format.ts";
import { callSpans } from "./_spans.ts";
import { defaultCacheDir } from "./cache-dir.ts";

const MAX_INDEXES = 64;

/** The index file: header, prefix entries in lookup order (JSON), rows sorted by argv hash. */
export function buildIndex(bytes: Uint8Array, cassette: Cassette, stamp: string): string {
  const spans = callSpans(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
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

/**
 * Writes the index of `cassette` (as stat'ed: `st`, `stamp`) into the cache `dir` (undefined: the
 * per-user one, checked and created here; null: none), unless the cassette changed less than
 * `settleMs` ago. A cache that cannot be written only costs time.
 */
export function writeCacheIndex(
  cassette: Cassette & { text: string },
  st: FileStat,
  stamp: string,
  cacheDir: string | null | undefined,
  settleMs: number,
): void {
  const settled = Date.now() - settleMs;
  if (st.mtimeMs >= settled || st.ctimeMs >= settled) return;
  const dir = cacheDir === undefined ? defaultCacheDir() : cacheDir;
  if (!dir) return;
  try {
    writeFileAtomic(
      join(dir, `${stamp}.idx`),
      buildIndex(Buffer.from(cassette.text, "utf8"), cassette, stamp),
      {
        mode: 0o600,
      },
    );
    prune(dir);
  } catch {
    // a cache we cannot write only costs time
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

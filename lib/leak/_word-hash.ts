// The hashes under lib/leak/_match.ts's word-window search: a word's pair of 32-bit hashes, the fold
// of a window of them into one 53-bit key, and the per-key-set lookup tables. Separate from the
// streaming loop so that loop reads as tokenising only; the two must hash a word identically.

// Word windows are matched on 53-bit hashes, never on built strings: each word's two 32-bit hashes
// are computed as its characters stream by (state carries across chunks, so a word split by a read
// boundary hashes the same), and a window of n words is looked up as the fold of its word hashes.
// This keeps the scan at hundreds of MB/s (tests/bench/leak.ts); building and joining a string per
// word ran at ~7 MB/s. Two independent 32-bit hashes make a false hit (~2^-53 per lookup) far less
// likely than any real leak, and a false hit can only err on the safe side: a run marked leak.

export const M1 = 0x01000193;
export const M2 = 0x5bd1e995;
export const H1 = 0x811c9dc5 | 0;
export const H2 = 0x2f693b52;
const TWO21 = 2097152;

/** A word's hash pair from its characters (a-z, 0-9), as the streaming loop computes it. */
function wordHash(word: string): [number, number] {
  let a = H1;
  let b = H2;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    a = Math.imul(a ^ c, M1);
    b = Math.imul(b ^ c, M2);
    b ^= b >>> 13;
  }
  return [a, b];
}

export const key53 = (a: number, b: number): number => (a >>> 0) * TWO21 + (b >>> 11);

/** The fold of n word hash pairs, oldest first. */
export function foldWindow(
  wa: Int32Array | number[],
  wb: Int32Array | number[],
  start: number,
  n: number,
  size: number,
): number {
  let s1 = 0x9e3779b9 | 0;
  let s2 = 0x7f4a7c15 | 0;
  for (let j = 0; j < n; j++) {
    const idx = (start + j) % size;
    s1 = Math.imul(s1 ^ (wa[idx] as number), M1);
    s1 ^= s1 >>> 15;
    s2 = Math.imul(s2 ^ (wb[idx] as number), M2);
    s2 ^= s2 >>> 13;
  }
  return key53(s1, s2);
}

export interface KeyShape {
  lengths: number[];
  minLen: number;
  maxLen: number;
  /** Ring size: the power of two at or above maxLen. */
  ring: number;
  lastWords: Set<number>;
  /** Low 16 bits of each last word's first hash: most words are rejected by one byte read. */
  lastFilter: Uint8Array;
  /** The same for every word of every key: a word it rejects cannot be in any key, so it breaks every window. */
  wordFilter: Uint8Array;
  table: Map<number, readonly string[]>;
}

/** Per key table, computed once however many files are scanned with it. */
const shapes = new WeakMap<object, KeyShape>();

export function keyShape(keys: ReadonlyMap<string, readonly string[]>): KeyShape {
  const known = shapes.get(keys);
  if (known) return known;
  const lengths = new Set<number>();
  const lastWords = new Set<number>();
  const lastFilter = new Uint8Array(65536);
  const wordFilter = new Uint8Array(65536);
  const table = new Map<number, string[]>();
  for (const [k, values] of keys) {
    const parts = k.split(" ");
    lengths.add(parts.length);
    const hashes = parts.map(wordHash);
    for (const [a] of hashes) wordFilter[a & 0xffff] = 1;
    const [la, lb] = hashes[hashes.length - 1] ?? [0, 0];
    lastWords.add(key53(la, lb));
    lastFilter[la & 0xffff] = 1;
    const h = foldWindow(
      hashes.map((x) => x[0]),
      hashes.map((x) => x[1]),
      0,
      hashes.length,
      hashes.length,
    );
    const list = table.get(h) ?? [];
    for (const v of values) if (!list.includes(v)) list.push(v);
    table.set(h, list);
  }
  const sorted = [...lengths].sort((a, b) => a - b);
  const maxLen = sorted.at(-1) ?? 0;
  let ring = 1;
  while (ring < maxLen) ring *= 2;
  const minLen = sorted[0] ?? 0;
  const shape = { lengths: sorted, minLen, maxLen, ring, lastWords, lastFilter, wordFilter, table };
  shapes.set(keys, shape);
  return shape;
}

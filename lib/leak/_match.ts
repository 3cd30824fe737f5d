// A streaming word-window (shingle) matcher for lib/leak/_scan.ts: fed one chunk at a time with a
// bounded carry, so a window that spans a chunk boundary is still found and memory never depends on
// the file's size. The hashes it matches on are _word-hash.ts; the byte search is _byte-search.ts.
import type { Buffer } from "node:buffer";
import { Utf8Check } from "./_utf8.ts";
import { foldWindow, H1, H2, type KeyShape, key53, keyShape, M1, M2 } from "./_word-hash.ts";

/**
 * Byte -> its lowercase word character (a-z, 0-9), SPECIAL for the two lead bytes that may start a
 * character lowercasing into ASCII (U+212A, U+0130), or 0 for a separator (every other byte).
 */
const SPECIAL = 1;
const WORD_BYTE = new Uint8Array(256);
for (let c = 48; c <= 57; c++) WORD_BYTE[c] = c;
for (let c = 97; c <= 122; c++) WORD_BYTE[c] = c;
for (let c = 65; c <= 90; c++) WORD_BYTE[c] = c + 32;
WORD_BYTE[0xe2] = SPECIAL;
WORD_BYTE[0xc4] = SPECIAL;
/** A run of this many base64 characters is worth decoding (lib/leak/_decode.ts MIN_RUN). */
const ENCODED_RUN = 16;
/** Separators that base64 runs still go through: + / - _ (letters and digits are word bytes). */
const B64_PUNCT = new Uint8Array(256);
for (const ch of "+/-_") B64_PUNCT[ch.charCodeAt(0)] = 1;

/**
 * Tokenises a UTF-8 byte stream exactly like `re.findall(r"[a-z0-9]+", text.lower())` and reports
 * which keys (words joined by one space) of `keys` occur as consecutive words. A non-UTF-8 stream
 * stops matching and is flagged: the original only shingle-checks text that decodes. It works on
 * the bytes (no decoded string): each chunk is validated as UTF-8 (an incomplete sequence at its end
 * is carried into the next), lowercasing is folded into the loop: A-Z, and the only two non-ASCII
 * characters whose lowercase holds an ASCII letter (U+212A KELVIN SIGN -> k; U+0130 -> i plus a
 * combining dot, which ends the word). Every other non-ASCII character separates words.
 */
export class WordWindowSearch {
  /** Values of every key seen so far, in first-seen order. */
  readonly hits = new Set<string>();
  utf8 = true;
  private readonly shape: KeyShape;
  private readonly wa: Int32Array;
  private readonly wb: Int32Array;
  /** Key words seen so far (the ring holds the last of them), wrapping at 2^32. */
  private count = 0;
  /** How many of the last words passed the word filter in a row: no longer key can end here. */
  private run = 0;
  private inWord = false;
  private a = H1;
  private b = H2;
  private readonly utf8Check = new Utf8Check();
  /**
   * Set when a run of ENCODED_RUN+ base64 characters went by (the scan loop notes it for free);
   * lib/leak/_scan.ts skips looking for encoded runs in text where it stayed false.
   */
  sawEncoded = false;
  private encodedRun = 0;

  constructor(keys: ReadonlyMap<string, readonly string[]>) {
    this.shape = keyShape(keys);
    this.wa = new Int32Array(this.shape.ring);
    this.wb = new Int32Array(this.shape.ring);
  }

  get active(): boolean {
    return this.utf8 && this.shape.maxLen > 0;
  }

  push(chunk: Buffer): void {
    if (!this.active) return;
    const part = this.utf8Check.push(chunk);
    if (!part.ok) {
      this.utf8 = false;
      return;
    }
    if (part.head) this.scan(part.head, 0, part.head.length);
    this.scan(chunk, part.from, part.to);
  }

  /** Nothing carried that a later byte could extend: no window open, no word, no character. */
  get idle(): boolean {
    return this.run === 0 && !this.inWord && this.utf8Check.idle;
  }

  /** Takes `other`'s position in the stream (same keys): both then match alike on the same input. */
  follow(other: WordWindowSearch): void {
    this.wa.set(other.wa);
    this.wb.set(other.wb);
    this.count = other.count;
    this.run = other.run;
    this.inWord = other.inWord;
    this.a = other.a;
    this.b = other.b;
    this.utf8 = other.utf8;
    this.utf8Check.follow(other.utf8Check);
  }

  /** A fresh stream; hits so far are kept. */
  reset(): void {
    this.count = 0;
    this.encodedRun = 0;
    this.sawEncoded = false;
    this.run = 0;
    this.inWord = false;
    this.a = H1;
    this.b = H2;
    this.utf8 = true;
    this.utf8Check.follow(new Utf8Check());
  }

  end(): void {
    if (!this.active) return;
    if (!this.utf8Check.end()) {
      this.utf8 = false; // the stream ends inside a character
      return;
    }
    if (this.inWord) this.endWord();
  }

  private scan(buf: Uint8Array, from: number, to: number): void {
    // Hot loop: locals only, one table read per byte, a word's bytes in a loop of their own (the
    // branch between word and separator bytes is the loop's cost; ~15% less CPU than one flat
    // loop, tests/bench/leak.ts). A word that the word filter rejects breaks
    // every window (run = 0) and does not advance the ring; the rest do, and check() runs
    // only when `run` key words in a row end in a possible last word. The input is valid UTF-8 (push
    // checked it), so a SPECIAL lead byte's continuation bytes are inside [from, to).
    const { minLen, lastFilter, wordFilter } = this.shape;
    const mask = this.shape.ring - 1;
    const wa = this.wa;
    const wb = this.wb;
    let a = this.a;
    let b = this.b;
    let inWord = this.inWord ? 1 : 0;
    let count = this.count;
    let run = this.run;
    let runFrom = from - this.encodedRun; // where the current run of base64 characters started
    let encoded = 0;
    let i = from;
    while (i < to) {
      let c = WORD_BYTE[buf[i]!]!;
      if (c > SPECIAL) {
        // A run of word bytes: one predictable loop, no separator work.
        do {
          a = Math.imul(a ^ c, M1);
          b = Math.imul(b ^ c, M2);
          b ^= b >>> 13;
          if (++i === to) break;
          c = WORD_BYTE[buf[i]!]!;
        } while (c > SPECIAL);
        inWord = 1;
        if (i === to) break;
      }
      if (c === SPECIAL) {
        c = 0;
        let ends = false;
        if (buf[i] === 0xe2 && buf[i + 1] === 0x84 && buf[i + 2] === 0xaa) {
          c = 107; // U+212A KELVIN SIGN lowercases to k
          i += 2;
        } else if (buf[i] === 0xc4 && buf[i + 1] === 0xb0) {
          c = 105; // U+0130 lowercases to i + U+0307, which ends the word
          i += 1;
          ends = true;
        }
        if (c !== 0) {
          a = Math.imul(a ^ c, M1);
          b = Math.imul(b ^ c, M2);
          b ^= b >>> 13;
          inWord = 1;
          if (!ends) {
            i++;
            continue;
          }
        }
      }
      // A separator. Branch-free (word ends are unpredictable): outside a word it changes nothing;
      // at a word's end, a word the filter passes (f = 1) is kept in the ring and extends `run`,
      // any other resets it. The slot at `count` is free until count moves past it.
      const f = wordFilter[a & 0xffff]! & inWord;
      const slot = count & mask;
      wa[slot] = a;
      wb[slot] = b;
      count = (count + f) | 0;
      run = (run + f) * (f | (1 - inWord));
      if (run >= minLen && f === 1 && lastFilter[a & 0xffff] !== 0) {
        this.count = count;
        this.run = run;
        this.check(slot);
      }
      inWord = 0;
      a = H1;
      b = H2;
      if (B64_PUNCT[buf[i]!] === 0) {
        encoded |= i - runFrom >= ENCODED_RUN ? 1 : 0;
        runFrom = i + 1;
      }
      i++;
    }
    this.a = a;
    this.b = b;
    this.inWord = inWord === 1;
    this.count = count;
    this.run = run;
    this.encodedRun = to - runFrom;
    if (encoded === 1 || this.encodedRun >= ENCODED_RUN) this.sawEncoded = true;
  }

  /** Ends the word being read (at the end of the stream). */
  private endWord(): void {
    const { minLen, lastFilter, wordFilter } = this.shape;
    const a = this.a;
    const b = this.b;
    this.inWord = false;
    this.a = H1;
    this.b = H2;
    if (wordFilter[a & 0xffff] === 0) {
      this.run = 0;
      return;
    }
    const slot = this.count & (this.shape.ring - 1);
    this.wa[slot] = a;
    this.wb[slot] = b;
    this.count = (this.count + 1) | 0;
    this.run++;
    if (this.run >= minLen && lastFilter[a & 0xffff] !== 0) this.check(slot);
  }

  /** The word in `slot` may end a key: look up every key length ending there. */
  private check(slot: number): void {
    const { lastWords, lengths, table, ring } = this.shape;
    if (!lastWords.has(key53(this.wa[slot]!, this.wb[slot]!))) return;
    for (const len of lengths) {
      if (this.run < len) break;
      const start = (this.count - len) & (ring - 1);
      const values = table.get(foldWindow(this.wa, this.wb, start, len, ring));
      if (values) for (const v of values) this.hits.add(v);
    }
  }
}

// The leak scans' text normalisation: default-ignorable and format characters (zero-width spaces and
// joiners, soft hyphens, bidi controls, variation selectors, tags) dropped, then NFKC (fullwidth,
// mathematical and circled forms, ligatures), then the confusables skeleton (lib/leak/_confusables.ts:
// Cyrillic, Greek, Armenian, Cherokee look-alikes -> Latin). The same function serves the needles and
// the haystack; the streaming form here works on bytes in bounded memory and is the identity on ASCII.
import { Buffer } from "node:buffer";
import { CONFUSABLES } from "./_confusables.ts";
import { MIN_STRETCH, stretches, TEXT } from "./_stretches.ts";
import { isAscii, validUtf8 } from "./_utf8.ts";

const MAPPED = new RegExp(
  `[\\p{Default_Ignorable_Code_Point}\\p{Cf}${[...CONFUSABLES.keys()].map((cp) => `\\u{${cp.toString(16)}}`).join("")}]`,
  "u",
);
/** Characters that may change, or change their neighbour, when normalised (marks compose). */
const UNSTABLE = new RegExp(`${MAPPED.source}|[\\p{M}\u1160-\u11FF]`, "u");

const KEEP = 0;
const DROP = 1;
/** BMP code unit -> KEEP, DROP (ignorable or format) or its Latin look-alike; built on first use. */
let units: Uint16Array | undefined;

function unitTable(): Uint16Array {
  const table = new Uint16Array(0x10000);
  // One pass of the pattern over every BMP character past ASCII (surrogates left out: astral
  // characters are looked up whole), not 63,000 tests of one character each: ~10x faster to build.
  const units = new Uint16Array(0x10000 - 0x80 - 0x800);
  let n = 0;
  for (let c = 0x80; c < 0x10000; c++) if (c < 0xd800 || c > 0xdfff) units[n++] = c;
  const all = utf16.decode(units);
  for (const m of all.matchAll(new RegExp(MAPPED.source, "gu"))) table[m[0].charCodeAt(0)] = DROP;
  for (const [c, target] of CONFUSABLES) if (c < 0x10000) table[c] = target.charCodeAt(0);
  return table;
}

const utf16 = new TextDecoder("utf-16le");

/** Ignorables dropped and look-alikes mapped, one pass with a table (a regex callback per match crawls). */
function skeleton(text: string): string {
  units ??= unitTable();
  const table = units;
  const out = new Uint16Array(text.length);
  let w = 0;
  let changed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      out[w++] = c;
      continue;
    }
    const low = c >= 0xd800 && c <= 0xdbff ? text.charCodeAt(i + 1) : 0;
    if (low >= 0xdc00 && low <= 0xdfff) {
      const pair = text.slice(i, i + 2); // astral: tags, variation selectors supplement, emoji
      i++;
      if (MAPPED.test(pair)) changed = true;
      else {
        out[w++] = c;
        out[w++] = low;
      }
      continue;
    }
    const t = table[c]!;
    if (t === KEEP) out[w++] = c;
    else {
      changed = true;
      if (t !== DROP) out[w++] = t;
    }
  }
  return changed ? utf16.decode(out.subarray(0, w)) : text;
}

/** The normalised form of `text`: what every leak scan compares, needles and haystack alike. */
export function normalizeText(text: string): string {
  // Skeleton and ignorables both before NFKC (a look-alike NFKC would turn into another letter, e.g.
  // U+03F9 -> Sigma; an ignorable between a letter and its combining mark) and after it (what a
  // compatibility form decomposes into).
  const first = skeleton(text);
  const nfkc = first.normalize("NFKC");
  return nfkc === first ? first : skeleton(nfkc);
}

const decoder = new TextDecoder("utf-8"); // not fatal: an invalid byte becomes U+FFFD, a separator
const EMPTY = Buffer.alloc(0);
/** Carried bytes with no ASCII byte to cut at: past this, cut at a character boundary anyway. */
const MAX_CARRY = 64 * 1024;
/** What separates two stretches in the output: in no word, no base64 run, no canary. */
const GAP_BYTE = Buffer.from([0]);

/** One normalised stretch: `raw` (whole characters) became `out`; `changed` is false when equal. */
export interface Normalized {
  raw: Buffer;
  out: Buffer;
  changed: boolean;
}

/**
 * Normalises a byte stream chunk by chunk. NFKC is local: nothing composes with a preceding ASCII
 * character, so the stream is cut just before its last ASCII byte and the rest carried (at most
 * MAX_CARRY bytes). An all-ASCII chunk is returned as it is (the scan's fast path); UTF-8 text is
 * normalised whole; bytes that are not UTF-8 (binaries, decoded noise) are reduced to their text
 * stretches, normalised one by one and joined by a NUL.
 */
export class Normalizer {
  private carry: Buffer = EMPTY;

  /**
   * `minStretch`: in bytes that are not UTF-8, shorter stretches of text are dropped (at least
   * MIN_STRETCH; a caller whose shortest needle has N bytes may pass 3N/4: NFKC grows no character
   * by more than 4/3).
   */
  constructor(private readonly minStretch = MIN_STRETCH) {}

  /** The normalised stretches the chunk completes (often 1 or 2; none while a stretch is carried). */
  push(chunk: Buffer): Normalized[] {
    const len = chunk.length;
    if (len > 0 && this.carry.length <= 1 && (this.carry[0] ?? 0) < 0x80 && isAscii(chunk)) {
      // The fast path: ASCII is its own normal form. Only the last byte waits (a combining mark at
      // the start of the next chunk would compose with it).
      const out: Normalized[] = [];
      if (this.carry.length === 1) out.push(same(this.carry));
      out.push(same(chunk.subarray(0, len - 1)));
      this.carry = Buffer.from(chunk.subarray(len - 1));
      return out;
    }
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    let cut = data.length - 1;
    while (cut >= 0 && data[cut]! >= 0x80) cut--;
    if (cut <= 0) {
      if (data.length <= MAX_CARRY) {
        this.carry = Buffer.from(data);
        return [];
      }
      cut = data.length;
      while (cut > 0 && (data[cut - 1]! & 0xc0) === 0x80) cut--; // continuation bytes stay together
      if (cut > 0 && data[cut - 1]! >= 0xc0) cut--;
      if (cut === 0) cut = data.length; // no character boundary at all: invalid bytes, U+FFFD each
    }
    const head = data.subarray(0, cut);
    if (!validUtf8(head)) {
      // A stretch of text reaching the cut goes on in the next chunk: carry it whole.
      let s = cut;
      while (s > 0 && cut - s < MAX_CARRY && TEXT[data[s - 1]!] !== 0) s--;
      if (s > 0) cut = s;
    }
    this.carry = Buffer.from(data.subarray(cut)); // copy: the read buffer is reused
    return [normalizeBytes(data.subarray(0, cut), this.minStretch)];
  }

  /** The rest of the stream (its end: nothing follows to compose with). */
  end(): Normalized {
    const rest = this.carry;
    this.carry = EMPTY;
    return normalizeBytes(rest, this.minStretch);
  }
}

const same = (raw: Buffer): Normalized => ({ raw, out: raw, changed: false });

/**
 * The normalised form of whole characters (not a stream: nothing is carried); in bytes that are not
 * UTF-8, stretches of text shorter than `minStretch` bytes are dropped.
 */
export function normalizeBytes(raw: Buffer, minStretch = MIN_STRETCH): Normalized {
  if (isAscii(raw)) return same(raw);
  if (!validUtf8(raw))
    return { raw, out: textStretches(raw, Math.max(MIN_STRETCH, minStretch)), changed: true };
  if (allStable(raw)) return same(raw);
  const text = decoder.decode(raw);
  const out = Buffer.from(normalizeText(text), "utf8");
  const changed = !out.equals(raw);
  return { raw, out: changed ? out : raw, changed };
}

/** Per code point: 0 not yet known, 1 normalises to itself alone and next to anything, 2 not. */
let stable: Uint8Array | undefined;

/**
 * Whether valid UTF-8 `raw` is its own normal form: every non-ASCII character is stable (prose
 * repeats a few: dashes, quotes, accents), so most text costs one pass and a table read per one.
 */
function allStable(raw: Buffer): boolean {
  stable ??= new Uint8Array(0x110000);
  const table = stable;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b < 0x80) continue;
    let cp: number;
    if (b < 0xe0) {
      cp = ((b & 0x1f) << 6) | (raw[i + 1]! & 0x3f);
      i += 1;
    } else if (b < 0xf0) {
      cp = ((b & 0x0f) << 12) | ((raw[i + 1]! & 0x3f) << 6) | (raw[i + 2]! & 0x3f);
      i += 2;
    } else {
      cp =
        ((b & 0x07) << 18) |
        ((raw[i + 1]! & 0x3f) << 12) |
        ((raw[i + 2]! & 0x3f) << 6) |
        (raw[i + 3]! & 0x3f);
      i += 3;
    }
    let t = table[cp]!;
    if (t === 0) {
      const ch = String.fromCodePoint(cp);
      t = ch.normalize("NFKC") === ch && !UNSTABLE.test(ch) ? 1 : 2;
      table[cp] = t;
    }
    if (t === 2) return false;
  }
  return true;
}

/** The stretches of text of `min`+ bytes in `raw`, each normalised, joined by GAP bytes. */
function textStretches(raw: Buffer, min: number): Buffer {
  const pieces: Buffer[] = [];
  stretches(raw, raw.length, min, (start, end) => {
    const text = raw.subarray(start, end);
    // Lenient about overlong and surrogate forms: the decoder turns those into U+FFFD.
    pieces.push(isAscii(text) ? text : Buffer.from(normalizeText(decoder.decode(text)), "utf8"), GAP_BYTE);
    return false;
  });
  return pieces.length === 0 ? EMPTY : Buffer.concat(pieces);
}

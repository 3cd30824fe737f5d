// The canary written with escapes, for lib/leak/_scan.ts: backslash escapes (`\x43`, `\x{43}`,
// `\u0043`, `\u{43}`, `\U00000043`, octal `\103` or echo's `\0103`, after any run of backslashes, as
// JSON writes an escape inside a string), HTML character references (`&#67;`, `&#x43;`, leading
// zeros, the `;` optional, and the named ones of ASCII punctuation) and URL percent-encoding (`%43`),
// each character alone or all of them, twice over at most (`&amp;#67;`). It reads the normalised
// stream, so a binary costs only its stretches of text. A read that holds none of `\`, `&` or `%`
// (three native byte searches) costs nothing more; one that does is decoded from its escapes only
// (literal stretches copied natively), its seam with the read before it apart, and searched for the
// canary as given and normalised.
import { Buffer } from "node:buffer";
import { normalizeBytes } from "./_normalize.ts";

const BACKSLASH = 0x5c;
const AMP = 0x26;
const PERCENT = 0x25;
/** Digits a numeric escape may have (zeros in front included). */
const MAX_DIGITS = 16;
/** Rounds of decoding: an escape written with escapes (`&amp;#67;`, `%2541`). */
const ROUNDS = 2;

/** HTML's named references of ASCII punctuation, the ones a canary may need (`-` has none). */
const NAMED: Readonly<Record<string, number>> = {
  excl: 33,
  quot: 34,
  QUOT: 34,
  num: 35,
  dollar: 36,
  percnt: 37,
  amp: 38,
  AMP: 38,
  apos: 39,
  lpar: 40,
  rpar: 41,
  ast: 42,
  midast: 42,
  plus: 43,
  comma: 44,
  period: 46,
  sol: 47,
  colon: 58,
  semi: 59,
  lt: 60,
  LT: 60,
  equals: 61,
  gt: 62,
  GT: 62,
  quest: 63,
  commat: 64,
  lsqb: 91,
  lbrack: 91,
  bsol: 92,
  rsqb: 93,
  rbrack: 93,
  Hat: 94,
  lowbar: 95,
  UnderBar: 95,
  grave: 96,
  lcub: 123,
  lbrace: 123,
  verbar: 124,
  vert: 124,
  VerticalLine: 124,
  rcub: 125,
  rbrace: 125,
};

const isHex = (b: number | undefined) =>
  b !== undefined && ((b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102));
const isDigit = (b: number | undefined) => b !== undefined && b >= 48 && b <= 57;
const isOctal = (b: number | undefined) => b !== undefined && b >= 48 && b <= 55;
const isLetter = (b: number | undefined) =>
  b !== undefined && ((b >= 65 && b <= 90) || (b >= 97 && b <= 122));

/** `min` to `max` digits of `base` at `at`: their value and where they end, or null. */
function digits(
  data: Buffer,
  at: number,
  base: 8 | 10 | 16,
  min: number,
  max: number,
): { value: number; end: number } | null {
  const ok = base === 16 ? isHex : base === 10 ? isDigit : isOctal;
  let end = at;
  while (end < data.length && end - at < max && ok(data[end])) end++;
  if (end - at < min) return null;
  return { value: Number.parseInt(data.toString("latin1", at, end), base), end };
}

/** The code point an escape at `i` stands for and where it ends, or null (not an escape). */
function escapeAt(data: Buffer, i: number): { cp: number; end: number } | null {
  const lead = data[i];
  if (lead === PERCENT) {
    if (!isHex(data[i + 1]) || !isHex(data[i + 2])) return null;
    return { cp: -Number.parseInt(data.toString("latin1", i + 1, i + 3), 16) - 1, end: i + 3 }; // a byte
  }
  if (lead === AMP) {
    if (data[i + 1] !== 35) {
      let e = i + 1;
      while (e - i <= 13 && isLetter(data[e])) e++;
      const cp = data[e] === 59 ? NAMED[data.toString("latin1", i + 1, e)] : undefined;
      return cp === undefined ? null : { cp, end: e + 1 };
    }
    const hex = data[i + 2] === 120 || data[i + 2] === 88;
    const d = digits(data, i + (hex ? 3 : 2), hex ? 16 : 10, 1, MAX_DIGITS);
    if (!d) return null;
    return { cp: d.value, end: data[d.end] === 59 ? d.end + 1 : d.end };
  }
  // A run of backslashes (JSON writes `\u0043` inside a string as `\\u0043`), then the escape.
  let k = i;
  while (data[k] === BACKSLASH) k++;
  const c = data[k];
  let d: { value: number; end: number } | null = null;
  if ((c === 120 || c === 117) && data[k + 1] === 123) {
    d = digits(data, k + 2, 16, 1, 8);
    if (d && data[d.end] !== 125) d = null;
    else if (d) d.end++;
  } else if (c === 120) d = digits(data, k + 1, 16, 1, 2);
  else if (c === 117) d = digits(data, k + 1, 16, 4, 4);
  else if (c === 85) d = digits(data, k + 1, 16, 8, 8);
  else if (isOctal(c)) {
    // `echo -e` and printf's %b write a byte as \0nnn; C and most languages as \nnn.
    const echo = c === 48 ? digits(data, k + 1, 8, 3, 3) : null;
    d = echo && echo.value <= 0xff ? echo : digits(data, k, 8, 1, 3);
  }
  return d ? { cp: d.value, end: d.end } : null;
}

/** Writes code point `cp` as UTF-8 (a negative `cp` is the raw byte -cp-1); returns the bytes written. */
function put(out: Buffer, at: number, cp: number): number {
  if (cp < 0) {
    out[at] = -cp - 1;
    return 1;
  }
  const ch = cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(cp);
  return out.write(ch, at, "utf8");
}

/** `data` with every escape decoded, or null when it holds none; `wide`: a character past ASCII came out. */
export function unescapeBytes(data: Buffer): { out: Buffer; wide: boolean } | null {
  let out: Buffer | null = null;
  let w = 0;
  let last = 0;
  let wide = false;
  const next = [data.indexOf(BACKSLASH), data.indexOf(AMP), data.indexOf(PERCENT)];
  for (;;) {
    let i = -1;
    for (const n of next) if (n >= 0 && (i < 0 || n < i)) i = n;
    if (i < 0) break;
    const e = escapeAt(data, i);
    let after = i + 1;
    if (e) {
      // Decoded text is never longer than its escape, so the output never outgrows the input.
      out ??= Buffer.allocUnsafe(data.length);
      w += data.copy(out, w, last, i);
      w += put(out, w, e.cp);
      if (e.cp >= 0x80 || e.cp < -0x80) wide = true; // a character past ASCII, or such a byte
      last = after = e.end;
    } else if (data[i] === BACKSLASH) while (data[after] === BACKSLASH) after++;
    for (let t = 0; t < 3; t++)
      if ((next[t] as number) >= 0 && (next[t] as number) < after)
        next[t] = data.indexOf([BACKSLASH, AMP, PERCENT][t] as number, after);
  }
  if (!out) return null;
  w += data.copy(out, w, last);
  return { out: out.subarray(0, w), wide };
}

const hasTrigger = (b: Buffer): boolean =>
  b.indexOf(BACKSLASH) !== -1 || b.indexOf(AMP) !== -1 || b.indexOf(PERCENT) !== -1;

/**
 * Looks for the canary (as given or normalised) in the escapes of a stream of text (the normalised
 * stream: a binary's stretches of text only), with a bounded carry.
 */
export class EscapeScan {
  found = false;
  private tail: Buffer = Buffer.alloc(0);
  private tailTriggered = false;
  /** Bytes carried: the longest the canary can be written with escapes. */
  private readonly keep: number;

  constructor(
    private readonly canary: Buffer,
    private readonly normalized: Buffer,
  ) {
    this.keep = Math.min(64 * 1024, Math.max(canary.length, normalized.length) * 24);
  }

  push(chunk: Buffer): void {
    if (this.found || this.canary.length === 0 || chunk.length === 0) return;
    // A canary written across the seam lies within the carry and the chunk's first `keep` bytes; one
    // inside the chunk, within the chunk: neither search copies the chunk.
    if (this.tail.length > 0) {
      const head = chunk.subarray(0, this.keep);
      if (this.tailTriggered || hasTrigger(head)) this.search(Buffer.concat([this.tail, head]));
    }
    if (!this.found && chunk.length > this.keep && hasTrigger(chunk)) this.search(chunk);
    const keep = Math.min(this.keep, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep)); // copy: the read buffer is reused
    this.tailTriggered = hasTrigger(this.tail);
  }

  private search(data: Buffer): void {
    let text = data;
    for (let round = 0; round < ROUNDS && !this.found; round++) {
      const r = unescapeBytes(text);
      if (!r) return;
      text = r.out;
      this.found =
        text.indexOf(this.canary) !== -1 ||
        text.indexOf(this.normalized) !== -1 ||
        (r.wide && normalizeBytes(text).out.indexOf(this.normalized) !== -1);
    }
  }
}

// Streaming matchers for lib/leak.ts: a byte-substring search and a word-window (shingle) search,
// each fed one chunk at a time with a bounded carry, so a match that spans a chunk boundary is still
// found and memory never depends on the file's size.

/** Finds `needle` in a byte stream; the carry is at most `needle.length - 1` bytes. */
export class ByteSearch {
  found = false;
  private tail: Buffer = Buffer.alloc(0);
  /** An empty needle is never found (no canary, no canary check). */
  constructor(private readonly needle: Buffer) {}

  push(chunk: Buffer): void {
    const n = this.needle.length;
    if (this.found || n === 0) return;
    if (this.tail.length > 0) {
      // Only the window that straddles the boundary: carry + the first n-1 bytes of this chunk.
      const seam = Buffer.concat([this.tail, chunk.subarray(0, n - 1)]);
      if (seam.indexOf(this.needle) !== -1) {
        this.found = true;
        return;
      }
    }
    if (chunk.indexOf(this.needle) !== -1) {
      this.found = true;
      return;
    }
    const keep = Math.min(n - 1, this.tail.length + chunk.length);
    const joined =
      chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(joined.subarray(joined.length - keep)); // copy: the read buffer is reused
  }
}

const WORD = /[a-z0-9]+/g;

interface KeyShape {
  lengths: number[];
  maxWord: number;
  lastWords: Set<string>;
}

/** Per key table, computed once however many files are scanned with it. */
const shapes = new WeakMap<object, KeyShape>();

function keyShape(keys: ReadonlyMap<string, readonly string[]>): KeyShape {
  const known = shapes.get(keys);
  if (known) return known;
  const lengths = new Set<number>();
  const lastWords = new Set<string>();
  let maxWord = 0;
  for (const k of keys.keys()) {
    const parts = k.split(" ");
    lengths.add(parts.length);
    for (const w of parts) maxWord = Math.max(maxWord, w.length);
    lastWords.add(parts[parts.length - 1] ?? "");
  }
  const shape = { lengths: [...lengths].sort((a, b) => a - b), maxWord, lastWords };
  shapes.set(keys, shape);
  return shape;
}

/**
 * Tokenises a UTF-8 byte stream exactly like `re.findall(r"[a-z0-9]+", text.lower())` and reports
 * which keys (words joined by one space) of `keys` occur as consecutive words. A non-UTF-8 stream
 * stops matching and is flagged: the original only shingle-checks text that decodes.
 */
export class WordWindowSearch {
  /** Values of every key seen so far, in first-seen order. */
  readonly hits = new Set<string>();
  utf8 = true;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private readonly lengths: number[];
  private readonly maxLen: number;
  private readonly maxWord: number;
  /** Last words of the keys: a window ending in any other word cannot match, so no join is built. */
  private readonly lastWords: Set<string>;
  private window: string[] = [];
  private pending = "";
  /** Inside a word longer than any key word: it can match nothing, so only its slot is kept. */
  private overlong = false;

  constructor(private readonly keys: ReadonlyMap<string, readonly string[]>) {
    const shape = keyShape(keys);
    this.lengths = shape.lengths;
    this.maxLen = shape.lengths.at(-1) ?? 0;
    this.maxWord = shape.maxWord;
    this.lastWords = shape.lastWords;
  }

  get active(): boolean {
    return this.utf8 && this.maxLen > 0;
  }

  push(chunk: Buffer): void {
    if (!this.active) return;
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      this.utf8 = false;
      return;
    }
    this.feed(text, false);
  }

  end(): void {
    if (!this.active) return;
    let text: string;
    try {
      text = this.decoder.decode();
    } catch {
      this.utf8 = false;
      return;
    }
    this.feed(text, true);
  }

  private feed(text: string, last: boolean): void {
    let s = text.toLowerCase();
    if (this.overlong) {
      const lead = /^[a-z0-9]*/.exec(s)?.[0].length ?? 0;
      if (lead === s.length && !last) return; // the overlong word goes on
      this.overlong = false;
      this.word("#"); // a slot no key can match
      s = s.slice(lead);
    }
    s = this.pending + s;
    this.pending = "";
    WORD.lastIndex = 0;
    for (let m = WORD.exec(s); m !== null; m = WORD.exec(s)) {
      if (!last && m.index + m[0].length === s.length) {
        // May continue in the next chunk; a word too long for any key keeps only its slot.
        if (m[0].length > this.maxWord) this.overlong = true;
        else this.pending = m[0];
        break;
      }
      this.word(m[0]);
    }
  }

  private word(w: string): void {
    const win = this.window;
    win.push(w);
    if (win.length > this.maxLen) win.shift();
    if (!this.lastWords.has(w)) return;
    for (const n of this.lengths) {
      if (win.length < n) break;
      const key = (n === win.length ? win : win.slice(win.length - n)).join(" ");
      for (const v of this.keys.get(key) ?? []) this.hits.add(v);
    }
  }
}

// Encoded runs for the leak scans: every run of 16+ base64 characters (standard and url-safe alphabets
// alike, padded or not, line breaks inside a run skipped) is decoded at each of its 4 alignments, and
// every run of 16+ hex digits at both of its 2, so a payload glued to other letters is still decoded
// cleanly at one of them. Decoded bytes go to a sink (lib/leak/_scan.ts normalises and scans them);
// the run's own characters may go to another (the base32 canary is looked for there: base32 is made
// of base64's characters, so text without a run costs nothing more).
// Streamed: a run may span chunks and be any length; each alignment buffers at most FLUSH bytes.
import { Buffer } from "node:buffer";
import { B64, CHAR, HEX, isChar, NONE, SKIP } from "./_alphabet.ts";
import { hasText } from "./_stretches.ts";

/**
 * Where decoded bytes go: `push` any number of times per run, then `end` once per run. A pushed
 * buffer is a view of a reused buffer: valid only during the call.
 */
export interface DecodedSink {
  push(bytes: Buffer): void;
  end(): void;
}

/** Fewest characters (line breaks not counted) a run needs to be decoded. */
export const MIN_RUN = 16;
/** A whole run shorter than this is decoded a character at a time (the runtime's decoder costs more per call). */
const SHORT_RUN = 256;
const FLUSH = 64 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * Finds and decodes base64 and hex runs in a byte stream. A run of 16+ bytes covers one of every 16
 * consecutive offsets, so only every 16th byte is looked at until one is in the alphabet: text with
 * short words costs about one table read per 16 bytes.
 */
export class EncodedRuns {
  /** Lanes 0-3: base64 at alignments 0-3; lanes 4-5: hex at alignments 0-1. */
  private readonly sinks: (DecodedSink | undefined)[] = [];
  private readonly outs: Buffer[];
  private readonly lens = new Int32Array(6);
  private readonly flushed = new Uint8Array(6);
  /** Per base64 alignment: the characters of an unfinished quantum. */
  private readonly tails = ["", "", "", ""];
  private prevHex = 0;
  /** A run reaching the end of the last chunk, not yet MIN_RUN long: its characters, breaks dropped. */
  private readonly pending = new Uint8Array(MIN_RUN);
  private pendingLen = 0;
  private open = false;
  private b64Count = 0;
  private hexCount = 0;

  /**
   * `sink(kind, alignment)` gives each of the 6 lanes its sink, when it first has bytes for it.
   * `minChars`: a whole run shorter than this is not decoded (the caller's shortest needle: decoded
   * bytes are 3/4 of the characters, and no character's NFKC form is more than 4/3 of its bytes);
   * `minStretch`: a run's decoded bytes without a stretch of text that long are not scanned.
   */
  constructor(
    private readonly sink: (kind: "base64" | "hex", alignment: number) => DecodedSink,
    private readonly minChars = MIN_RUN,
    private readonly minStretch = 0,
    /** Also given each run's characters as they are (line breaks included), `end` after each run. */
    private readonly runText?: DecodedSink,
  ) {
    this.outs = [0, 1, 2, 3, 4, 5].map(() => EMPTY);
  }

  push(chunk: Uint8Array): void {
    const len = chunk.length;
    let i = 0;
    if (!this.open && this.pendingLen > 0) {
      while (i < len && isChar(chunk[i]!)) i++;
      if (this.pendingLen + i >= MIN_RUN) {
        this.openPending();
        this.feed(chunk, 0, i);
      } else if (i === len) {
        this.keep(chunk, 0, len); // still short of MIN_RUN
        return;
      } else this.pendingLen = 0;
    }
    if (this.open) {
      let j = i;
      while (j < len && B64[chunk[j]!] !== NONE) j++; // a proved run goes on across line breaks
      this.feed(chunk, i, j);
      if (j === len) return;
      this.close();
      i = j;
    }
    let done = i; // everything before `done` is settled
    for (let p = i + MIN_RUN - 1; p < len; p += MIN_RUN) {
      if (p < done || CHAR[chunk[p]!] === 0) continue;
      let s = p;
      while (s > done && CHAR[chunk[s - 1]!] === 1) s--;
      let e = p + 1;
      while (e < len && CHAR[chunk[e]!] === 1) e++;
      done = e;
      if (e - s < MIN_RUN) {
        if (e === len) this.keep(chunk, s, e);
        continue;
      }
      // A proved run goes on across line breaks (wrapped base64); a short line never starts one.
      while (e < len && B64[chunk[e]!] !== NONE) e++;
      done = e;
      if (e < len && e - s < this.minChars) continue; // whole, and too short to hold any needle
      this.open = true;
      if (e < len && e - s < SHORT_RUN) this.feedShort(chunk, s, e);
      else this.feed(chunk, s, e);
      if (e < len) this.close();
    }
    if (done < len && !this.open) {
      let t = len;
      while (t > done && isChar(chunk[t - 1]!)) t--;
      this.keep(chunk, t, len);
    }
  }

  /** A run (16+ characters) is being decoded. */
  get inRun(): boolean {
    return this.open;
  }

  /**
   * Takes a chunk in which no run of MIN_RUN characters ends or goes on, not even with the characters
   * kept from the last chunk (the word scan saw none): only its last characters are kept, in case
   * the next chunk makes them one.
   */
  skip(chunk: Uint8Array): void {
    let t = chunk.length;
    while (t > 0 && isChar(chunk[t - 1]!)) t--;
    if (t > 0) this.pendingLen = 0;
    if (this.pendingLen + chunk.length - t >= MIN_RUN) {
      this.push(chunk); // not so after all
      return;
    }
    this.keep(chunk, t, chunk.length);
  }

  /** The end of the stream ends any run. */
  end(): void {
    this.pendingLen = 0; // shorter than MIN_RUN, or it would be open
    if (this.open) this.close();
  }

  /** Keeps a short run's characters (line breaks dropped) until the next chunk says how long it is. */
  private keep(bytes: Uint8Array, from: number, to: number): void {
    for (let k = from; k < to; k++) this.pending[this.pendingLen++] = bytes[k]!; // to - from < MIN_RUN
  }

  private openPending(): void {
    this.open = true;
    this.feed(this.pending, 0, this.pendingLen);
    this.pendingLen = 0;
  }

  /**
   * A whole short run, base64 a character at a time: at each character, 3 of the 4 alignments
   * complete a byte from it and the character before (which byte of the quantum depends on the
   * alignment).
   */
  private feedShort(bytes: Uint8Array, from: number, to: number): void {
    this.runText?.push(Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from));
    const outs = this.outs;
    const lens = this.lens;
    let prev = 0;
    let n = 0;
    for (let i = from; i < to; i++) {
      const v = B64[bytes[i]!]!;
      if (v === SKIP) continue;
      for (let a = 0; a < 4 && a < n; a++) {
        const q = (n - a) & 3;
        if (q === 0) continue;
        const out = q === 1 ? (prev << 2) | (v >> 4) : q === 2 ? (prev << 4) | (v >> 2) : (prev << 6) | v;
        if (lens[a] === outs[a]!.length) this.room(a);
        outs[a]![lens[a]!++] = out & 0xff;
      }
      prev = v;
      n++;
    }
    this.feedHex(bytes, from, to);
  }

  /** Decodes run characters: base64 natively per stretch of a chunk, hex a character at a time. */
  private feed(bytes: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    this.runText?.push(Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from));
    this.feedBase64(Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString("latin1"));
    this.feedHex(bytes, from, to);
  }

  /**
   * Each alignment decodes its whole quanta with the runtime's decoder (line breaks dropped and the
   * url-safe alphabet mapped to the standard one first, so every runtime reads the same input) and
   * keeps the rest (under 4 characters) for the next stretch of the run.
   */
  private feedBase64(text: string): void {
    let seg = text;
    if (seg.includes("\n") || seg.includes("\r")) seg = seg.replace(/[\r\n]/g, "");
    if (seg.includes("-")) seg = seg.replaceAll("-", "+");
    if (seg.includes("_")) seg = seg.replaceAll("_", "/");
    const n = this.b64Count;
    for (let a = 0; a < 4; a++) {
      let str = n < a ? seg.slice(a - n) : seg;
      const tail = this.tails[a]!;
      if (tail.length > 0) str = tail + str;
      const full = str.length - (str.length & 3);
      if (full > 0) this.append(a, Buffer.from(full === str.length ? str : str.slice(0, full), "base64"));
      this.tails[a] = str.slice(full);
    }
    this.b64Count = n + seg.length;
  }

  /** Hex digits: at each one, 1 of the 2 alignments completes a byte from it and the digit before. */
  private feedHex(bytes: Uint8Array, from: number, to: number): void {
    const outs = this.outs;
    const lens = this.lens;
    let m = this.hexCount;
    let prevHex = this.prevHex;
    for (let i = from; i < to; i++) {
      const h = HEX[bytes[i]!]!;
      if (h === SKIP) continue;
      if (h === NONE) {
        if (m >= MIN_RUN) {
          this.hexCount = m;
          this.closeHex();
        } else if (m > 0) {
          lens[4] = 0; // too short to be a hex run: nothing was flushed, nothing to end
          lens[5] = 0;
        }
        m = 0;
        continue;
      }
      if (m > 0) {
        const lane = 4 + ((m - 1) & 1);
        if (lens[lane] === outs[lane]!.length) this.room(lane);
        outs[lane]![lens[lane]!++] = ((prevHex << 4) | h) & 0xff;
      }
      prevHex = h;
      m++;
    }
    this.hexCount = m;
    this.prevHex = prevHex;
  }

  /** Decoded bytes into a lane's buffer, flushing each FLUSH bytes. */
  private append(lane: number, bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.lens[lane] === this.outs[lane]!.length) this.room(lane);
      const n = Math.min(bytes.length - at, this.outs[lane]!.length - this.lens[lane]!);
      bytes.copy(this.outs[lane]!, this.lens[lane], at, at + n);
      this.lens[lane]! += n;
      at += n;
    }
  }

  /** A full lane buffer: grown (files without runs allocate none), or at FLUSH bytes flushed. */
  private room(lane: number): void {
    const buf = this.outs[lane]!;
    if (buf.length === FLUSH) {
      this.flush(lane);
      return;
    }
    const grown = Buffer.allocUnsafe(Math.min(FLUSH, Math.max(256, buf.length * 4)));
    buf.copy(grown, 0, 0, this.lens[lane]);
    this.outs[lane] = grown;
  }

  private flush(lane: number): void {
    this.sinks[lane] ??= this.sink(lane < 4 ? "base64" : "hex", lane & 3);
    if (this.lens[lane]! > 0) this.sinks[lane]!.push(this.outs[lane]!.subarray(0, this.lens[lane]));
    this.lens[lane] = 0;
    this.flushed[lane] = 1;
  }

  /** Ends a lane's run: its bytes reach the sink only when `keep` (a hex run proved 16 digits long). */
  private closeLane(lane: number, keep: boolean): void {
    // A run never flushed with no text stretch in it (decoded noise, the common case) spells nothing.
    const len = this.lens[lane]!;
    if (keep && (this.flushed[lane] === 1 || hasText(this.outs[lane]!, len, this.minStretch)))
      this.flush(lane);
    if (this.flushed[lane] === 1) this.sinks[lane]!.end();
    this.lens[lane] = 0;
    this.flushed[lane] = 0;
  }

  private closeHex(): void {
    const keep = this.hexCount >= MIN_RUN;
    this.closeLane(4, keep);
    this.closeLane(5, keep);
    this.hexCount = 0;
  }

  private close(): void {
    this.runText?.end();
    for (let lane = 0; lane < 4; lane++) {
      const tail = this.tails[lane]!;
      if (tail.length >= 2) this.append(lane, Buffer.from(tail, "base64")); // 2-3 characters: 1-2 bytes
      this.tails[lane] = "";
      this.closeLane(lane, true);
    }
    this.closeHex();
    this.b64Count = 0;
    this.open = false;
  }
}

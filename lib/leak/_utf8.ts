// UTF-8 facts for the leak scans: all-ASCII and strict validity checks over bytes (native where the
// runtime has them), and a streaming validity check that carries a character cut by a read boundary.
import { Buffer, isAscii as nodeIsAscii, isUtf8 as nodeIsUtf8 } from "node:buffer";

/** Whether every byte is ASCII (node:buffer isAscii where the runtime has it). */
export const isAscii: (bytes: Uint8Array) => boolean =
  typeof nodeIsAscii === "function"
    ? (bytes) => nodeIsAscii(bytes)
    : (bytes) => {
        for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
        return true;
      };

/** Strict UTF-8 validity (node:buffer isUtf8 where the runtime has it, else a fatal decoder). */
export const validUtf8: (bytes: Uint8Array) => boolean =
  typeof nodeIsUtf8 === "function"
    ? (bytes) => nodeIsUtf8(bytes)
    : (bytes) => {
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(bytes);
          return true;
        } catch {
          return false;
        }
      };

/** Length of the UTF-8 sequence a lead byte starts (1 for ASCII and stray bytes). */
export function seqLen(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** What Utf8Check.push found: `head` (a character completed from the last chunk), then `[from, to)`. */
export interface Utf8Part {
  ok: boolean;
  head: Buffer | null;
  from: number;
  to: number;
}

/**
 * Streaming UTF-8 validity: each chunk is checked whole except an incomplete character at its end,
 * which is carried (at most 3 bytes) and completed by the next chunk.
 */
export class Utf8Check {
  /** The start of a multi-byte character cut by the end of the last chunk. */
  private carry: Buffer = EMPTY;

  get idle(): boolean {
    return this.carry.length === 0;
  }

  follow(other: Utf8Check): void {
    this.carry = other.carry;
  }

  push(chunk: Buffer): Utf8Part {
    let off = 0;
    let head: Buffer | null = null;
    if (this.carry.length > 0) {
      const need = seqLen(this.carry[0]!) - this.carry.length;
      off = Math.min(need, chunk.length);
      const char = Buffer.concat([this.carry, chunk.subarray(0, off)]);
      if (off < need) {
        this.carry = char;
        return { ok: true, head: null, from: 0, to: 0 };
      }
      this.carry = EMPTY;
      if (!validUtf8(char)) return { ok: false, head: null, from: 0, to: 0 };
      head = char;
    }
    let end = chunk.length;
    for (let i = chunk.length - 1; i >= Math.max(off, chunk.length - 3); i--) {
      const byte = chunk[i]!;
      if ((byte & 0xc0) === 0x80) continue;
      if (byte >= 0xc0 && chunk.length - i < seqLen(byte)) end = i;
      break;
    }
    if (!validUtf8(chunk.subarray(off, end))) return { ok: false, head: null, from: 0, to: 0 };
    if (end < chunk.length) this.carry = Buffer.from(chunk.subarray(end)); // copy: the read buffer is reused
    return { ok: true, head, from: off, to: end };
  }

  /** false when the stream ended inside a character. */
  end(): boolean {
    return this.carry.length === 0;
  }
}

const EMPTY = Buffer.alloc(0);

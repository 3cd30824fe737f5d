// The canary's fixed encodings, as byte needles the scan looks for with the runtime's own substring
// search (a few native passes per read, nothing per byte in JavaScript): UTF-16 and UTF-32 in both
// byte orders (text written by a Windows tool or a `.encode("utf-16")`), ROT13, reversed, and base32
// (RFC 4648's alphabet, upper or lower case) at each of its 5 byte alignments, where only the
// characters fully made of canary bits are kept, so the canary is found inside a longer base32 text
// too. Every form is made of
// the canary as given and of its normalised form (lib/leak/_normalize.ts) when that differs.
import { Buffer } from "node:buffer";

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** A base32 core shorter than this could occur by chance: the form is left out. */
const MIN_CORE = 12;

/** UTF-16 or UTF-32 bytes of `s`, big- or little-endian. */
function wide(s: string, width: 2 | 4, le: boolean): Buffer {
  if (width === 2) {
    const b = Buffer.from(s, "utf16le");
    if (!le) b.swap16();
    return b;
  }
  const cps = [...s].map((c) => c.codePointAt(0) as number);
  const b = Buffer.alloc(cps.length * 4);
  for (const [i, cp] of cps.entries()) {
    if (le) b.writeUInt32LE(cp, i * 4);
    else b.writeUInt32BE(cp, i * 4);
  }
  return b;
}

/** ROT13: ASCII letters turned by 13, everything else kept. */
export function rot13(s: string): string {
  return s.replace(/[A-Za-z]/g, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/**
 * The base32 characters that `bytes` alone decide when they start `pad` bytes into an encoded
 * stream: those whose 5 bits all lie inside the bytes.
 */
export function base32Core(bytes: Uint8Array, pad: number): string {
  const start = pad * 8;
  const end = start + bytes.length * 8;
  const bit = (i: number) => {
    const b = i - start;
    return ((bytes[b >> 3] as number) >> (7 - (b & 7))) & 1;
  };
  let out = "";
  for (let c = Math.ceil(start / 5) * 5; c + 5 <= end; c += 5) {
    let v = 0;
    for (let k = 0; k < 5; k++) v = (v << 1) | bit(c + k);
    out += B32[v];
  }
  return out;
}

/** The canary's other forms as byte needles, by where the scan looks for them. */
export interface CanaryForms {
  /** UTF-16 and UTF-32 (they hold NUL bytes): in the raw bytes. */
  wide: Buffer[];
  /** ROT13 and reversed: in the normalised text. */
  text: Buffer[];
  /** Base32 cores, upper and lower case: in runs of base64 characters (base32's are among them). */
  base32: Buffer[];
}

/** The byte needles of the canary's other forms (none equal to the canary itself). */
export function canaryForms(canary: string, normalized: string): CanaryForms {
  const seen = new Set<string>([
    Buffer.from(canary).toString("hex"),
    Buffer.from(normalized).toString("hex"),
  ]);
  const out: CanaryForms = { wide: [], text: [], base32: [] };
  const add = (to: Buffer[], b: Buffer) => {
    const key = b.toString("hex");
    if (b.length > 0 && !seen.has(key)) {
      seen.add(key);
      to.push(b);
    }
  };
  for (const s of new Set([canary, normalized])) {
    if (s === "") continue;
    for (const [width, le] of [
      [2, true],
      [2, false],
      [4, true],
      [4, false],
    ] as const)
      add(out.wide, wide(s, width, le));
    add(out.text, Buffer.from(rot13(s), "utf8"));
    add(out.text, Buffer.from([...s].reverse().join(""), "utf8"));
    const bytes = Buffer.from(s, "utf8");
    for (let pad = 0; pad < 5; pad++) {
      const core = base32Core(bytes, pad);
      if (core.length < MIN_CORE) continue;
      add(out.base32, Buffer.from(core, "latin1"));
      add(out.base32, Buffer.from(core.toLowerCase(), "latin1"));
    }
  }
  return out;
}

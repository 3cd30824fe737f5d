// Stretches of text inside bytes that are not UTF-8 (binary, decoded base64 noise): where printable
// ASCII, tabs, line breaks and well-formed multi-byte characters run long enough to spell a needle.
// Only those stretches are normalised and scanned (lib/leak/_normalize.ts, _decode.ts); finding them
// looks at one byte in `min` until a run may be text, so binary input costs little.

/**
 * In bytes that are not UTF-8, only stretches of this many bytes of text (printable ASCII, tab, line
 * breaks, well-formed multi-byte characters) are normalised: no character's NFKC form is more than
 * 2 ASCII characters per byte, so a shorter stretch cannot spell a 16-character canary.
 */
export const MIN_STRETCH = 8;

/**
 * Byte -> 1 for printable ASCII, tab and line breaks, 2-4 for a lead byte of that length, 5 for a
 * continuation byte, 0 for anything else (controls, bytes no UTF-8 character starts with).
 */
export const TEXT = new Uint8Array(256);
TEXT[9] = 1;
TEXT[10] = 1;
TEXT[13] = 1;
TEXT.fill(1, 0x20, 0x7f);
TEXT.fill(5, 0x80, 0xc0);
TEXT.fill(2, 0xc2, 0xe0);
TEXT.fill(3, 0xe0, 0xf0);
TEXT.fill(4, 0xf0, 0xf5);

/**
 * Calls `each(start, end)` for every stretch of text of `min`+ bytes in `bytes[0, len)`, in order;
 * stops early when it returns true. A character is printable ASCII, tab, a line break, or a lead
 * byte followed by its continuation bytes. Every such stretch lies in a run of bytes that may be
 * text (TEXT not 0), and a run of `min`+ bytes covers one of every `min` consecutive offsets: only
 * those offsets are looked at first, and only long enough runs are checked byte by byte (binary
 * input is mostly short runs).
 */
export function stretches(
  bytes: Uint8Array,
  len: number,
  min: number,
  each: (start: number, end: number) => boolean,
): void {
  let done = 0;
  for (let p = min - 1; p < len; p += min) {
    if (p < done || TEXT[bytes[p]!] === 0) continue;
    let s = p;
    while (s > done && TEXT[bytes[s - 1]!] !== 0) s--;
    let e = p + 1;
    while (e < len && TEXT[bytes[e]!] !== 0) e++;
    done = e;
    if (e - s >= min && exactStretches(bytes, s, e, min, each)) return;
  }
}

/** `stretches` over one run of bytes that may be text: true when `each` asked to stop. */
function exactStretches(
  bytes: Uint8Array,
  from: number,
  to: number,
  min: number,
  each: (start: number, end: number) => boolean,
): boolean {
  let start = from;
  let i = from;
  while (i < to) {
    const t = TEXT[bytes[i]!]!;
    let n = t < 5 ? t : 0;
    if (n > 1) {
      if (i + n > to) n = 0;
      else for (let k = 1; k < n; k++) if (TEXT[bytes[i + k]!] !== 5) n = 0;
    }
    if (n !== 0) {
      i += n;
      continue;
    }
    if (i - start >= min && each(start, i)) return true;
    i++;
    start = i;
  }
  return to - start >= min && each(start, to);
}

/** Whether `bytes[0, len)` holds a stretch of text of `min`+ bytes (else it spells nothing). */
export function hasText(bytes: Uint8Array, len: number, min = MIN_STRETCH): boolean {
  let found = false;
  stretches(bytes, len, Math.max(MIN_STRETCH, min), () => {
    found = true;
    return true;
  });
  return found;
}

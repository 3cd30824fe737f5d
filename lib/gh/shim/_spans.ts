// Byte spans of the elements of a JSON document's top-level "calls" array, found without building
// values. The input must already have passed JSON.parse: this scanner trusts the structure and only
// tracks strings and nesting. Structural bytes are ASCII, so UTF-8 text never confuses it.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return i;
}

function skipString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return b.length;
    let slashes = 0;
    for (let k = q - 1; b[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < b.length) {
      const ch = b[i]!;
      if (ch === QUOTE) {
        i = skipString(b, i);
        continue;
      }
      if (ch === 0x7b || ch === 0x5b) depth++;
      else if (ch === 0x7d || ch === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < b.length && b[i] !== 0x2c && b[i] !== 0x5d && b[i] !== 0x7d && skipWs(b, i) === i) i++;
  return i;
}

/** [start, end) of each element of the last top-level "calls" array, or null if there is none. */
export function callSpans(b: Buffer): [number, number][] | null {
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) return null;
  i++;
  let found: [number, number][] | null = null;
  for (;;) {
    i = skipWs(b, i);
    if (b[i] !== QUOTE) return found;
    const keyEnd = skipString(b, i);
    const key = JSON.parse(b.toString("utf8", i, keyEnd)) as string;
    i = skipWs(b, keyEnd) + 1; // past ':'
    i = skipWs(b, i);
    if (key === "calls" && b[i] === 0x5b) {
      const spans: [number, number][] = [];
      i = skipWs(b, i + 1);
      while (b[i] !== 0x5d && i < b.length) {
        const end = skipValue(b, i);
        spans.push([i, end]);
        i = skipWs(b, end);
        if (b[i] === 0x2c) i = skipWs(b, i + 1);
      }
      i++;
      found = spans; // a repeated key: JSON.parse keeps the last, and so do we
    } else i = skipValue(b, i);
    i = skipWs(b, i);
    if (b[i] === 0x2c) i++;
  }
}

// The alphabets of the encoded runs lib/leak/_decode.ts decodes, as byte tables read once per byte in
// its inner loops: base64 (standard and url-safe alike), hex, and whether a byte can be in a run at
// all. CR and LF map to SKIP: a wrapped run goes on across its line breaks.

/** A line break inside a run: skipped, the run goes on. */
export const SKIP = 64;
/** Not in the alphabet: the run ends. */
export const NONE = -1;

/** Byte -> its 6-bit base64 value (+ and - are 62, / and _ are 63), SKIP, or NONE. */
export const B64 = new Int8Array(256).fill(NONE);
/** Byte -> its hex nibble, SKIP, or NONE. */
export const HEX = new Int8Array(256).fill(NONE);
{
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (let i = 0; i < alphabet.length; i++) B64[alphabet.charCodeAt(i)] = i;
  B64[43] = 62; // +
  B64[45] = 62; // -
  B64[47] = 63; // /
  B64[95] = 63; // _
  for (let i = 0; i < 16; i++) HEX["0123456789abcdef".charCodeAt(i)] = i;
  for (let i = 10; i < 16; i++) HEX["ABCDEF".charCodeAt(i - 10)] = i;
  for (const t of [B64, HEX]) {
    t[10] = SKIP;
    t[13] = SKIP;
  }
}

/** Byte -> 1 for a base64 character (not a line break): one read in the scan's inner loops. */
export const CHAR = new Uint8Array(256);
for (let b = 0; b < 256; b++) CHAR[b] = B64[b]! >= 0 && B64[b] !== SKIP ? 1 : 0;
export const isChar = (byte: number): boolean => CHAR[byte] === 1;

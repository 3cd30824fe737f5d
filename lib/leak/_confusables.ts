// The confusables skeleton table for the leak scans (lib/leak/_normalize.ts): non-Latin letters that
// look like a Latin letter or a digit, mapped to it, after Unicode TR39's confusables.txt restricted
// to Cyrillic, Greek, Armenian, Cherokee and a few Latin/IPA shapes. Fullwidth, mathematical,
// circled and other compatibility forms are not here: NFKC maps those. ASCII is never remapped (no
// 0 -> O, 1 -> l), so pure-ASCII text normalises to itself and keeps the scan's fast path.

/** Latin target -> the characters that look like it (uppercase and lowercase kept apart). */
const LOOKALIKES = {
  A: "\u0410\u0391\u13AA\u15C5\u0386\u1D00",
  B: "\u0412\u0392\u13F4\u15F7\u0299",
  C: "\u0421\u03F9\u13DF\u216D\u2CA4",
  D: "\u13A0\u15EA\u216E",
  E: "\u0415\u0395\u13AC\u2D39\u0388",
  F: "\u03DC\u15B4",
  G: "\u050C\u13C0\u13F3\u0262",
  H: "\u041D\u0397\u13BB\u157C\u04A2\u0389\u029C",
  I: "\u0406\u0399\u04C0\u038A\u2160",
  J: "\u0408\u13AB\u148D\u037F",
  K: "\u041A\u039A\u13E6\u16D5\u212A",
  L: "\u13DE\u14AA\u216C\u2CD0",
  M: "\u041C\u039C\u13B7\u15F0\u216F\u03FA",
  N: "\u039D\u2C9A",
  O: "\u041E\u039F\u0555\u13BE\u2C9E\u038C",
  P: "\u0420\u03A1\u13E2\u146D\u2CA2",
  Q: "\u051A\u2D55",
  R: "\u13A1\u13D2\u1587\u0280",
  S: "\u0405\u054F\u13DA\u1515",
  T: "\u0422\u03A4\u13A2\u22A4\u27D9",
  U: "\u054D\u144C\u222A",
  V: "\u0474\u13D9\u2164\u2D38",
  W: "\u051C\u13B3\u13D4",
  X: "\u0425\u03A7\u2169\u2CAC\u166D",
  Y: "\u03A5\u04AE\u13A9\u13BD\u03D2",
  Z: "\u0396\u13C3",
  a: "\u0430\u03B1\u0251\u237A",
  b: "\u042C\u044C\u13CF\u15AF",
  c: "\u0441\u03F2\u1D04\u217D",
  d: "\u0501\u13E7\u146F\u217E",
  e: "\u0435\u04BD\u212E\u212F",
  f: "\u017F\u0584",
  g: "\u0261\u0581\u050D\u018D",
  h: "\u04BB\u0570\u13C2",
  i: "\u0456\u03B9\u0131\u13A5\u2170\u0269",
  j: "\u0458\u03F3\u0237",
  k: "\u03BA\u043A\u1D0B",
  l: "\u04CF\u05C0\u2223\u01C0",
  m: "\u043C\u217F",
  n: "\u0578\u057C\u03B7",
  o: "\u043E\u03BF\u0585\u03C3\u0D20\u1D0F\u10FF",
  p: "\u0440\u03C1\u2374\u2CA3",
  q: "\u051B\u0563\u0566",
  r: "\u0433\u1D26\u2C85",
  s: "\u0455\u01BD\uA731",
  t: "\u03C4\u0442",
  u: "\u057D\u03C5\u028B\u1D1C",
  v: "\u03BD\u0475\u1D20\u2174",
  w: "\u051D\u0561\u03C9\u0461\u1D21",
  x: "\u0445\u03C7\u2179\u157D",
  y: "\u0443\u04AF\u03B3\u10E7",
  z: "\u1D22\uAB93",
  "3": "\u0417\u0437\u04E0\u0545\u01B7",
  "4": "\u13CE",
  "6": "\u0431\u13EE",
  "8": "\u0222\u0223",
  "9": "\u13ED",
} as const satisfies Record<string, string>;

/** Cherokee small letters (U+AB70..U+ABBF) are the lowercase forms of U+13A0..U+13EF: same shapes. */
const CHEROKEE_SMALL = 0xab70 - 0x13a0;

/** Code point -> its Latin look-alike (one ASCII character). Never maps an ASCII character. */
export const CONFUSABLES: ReadonlyMap<number, string> = (() => {
  const map = new Map<number, string>();
  for (const [target, sources] of Object.entries(LOOKALIKES)) {
    for (const ch of sources) {
      const cp = ch.codePointAt(0) as number;
      if (cp < 0x80 || map.has(cp)) continue;
      map.set(cp, target);
      if (cp >= 0x13a0 && cp <= 0x13ef) map.set(cp + CHEROKEE_SMALL, target);
    }
  }
  return map;
})();

// The copies of a text that secret detection reads, each mapping back to the original characters:
// NFKC with format and other default-ignorable characters dropped (a token split by zero-width
// spaces, or in full-width letters, is still the token), then percent-decoded (`%5F`, `%3D`), so a
// redaction replaces the original span. Pure ASCII without `%XX` is its own only copy (one regex test).

/** A copy of a text and, for each of its characters, the original span it came from. */
export interface View {
  text: string;
  /** Original start of each character (absent: the view is the original). */
  from?: Int32Array;
  /** Original end of each character. */
  to?: Int32Array;
}

const NEEDS_VIEW = /[^\x00-\x7f]|%[0-9A-Fa-f]{2}/;
const IGNORABLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]+$/u;
const CHUNK = /\P{M}\p{M}*|\p{M}+/gsu;
const PERCENT = /%[0-9A-Fa-f]{2}/;

function build(parts: Array<{ text: string; start: number; end: number }>, size: number): View {
  const from = new Int32Array(size);
  const to = new Int32Array(size);
  let text = "";
  let i = 0;
  for (const p of parts) {
    for (let k = 0; k < p.text.length; k++, i++) {
      from[i] = p.start;
      to[i] = p.end;
    }
    text += p.text;
  }
  return { text, from, to };
}

/** NFKC per base character and its marks, ignorable characters dropped. */
function normalized(s: string): View {
  const parts: Array<{ text: string; start: number; end: number }> = [];
  let size = 0;
  for (const m of s.matchAll(CHUNK)) {
    const raw = m[0];
    if (raw.charCodeAt(0) < 0x80 && raw.length === 1) {
      parts.push({ text: raw, start: m.index, end: m.index + 1 });
      size++;
      continue;
    }
    const kept = [...raw].filter((c) => !IGNORABLE.test(c)).join("");
    if (kept === "") continue;
    const text = kept.normalize("NFKC").replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "");
    parts.push({ text, start: m.index, end: m.index + raw.length });
    size += text.length;
  }
  return build(parts, size);
}

/** `%XX` (ASCII range) decoded, once. */
function percentDecoded(v: View): View {
  const s = v.text;
  const parts: Array<{ text: string; start: number; end: number }> = [];
  const start = (i: number) => (v.from ? (v.from[i] as number) : i);
  const end = (i: number) => (v.to ? (v.to[i] as number) : i + 1);
  for (let i = 0; i < s.length; ) {
    const code = s[i] === "%" ? Number.parseInt(s.slice(i + 1, i + 3), 16) : Number.NaN;
    if (/^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3)) && code < 0x80) {
      parts.push({ text: String.fromCharCode(code), start: start(i), end: end(i + 2) });
      i += 3;
    } else {
      parts.push({ text: s[i] as string, start: start(i), end: end(i) });
      i++;
    }
  }
  return build(parts, parts.length);
}

/** The copies detection reads: the original alone, or the normalised copy and its decodings. */
export function viewsOf(s: string): View[] {
  if (!NEEDS_VIEW.test(s)) return [{ text: s }];
  const views: View[] = [];
  let v = /[^\x00-\x7f]/.test(s) ? normalized(s) : { text: s };
  views.push(v);
  // Up to two rounds, for a token encoded twice (`%253D`).
  for (let round = 0; round < 2 && PERCENT.test(v.text); round++) {
    const next = percentDecoded(v);
    if (next.text === v.text) break; // only non-ASCII escapes: nothing new to read
    v = next;
    views.push(v);
  }
  return views;
}

/** The original span of [start, end) in a view. */
export function originalSpan(v: View, start: number, end: number): { start: number; end: number } {
  if (!v.from || !v.to || end <= start) return { start, end };
  return { start: v.from[start] as number, end: v.to[end - 1] as number };
}

// Secret detectors and fail-closed redaction for every lane that persists text it did not write
// (shim record mode, step harvests, promotion scrubbing, suite logs). A finding names its rule
// (lib/redact/rules.ts) and span, never the secret; text is read through normalised copies
// (lib/redact/normalize.ts) and spans mapped back, overlaps merged. No entropy guess here: a shape
// not in the table is not found, so callers that must not leak re-scan what they write.

import { FORMS } from "./forms.ts";
import { originalSpan, type View, viewsOf } from "./normalize.ts";
import { type Detector, GENERIC, HINTS, VENDOR } from "./rules.ts";

export type { Detector } from "./rules.ts";

/** Where a detector matched: the span of the credential in the scanned text. */
export interface Finding {
  detector: string;
  start: number;
  end: number;
}

/** The default detector table, most specific first (an earlier detector wins an overlap at one start). */
export const DETECTORS: readonly Detector[] = [...VENDOR, ...GENERIC, ...FORMS];

// Values that name a secret without being one, as a whole: an upper-case shell or Windows variable,
// a ${...} / $(...) / ${{ ... }} reference, a <placeholder>, a mask, our own marker (followed only
// by a JSON escape such as `\n`, in JSON text), a null word.
// Anything else is a value (`$ecretP4ss` is a password, not a reference).
const PLACEHOLDER =
  /^(?:\$[A-Z_][A-Z0-9_]*|\$\{.*|\$\(.*|%[A-Za-z_][A-Za-z0-9_]*%|<[^<>]*>|\*+|\[REDACTED:[a-z0-9-]+\](?:\\.*)?)$/;
const NULL_WORD = /^(?:x{4,}|redacted|null|none|true|false|undefined)$/i;

// One global copy per pattern, compiled once: scanning many small strings (a harvested request has
// thousands) must not recompile every detector for each. matchAll clones it, so sharing is safe.
const GLOBAL = new WeakMap<RegExp, RegExp>();
function globalOf(pattern: RegExp): RegExp {
  let re = GLOBAL.get(pattern);
  if (!re) {
    re = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    GLOBAL.set(pattern, re);
  }
  return re;
}

/** Findings of `detectors` in one text (no normalisation, overlaps kept). */
export function matchAll(text: string, detectors: readonly Detector[]): (Finding & { rank: number })[] {
  const all: (Finding & { rank: number })[] = [];
  detectors.forEach((d, rank) => {
    if (d.hint && !d.hint(text)) return;
    for (const m of text.matchAll(globalOf(d.pattern))) {
      if (d.accept && !d.accept(m)) continue;
      const g = m.groups;
      const secret = g ? (g.secret ?? g.secret2 ?? g.secret3) : undefined;
      let start = m.index;
      let end = m.index + m[0].length;
      if (g && ("secret" in g || "secret2" in g || "secret3" in g)) {
        if (secret === undefined || PLACEHOLDER.test(secret) || NULL_WORD.test(secret)) continue;
        start = m.index + m[0].lastIndexOf(secret);
        end = start + secret.length;
      }
      if (end > start) all.push({ detector: d.name, start, end, rank });
    }
  });
  return all;
}

/** Sorted, overlapping spans merged (fail closed: the union goes, named after its first finding). */
export function merged(all: (Finding & { rank?: number })[]): Finding[] {
  all.sort((a, b) => a.start - b.start || (a.rank ?? 0) - (b.rank ?? 0) || b.end - a.end);
  const out: Finding[] = [];
  for (const f of all) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ detector: f.detector, start: f.start, end: f.end });
  }
  return out;
}

/** Runs `scan` over every normalised copy of `text` and maps its findings back to `text`. */
export function scanViews(text: string, scan: (view: string) => (Finding & { rank?: number })[]): Finding[] {
  const views: View[] = viewsOf(text);
  if (views.length === 1 && !views[0]?.from) return merged(scan(text));
  const all: (Finding & { rank?: number })[] = [];
  for (const v of views) for (const f of scan(v.text)) all.push({ ...f, ...originalSpan(v, f.start, f.end) });
  return merged(all);
}

const BUILT_IN: ReadonlySet<Detector> = new Set(DETECTORS);
const userOnly = new WeakMap<readonly Detector[], readonly Detector[]>();

/**
 * The detectors worth running on `text`: the built-in ones (`builtIn`, whose literals HINTS lists)
 * only when one of their literals occurs; user patterns always.
 */
export function tableFor(
  text: string,
  detectors: readonly Detector[],
  builtIn: ReadonlySet<Detector> = BUILT_IN,
): readonly Detector[] {
  if (HINTS.test(text)) return detectors;
  let table = userOnly.get(detectors);
  if (!table) {
    table = detectors.filter((d) => !builtIn.has(d));
    userOnly.set(detectors, table);
  }
  return table;
}

/** Every credential shape in `text`, non-overlapping, in text order. */
export function findSecrets(text: string, detectors: readonly Detector[] = DETECTORS): Finding[] {
  return scanViews(text, (t) => matchAll(t, tableFor(t, detectors)));
}

/** The marker that replaces a credential found by `detector`. */
export function redactionMarker(detector: string): string {
  return `[REDACTED:${detector}]`;
}

function replaced(s: string, findings: readonly Finding[]): string {
  let text = "";
  let at = 0;
  for (const f of findings) {
    text += s.slice(at, f.start) + redactionMarker(f.detector);
    at = f.end;
  }
  return text + s.slice(at);
}

/**
 * Replaces what `find` finds with markers, then scans the result again until nothing is left: a
 * replacement can leave a shape the rules see anew (a span found in a decoded copy next to one
 * found in the original). Still not clean after a few rounds: the whole string becomes one marker.
 * `findings` are the first round's spans in the original text.
 */
export function redactWith(
  s: string,
  find: (text: string) => Finding[],
): { text: string; findings: Finding[] } {
  const findings = find(s);
  let text = s;
  let left = findings;
  for (let round = 0; left.length > 0; round++) {
    if (round === 4) return { text: redactionMarker((findings[0] as Finding).detector), findings };
    text = replaced(text, left);
    left = find(text);
  }
  return { text, findings };
}

/** Replaces every credential in `s` with its marker; findings are spans in the original text. */
export function redactText(
  s: string,
  detectors: readonly Detector[] = DETECTORS,
): { text: string; findings: Finding[] } {
  return redactWith(s, (t) => findSecrets(t, detectors));
}

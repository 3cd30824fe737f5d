// The strict detector set for text that leaves the machine as an artifact (step cases): the default
// table plus e-mail addresses (internationalised too) and a high-entropy rule, kept apart from
// DETECTORS because gh output legitimately carries e-mail addresses. The entropy rule is a function
// that can be switched off per string (provider ids, signatures, encrypted reasoning must replay);
// both read the same normalised copies as the named rules.
import { DETECTORS, type Detector, type Finding, matchAll, scanViews, tableFor } from "./index.ts";

/** Bumped whenever a rule changes, and recorded in every case's provenance. */
export const REDACTION_RULES_VERSION = "strict-2";

/** Detectors the strict set adds to the default table. */
export const STRICT_EXTRA: readonly Detector[] = [
  {
    name: "email",
    pattern:
      /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.(?:\p{L}{2,}|xn--[a-z0-9-]+)/gu,
  },
];

/** The default table then the strict additions (earlier wins an overlap at one start). */
export const STRICT_DETECTORS: readonly Detector[] = [...DETECTORS, ...STRICT_EXTRA];
const BUILT_IN: ReadonlySet<Detector> = new Set(STRICT_DETECTORS);

// Runs of token characters; a credential is one run in text, code or JSON.
const TOKEN = /[A-Za-z0-9+/_=-]{20,}/g;

/** Shannon entropy of `s` in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * True for a token that looks random: long lowercase/uppercase hex with digits (32+), or 20+ chars
 * mixing upper, lower and digits at 3.5+ bits per character. Paths and identifiers rarely mix all
 * three classes that evenly; when they do they are redacted too, which is the safe side.
 */
export function isHighEntropy(token: string): boolean {
  const t = token.replace(/^[/=_-]+|[/=_-]+$/g, "");
  if (t.length < 20) return false;
  if (/^[0-9a-f]{32,}$|^[0-9A-F]{32,}$/.test(t) && /[0-9]/.test(t) && /[a-fA-F]/.test(t)) return true;
  return /[a-z]/.test(t) && /[A-Z]/.test(t) && /[0-9]/.test(t) && entropy(t) >= 3.5;
}

/** High-entropy spans of `text`. */
export function findHighEntropy(text: string): Finding[] {
  const out: Finding[] = [];
  // A secret glued to a name (`KEY=<hex>`, `v1-<key>`) is judged on its own too; the whole run goes.
  for (const m of text.matchAll(TOKEN))
    if (isHighEntropy(m[0]) || m[0].split(/[=_/+-]+/).some(isHighEntropy))
      out.push({ detector: "high-entropy", start: m.index, end: m.index + m[0].length });
  return out;
}

// Harvested cases of one session repeat its conversation: case d holds every item of cases 0..d-1,
// and every object key ("role", "type", "content") recurs in every case. Findings are a pure function
// of (detectors, rule, text), so they are remembered per detector table and rule, keyed by the text
// itself (no concatenated key to copy and hash), up to a bound on the text held; the table's entry is
// dropped with the table. Harvest builds a session's cases one after another, so the bound need only
// hold one session's texts: 1M characters (a 32M bound made the harvest's peak memory grow with the
// store by ~20 MB, the memo filling up with texts of long-finished sessions).
const MEMO_CHARS = 1024 * 1024;
interface Memo {
  size: number;
  on: Map<string, Finding[]>;
  off: Map<string, Finding[]>;
}
const memos = new WeakMap<readonly Detector[], Memo>();

/** Every strict finding in `text`, non-overlapping, in order; `entropyRule: false` for exempt strings. */
export function findStrict(text: string, detectors: readonly Detector[], entropyRule: boolean): Finding[] {
  let memo = memos.get(detectors);
  if (!memo) {
    memo = { size: 0, on: new Map(), off: new Map() };
    memos.set(detectors, memo);
  }
  const map = entropyRule ? memo.on : memo.off;
  const hit = map.get(text);
  if (hit) return hit;
  const found = scanStrict(text, detectors, entropyRule);
  const cost = text.length + 64;
  if (memo.size + cost > MEMO_CHARS) {
    memo.on.clear();
    memo.off.clear();
    memo.size = 0;
  }
  map.set(text, found);
  memo.size += cost;
  return found;
}

function scanStrict(text: string, detectors: readonly Detector[], entropyRule: boolean): Finding[] {
  return scanViews(text, (t) => {
    const table = tableFor(t, detectors, BUILT_IN);
    const named = table.length > 0 ? matchAll(t, table) : [];
    // A named rule names a span the entropy rule also found.
    return entropyRule ? [...named, ...findHighEntropy(t).map((f) => ({ ...f, rank: 1e9 }))] : named;
  });
}

/** Builds detectors from user regexes (`--redact-pattern`); a bad regex is the caller's usage error. */
export function patternDetectors(patterns: readonly string[]): Detector[] {
  return patterns.map((p, i) => ({ name: `pattern-${i + 1}`, pattern: new RegExp(p, "g") }));
}

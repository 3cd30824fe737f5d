// Secret detectors and fail-closed redaction, shared by every lane that persists text it did not
// write (shim record mode, step harvests, promotion scrubbing). A detector is a named pattern; a
// finding names the detector and the span, never the secret. It does not guess at entropy: a shape
// that is not in the table is not found, so callers that must not leak re-scan what they write.

/** One kind of credential and how to recognise it. */
export interface Detector {
  /** Stable name used in findings and in the `[REDACTED:<name>]` marker. */
  name: string;
  /** Global pattern; when it has a `secret` group only that part is the credential. */
  pattern: RegExp;
}

/** Where a detector matched: the span of the credential in the scanned text. */
export interface Finding {
  detector: string;
  start: number;
  end: number;
}

const ASSIGN_NAMES =
  "PASSWORD|PASSWD|PASSPHRASE|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?";
const JSON_NAMES =
  "password|passwd|passphrase|secret|token|api_key|apikey|access_token|refresh_token|id_token|client_secret|private_key|secret_access_key";

/** The default detector table, most specific first (an earlier detector wins an overlap at one start). */
export const DETECTORS: readonly Detector[] = [
  {
    name: "private-key",
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)/g,
  },
  { name: "github-token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,251}\b/g },
  { name: "github-pat", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,244}\b/g },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: "slack-token", pattern: /\bxox[baprs]-[A-Za-z0-9-]{10,}/g },
  { name: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    name: "http-auth",
    pattern:
      /\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token)[ \t]+(?<secret>[A-Za-z0-9._~+/-]{8,}=*)/gi,
  },
  { name: "bearer-token", pattern: /\bBearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g },
  {
    name: "assignment",
    pattern: new RegExp(
      `\\b[A-Z0-9_]*(?:${ASSIGN_NAMES})[A-Z0-9_]*[ \\t]*[=:][ \\t]*(?<q>["']?)(?<secret>[^\\s"'&;,]{4,})\\k<q>`,
      "g",
    ),
  },
  {
    name: "json-secret",
    pattern: new RegExp(`"(?:${JSON_NAMES})"[ \\t]*:[ \\t]*"(?<secret>(?:[^"\\\\]|\\\\.){4,})"`, "gi"),
  },
];

// Values that name a secret without being one: shell references, masks, our own markers.
const PLACEHOLDER = /^(?:\$|\*{3}|<|\[REDACTED|x{4,}$|redacted$|null$|none$|true$|false$)/i;

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

/** Every credential shape in `text`, non-overlapping, in text order. */
export function findSecrets(text: string, detectors: readonly Detector[] = DETECTORS): Finding[] {
  const all: (Finding & { rank: number })[] = [];
  detectors.forEach((d, rank) => {
    for (const m of text.matchAll(globalOf(d.pattern))) {
      const secret = m.groups?.secret;
      let start = m.index;
      let end = m.index + m[0].length;
      if (secret !== undefined) {
        if (PLACEHOLDER.test(secret)) continue;
        start = m.index + m[0].lastIndexOf(secret);
        end = start + secret.length;
      }
      all.push({ detector: d.name, start, end, rank });
    }
  });
  all.sort((a, b) => a.start - b.start || a.rank - b.rank || b.end - a.end);
  const out: Finding[] = [];
  let reach = -1;
  for (const f of all) {
    if (f.start < reach) continue; // overlaps a finding already kept
    out.push({ detector: f.detector, start: f.start, end: f.end });
    reach = f.end;
  }
  return out;
}

/** The marker that replaces a credential found by `detector`. */
export function redactionMarker(detector: string): string {
  return `[REDACTED:${detector}]`;
}

/** Replaces every credential in `s` with its marker; findings are spans in the original text. */
export function redactText(
  s: string,
  detectors: readonly Detector[] = DETECTORS,
): { text: string; findings: Finding[] } {
  const findings = findSecrets(s, detectors);
  let text = "";
  let at = 0;
  for (const f of findings) {
    text += s.slice(at, f.start) + redactionMarker(f.detector);
    at = f.end;
  }
  return { text: text + s.slice(at), findings };
}

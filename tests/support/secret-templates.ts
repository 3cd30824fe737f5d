// Fixture values for the redaction tables (tests/fixtures/redact/*.json) are templates
// (`{{alnum:36}}`, `{{uuid}}`, `"{{num:8}}"` for a number) expanded from a hash of the row's name at run
// time, so no fixture carries a credential; a template repeated in a row expands to the same value,
// so an expected value can name the ids that must be kept.
import { createHash } from "node:crypto";

const ALPHABETS: Record<string, string> = {
  alnum: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  upper: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  lower: "abcdefghijklmnopqrstuvwxyz",
  hex: "0123456789abcdef",
  digits: "0123456789",
  num: "123456789",
  b64url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
};

function random(seed: string, alphabet: string, n: number): string {
  let out = "";
  for (let block = 0; out.length < n; block++)
    for (const b of createHash("sha512").update(`${seed}:${block}`).digest())
      if (out.length < n) out += alphabet[b % alphabet.length];
  return out;
}

/** One template's value: the same for the same row and template. */
function value(row: string, kind: string, n: number): string {
  const seed = `${row}:${kind}:${n}`;
  if (kind === "uuid") {
    const h = random(seed, ALPHABETS.hex as string, 32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
  const s = random(seed, ALPHABETS[kind] as string, n);
  // Generated keys mix all three classes; so do these.
  return kind === "alnum" && n >= 12 ? `aZ7${s.slice(3)}` : s;
}

const TEMPLATE = /\{\{(\w+)(?::(\d+))?\}\}/g;

/** The row's fixture value with every template expanded; `cores` collects each expansion. */
export function expand(row: string, v: unknown, cores: Set<string>): unknown {
  if (typeof v === "string") {
    const whole = /^\{\{num:(\d+)\}\}$/.exec(v);
    if (whole) return Number(value(row, "num", Number(whole[1])));
    return v.replace(TEMPLATE, (_, kind: string, n?: string) => {
      const s = value(row, kind, Number(n ?? 0));
      cores.add(s);
      return s;
    });
  }
  if (Array.isArray(v)) return v.map((x) => expand(row, x, cores));
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(row, x, cores)]));
  return v;
}

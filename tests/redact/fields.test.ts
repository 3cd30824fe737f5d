// Field rules by property (lib/redact/fields.ts): tool-call arguments of every protocol get nested
// objects with secret-named fields at any depth (string, numeric and array values, names in every
// case and separator style) and `id` / `signature` keys holding random tokens; none of those values
// survives, in objects or in JSON held in a string, while the provider ids at their exact paths are
// kept byte for byte so the request still replays.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { exemptAt, isSecretName } from "../../lib/redact/fields.ts";
import { assertClean, redactRequest } from "../../lib/redact/request.ts";
import { STRICT_DETECTORS } from "../../lib/redact/strict.ts";
import { generateSessions, sessionPairs } from "../support/pair-gen.ts";

const token = (seed: number, n: number) =>
  `aZ7${createHash("sha512").update(String(seed)).digest("base64").replace(/[+/=]/g, "").slice(0, n)}`;

const SECRET_NAMES = [
  "db_password",
  "apiKey",
  "API_KEY",
  "client-secret",
  "authToken",
  "Password",
  "x-api-key",
  "private_key",
  "aws.secret.access.key",
  "credentials",
  "Cookie",
  "session_token",
];

type Json = string | number | Json[] | { [k: string]: Json };
interface Planted {
  args: Record<string, Json>;
  secrets: string[];
}

/** Nested arguments with secret-named fields and entropy-bearing id/signature keys at random depths. */
const ARGS: fc.Arbitrary<Planted> = fc
  .array(
    fc.record({
      depth: fc.integer({ min: 0, max: 4 }),
      name: fc.constantFrom(...SECRET_NAMES, "id", "signature"),
      kind: fc.constantFrom("string", "number", "array"),
      seed: fc.nat(),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((fields) => {
    const args: Record<string, Json> = { path: "src/app.ts", max_tokens: 100 };
    const secrets: string[] = [];
    fields.forEach((f, i) => {
      let at = args;
      for (let d = 0; d < f.depth; d++) {
        const next: Record<string, Json> = {};
        at[`level${d}_${i}`] = next;
        at = next;
      }
      const isId = f.name === "id" || f.name === "signature";
      // id/signature are caught by the entropy rule only: always a random token.
      const value: Json = isId
        ? token(f.seed, 36)
        : f.kind === "number"
          ? 10_000_000 + (f.seed % 89_999_999)
          : f.kind === "array"
            ? [`w${f.seed}x`, 20_000_000 + (f.seed % 79_999_999)]
            : `w${f.seed}x`;
      at[f.name] = value;
      for (const v of [value].flat()) secrets.push(String(v));
    });
    return { args, secrets };
  });

const REQUESTS = generateSessions({ seed: 5, sessions: 12, maxDepth: 4, noise: false }).flatMap((s) =>
  sessionPairs(s).pairs.map((p) => p.request as Record<string, unknown>),
);

/** Every tool call's arguments in a request, with a setter (objects; Responses keeps a JSON string). */
function callArgs(req: Record<string, unknown>): Array<(a: Record<string, Json>) => void> {
  const out: Array<(a: Record<string, Json>) => void> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (typeof v === "object" && v !== null) {
      const o = v as Record<string, unknown>;
      if (o.type === "tool_use") out.push((a) => (o.input = a));
      else if (o.type === "function_call") out.push((a) => (o.arguments = JSON.stringify(a)));
      else if (typeof o.functionCall === "object" && o.functionCall !== null)
        out.push((a) => ((o.functionCall as Record<string, unknown>).args = a));
      for (const x of Object.values(o)) walk(x);
    }
  };
  walk(req);
  return out;
}

/** The provider ids at their exact paths (what must be kept byte for byte). */
function providerIds(req: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const m of (req.messages ?? []) as Array<{ content?: unknown }>)
    for (const b of Array.isArray(m.content) ? m.content : [])
      for (const k of ["id", "tool_use_id"]) if (typeof b[k] === "string") ids.push(b[k]);
  for (const i of (req.input ?? []) as Array<Record<string, unknown>>)
    for (const k of ["id", "call_id"]) if (typeof i[k] === "string") ids.push(i[k] as string);
  return ids;
}

describe("secret-named fields and ids inside tool arguments", () => {
  test("none of the planted values survives; provider ids are kept (500 runs)", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(ARGS, { minLength: 1, maxLength: 3 }), (which, plans) => {
        const req = structuredClone(REQUESTS[which % REQUESTS.length]) as Record<string, unknown>;
        const setters = callArgs(req);
        fc.pre(setters.length > 0);
        for (const [i, p] of plans.entries()) setters[i % setters.length]?.(p.args);
        const out = redactRequest(req);
        const text = JSON.stringify(out);
        const left = plans.flatMap((p) => p.secrets).filter((s) => text.includes(s));
        expect({ left, ids: providerIds(out) }).toEqual({ left: [], ids: providerIds(req) });
        assertClean(out, STRICT_DETECTORS, "request");
      }),
      { numRuns: 500, seed: 11 },
    );
  });
});

test.each([
  { key: "db_password", secret: true },
  { key: "apiKey", secret: true },
  { key: "client_secret", secret: true },
  { key: "auth_token", secret: true },
  { key: "X-Api-Key", secret: true },
  { key: "Set-Cookie", secret: true },
  { key: "auth", secret: true },
  { key: "max_tokens", secret: false },
  { key: "token_count", secret: false },
  { key: "secret_scanning", secret: false },
  { key: "prompt_cache_key", secret: false },
  { key: "thoughtSignature", secret: false },
])("isSecretName($key) = $secret", ({ key, secret }) => {
  expect(isSecretName(key)).toEqual(secret);
});

test.each([
  { where: "block", key: "id", exempt: true },
  { where: "block", key: "signature", exempt: true },
  { where: "item", key: "encrypted_content", exempt: true },
  { where: "part", key: "thoughtSignature", exempt: true },
  { where: "call", key: "id", exempt: true },
  { where: "request", key: "previous_response_id", exempt: true },
  { where: "value", key: "id", exempt: false },
  { where: "value", key: "signature", exempt: false },
  { where: "request", key: "id", exempt: false },
] as const)("exemptAt($where, $key) = $exempt", ({ where, key, exempt }) => {
  expect(exemptAt(where, key, {})).toEqual(exempt);
});

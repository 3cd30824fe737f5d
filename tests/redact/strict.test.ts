// Fail-closed redaction, by property: thousands of generated secrets of every shape, placed anywhere
// in generated requests of every protocol, and none survives in what is written (the redacted request
// or, end to end, the harvested case files). Plus the fixed rules: the allowlist, the entropy
// exemption of ids and signatures, and text that is not a secret left alone.
import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { assertClean, ENTROPY_EXEMPT_KEYS, redactRequest, scanValue } from "../../lib/redact/request.ts";
import { isHighEntropy, STRICT_DETECTORS } from "../../lib/redact/strict.ts";
import { harvest } from "../../lib/steps/harvest.ts";
import type { Pair } from "../../lib/steps/pairs/index.ts";
import { generateSessions, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// Secrets are random, as real ones are: fast-check picks a seed and a length, a hash gives the bytes
// (its own generators favour runs of one character, which are not secrets). No shrinking for the same
// reason: a shrunk "secret" (all zeros) is no longer a secret.
function bytes(seed: number, n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; parts.length * 64 < n; i++)
    parts.push(createHash("sha512").update(`${seed}:${i}`).digest());
  return Buffer.concat(parts).subarray(0, n);
}
const from = (alphabet: string, min: number, max: number) =>
  fc.noShrink(
    fc
      .tuple(fc.nat(), fc.integer({ min, max }))
      .map(([seed, len]) => [...bytes(seed, len)].map((b) => alphabet[b % alphabet.length]).join("")),
  );
const chars = from;
// With all three character classes, as generated keys have.
const rand = (min: number, max: number) => from(ALNUM, min - 3, max - 3).map((s) => `aZ7${s}`);
const b64url = (min: number) => from(`${ALNUM}-_`, min, min + 30);

/** A secret, and the part of it that must not survive. */
interface Secret {
  shape: string;
  text: string;
  core: string;
  /** Found only by the entropy rule (so exempt keys may keep it). */
  entropyOnly?: boolean;
}

const SECRETS: fc.Arbitrary<Secret> = fc.oneof(
  rand(36, 40).map((s) => ({ shape: "github-token", text: `ghp_${s}`, core: s })),
  rand(30, 60).map((s) => ({ shape: "github-pat", text: `github_pat_${s}`, core: s })),
  rand(30, 60).map((s) => ({ shape: "anthropic", text: `sk-ant-api03-${s}`, core: s })),
  rand(30, 60).map((s) => ({ shape: "openai", text: `sk-proj-${s}`, core: s })),
  rand(20, 40).map((s) => ({ shape: "slack", text: `xoxb-1234-${s}`, core: s })),
  chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16).map((s) => ({
    shape: "aws",
    text: `AKIA${s}`,
    core: `AKIA${s}`,
  })),
  fc
    .tuple(b64url(12), b64url(20), b64url(30))
    .map(([a, b, c]) => ({ shape: "jwt", text: `eyJ${a}.eyJ${b}.${c}`, core: `${b}.${c}` })),
  rand(24, 48).map((s) => ({ shape: "bearer", text: `Authorization: Bearer ${s}`, core: s })),
  rand(16, 32).map((s) => ({
    shape: "basic",
    text: `Basic ${Buffer.from(`user:${s}`).toString("base64")}`,
    core: Buffer.from(`user:${s}`).toString("base64"),
  })),
  fc
    .tuple(fc.constantFrom("PASSWORD", "DB_PASSWORD", "API_KEY", "SECRET_TOKEN"), rand(10, 24))
    .map(([n, s]) => ({ shape: "assignment", text: `${n}=${s}`, core: s })),
  rand(60, 200).map((s) => ({
    shape: "private-key",
    text: `-----BEGIN RSA PRIVATE KEY-----\n${s}\n${s}\n-----END RSA PRIVATE KEY-----`,
    core: s,
  })),
  rand(35, 35).map((s) => ({ shape: "google", text: `AIza${s}`, core: s })),
  rand(24, 40).map((s) => ({ shape: "stripe", text: `sk_live_${s}`, core: s })),
  fc.tuple(chars("abcdefghijklmnop", 3, 10), chars("abcdefghijklmnopqrstuvwxyz", 3, 10)).map(([u, d]) => ({
    shape: "email",
    text: `${u}.x7@${d}.example.com`,
    core: `${u}.x7@${d}.example.com`,
  })),
  fc.tuple(chars("abcdefgh", 3, 8), rand(10, 20)).map(([u, p]) => ({
    shape: "url-credentials",
    text: `https://${u}:${p}@git.example.com/repo.git`,
    core: p,
  })),
  rand(32, 64).map((s) => ({ shape: "entropy", text: s, core: s, entropyOnly: true })),
  chars("0123456789abcdef", 40, 64)
    .filter((s) => /[0-9]/.test(s) && /[a-f]/.test(s))
    .map((s) => ({ shape: "entropy-hex", text: s, core: s, entropyOnly: true })),
);

const lower = (min: number, max: number) => from("abcdefghijklmnopqrstuvwxyz", min, max);
const hex = (n: number) => from("0123456789abcdef", n, n);

// Secret-named assignments in every letter case and form (env, YAML, INI, JSON, URL query, flags,
// connection strings), with low-entropy values so only the named rule can find them.
const NAMES = [
  "password",
  "Password",
  "PASSWORD",
  "db_password",
  "DB_PASSWORD",
  "passwd",
  "passphrase",
  "secret",
  "client_secret",
  "clientSecret",
  "auth_token",
  "access_token",
  "api_key",
  "apiKey",
  "API-KEY",
  "x-api-key",
  "aws_secret_access_key",
  "private_key",
  "credentials",
  "spring.datasource.password",
];
const ASSIGNMENTS: fc.Arbitrary<Secret> = fc
  .tuple(
    fc.constantFrom(...NAMES),
    fc.constantFrom("=", ": ", " = ", "=>", ":=", ":"),
    fc.constantFrom("", '"', "'"),
    fc.constantFrom("", "--", "export ", "?a=1&", "Server=db;"),
    lower(6, 14),
  )
  .map(([name, op, q, pre, v]) => ({ shape: "assignment", text: `${pre}${name}${op}${q}${v}${q}`, core: v }));

const MORE: fc.Arbitrary<Secret> = fc.oneof(
  ASSIGNMENTS,
  fc
    .tuple(fc.constantFrom("--password", "--token", "--api-key", "--client-secret"), lower(6, 14))
    .map(([f, v]) => ({ shape: "flag", text: `${f} ${v}`, core: v })),
  fc
    .tuple(
      fc.constantFrom("db_password", "apiKey", "auth_token", "Client_Secret"),
      lower(6, 14),
      fc.boolean(),
    )
    .map(([k, v, esc]) => ({
      shape: "json-field",
      text: esc ? `{\\"${k}\\": \\"${v}\\"}` : `{"${k}": "${v}"}`,
      core: v,
    })),
  fc
    .tuple(fc.constantFrom("pin_token", "db_password", "apiKey"), from("123456789", 8, 12))
    .map(([k, v]) => ({ shape: "json-number", text: `{"${k}": ${v}}`, core: v })),
  fc
    .tuple(hex(8), hex(4), hex(3), hex(3), hex(12), fc.constantFrom("x-api-key", "X-Api-Key", "api-key"))
    .map(([a, b, c, d, e, h]) => {
      const uuid = `${a}-${b}-4${c}-a${d}-${e}`;
      return { shape: "x-api-key", text: `${h}: ${uuid}`, core: uuid };
    }),
  fc
    .tuple(lower(3, 8), lower(8, 16))
    .map(([u, p]) => ({ shape: "curl-user", text: `curl -u ${u}:${p} https://ci.example.com`, core: p })),
  fc
    .tuple(fc.constantFrom("Cookie", "Set-Cookie", "cookie"), lower(12, 24))
    .map(([h, v]) => ({ shape: "cookie", text: `${h}: sid=${v}; Path=/`, core: v })),
  fc.tuple(lower(3, 8), lower(3, 8)).map(([u, d]) => ({
    shape: "idn-email",
    text: `${u}.m\u00fcller@b\u00fccher-${d}.de`,
    core: `${u}.m\u00fcller@b\u00fccher-${d}.de`,
  })),
  rand(20, 20).map((s) => ({ shape: "gitlab", text: `glpat-${s}`, core: s })),
  rand(36, 36).map((s) => ({ shape: "npm", text: `npm_${s}`, core: s })),
  rand(60, 80).map((s) => ({ shape: "pypi", text: `pypi-AgEIcHlwaS5vcmc${s}`, core: s })),
  fc
    .tuple(rand(22, 22), rand(43, 43))
    .map(([a, b]) => ({ shape: "sendgrid", text: `SG.${a}.${b}`, core: b })),
  hex(32).map((h) => ({ shape: "twilio", text: `SK${h}`, core: h })),
  fc.tuple(rand(3, 3), rand(34, 34)).map(([a, b]) => ({ shape: "azure-ad", text: `${a}8Q~${b}`, core: b })),
  rand(28, 28).map((s) => ({ shape: "google-oauth", text: `GOCSPX-${s}`, core: s })),
  rand(40, 40).map((s) => ({
    shape: "slack-webhook",
    text: `https://hooks.slack.com/services/T0/B0/${s}`,
    core: s,
  })),
);

const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"];

/** A secret hidden from a plain regex: split by zero-width characters, or percent-encoded. */
const DISGUISED: fc.Arbitrary<Secret> = fc
  .tuple(fc.oneof(SECRETS, MORE), fc.nat(), fc.constantFrom(...INVISIBLE), fc.boolean())
  .filter(([s]) => !s.entropyOnly && s.shape !== "private-key")
  .map(([s, at, zw, split]) => {
    if (split) {
      const i = s.text.indexOf(s.core) + 1 + (at % Math.max(1, s.core.length - 2));
      return { ...s, shape: `${s.shape}+zero-width`, text: `${s.text.slice(0, i)}${zw}${s.text.slice(i)}` };
    }
    const enc = s.text.replace(
      /[=:_ "'&;@./-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
    );
    return { ...s, shape: `${s.shape}+percent`, text: enc };
  });

const ALL_SHAPES: fc.Arbitrary<Secret> = fc.oneof(SECRETS, MORE, DISGUISED);

/** What a reader sees: NFKC, invisible characters dropped, percent-decoded. */
function seen(text: string): string {
  const plain = text.normalize("NFKC").replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, "");
  return plain.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

const DELIMS = [" ", "\n", "\t", '"', "'", "=", ":", ",", ";", "(", ")", "<", ">", "`"];

/** Every string leaf of a JSON value with a setter, and the key it sits under. */
function leaves(
  v: unknown,
  out: Array<{ key: string | undefined; get: () => string; set: (s: string) => void }> = [],
  key?: string,
) {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      if (typeof x === "string") out.push({ key, get: () => v[i], set: (s) => (v[i] = s) });
      else leaves(x, out);
    });
  else if (typeof v === "object" && v !== null)
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const o = v as Record<string, unknown>;
      if (typeof x === "string") out.push({ key: k, get: () => o[k] as string, set: (s) => (o[k] = s) });
      else leaves(x, out, k);
    }
  return out;
}

const REQUESTS: Pair["request"][] = generateSessions({
  seed: 21,
  sessions: 16,
  maxDepth: 6,
  noise: false,
}).flatMap((s) => sessionPairs(s).pairs.map((p) => p.request));

/** Places each secret in a random string leaf, at a random position of its original text (never inside another secret). */
function plant(
  req: Record<string, unknown>,
  placements: Array<{ secret: Secret; leaf: number; at: number; d1: string; d2: string }>,
) {
  const all = leaves(req);
  const inserts = new Map<number, Array<{ at: number; text: string }>>();
  for (const p of placements) {
    const ok = all.flatMap((l, i) =>
      p.secret.entropyOnly && l.key !== undefined && ENTROPY_EXEMPT_KEYS.has(l.key) ? [] : [i],
    );
    const i = ok[p.leaf % ok.length];
    if (i === undefined) continue;
    const at = p.at % ((all[i]?.get().length ?? 0) + 1);
    inserts.set(i, [...(inserts.get(i) ?? []), { at, text: `${p.d1}${p.secret.text}${p.d2}` }]);
  }
  for (const [i, list] of inserts) {
    const l = all[i] as (typeof all)[number];
    const s = l.get();
    let out = "";
    let from = 0;
    for (const x of list.sort((a, b) => a.at - b.at)) {
      out += s.slice(from, x.at) + x.text;
      from = x.at;
    }
    l.set(out + s.slice(from));
  }
}

const PLACEMENT = fc.record({
  secret: ALL_SHAPES,
  leaf: fc.nat(),
  at: fc.nat(),
  d1: fc.constantFrom(...DELIMS),
  d2: fc.constantFrom(...DELIMS),
});

describe("no generated secret survives redaction", () => {
  test("in generated requests of every protocol (1000 runs, up to 4 secrets each)", () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(PLACEMENT, { minLength: 1, maxLength: 4 }), (which, placements) => {
        const req = structuredClone(REQUESTS[which % REQUESTS.length]) as Record<string, unknown>;
        plant(req, placements);
        const out = redactRequest(req);
        const text = seen(JSON.stringify(out));
        expect(placements.filter((p) => text.includes(p.secret.core)).map((p) => p.secret.shape)).toEqual([]);
        assertClean(out, STRICT_DETECTORS, "request");
      }),
      { numRuns: 1000, seed: 42 },
    );
  }, 120_000);

  test("end to end: harvested case files hold none of the planted secrets", async () => {
    const specs = generateSessions({ seed: 31, sessions: 4, maxDepth: 5, noise: false });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(PLACEMENT, { minLength: 1, maxLength: 3 }), { minLength: 4, maxLength: 4 }),
        async (plans) => {
          using dir = tempDir("redact-e2e");
          const pairs = specs.flatMap((s) => sessionPairs(s).pairs);
          const planted: Secret[] = [];
          pairs.forEach((p, i) => {
            const plan = plans[i % plans.length] ?? [];
            // Only the conversation's text: a secret in a structural field fails closed instead (tested below).
            const items = (p.request.messages ?? p.request.input ?? p.request.contents) as unknown[];
            for (const pl of plan) {
              const ls = leaves(items).filter(
                (l) => !["type", "role", "name", "call_id", "tool_use_id", "id"].includes(l.key ?? ""),
              );
              const l = ls[pl.leaf % ls.length];
              if (!l) continue;
              const s = l.get();
              // At either end, never inside a secret planted before (positions: the test above).
              const at = pl.at % 2 === 0 ? 0 : s.length;
              l.set(`${s.slice(0, at)} ${pl.secret.text} ${s.slice(at)}`);
              planted.push(pl.secret);
            }
          });
          const store = join(dir.path, "pairs.jsonl");
          writePairStore(store, pairs);
          const key = join(dir.path, "k");
          writeFileSync(key, randomBytes(32).toString("base64"));
          const out = join(dir.path, "suite");
          const r = await harvest({
            pairs: store,
            pairKeyFiles: [key],
            experiment: "exp",
            out,
            select: ["diverged", "invalid-call", "premature-stop", "sample"],
            perDepth: 50,
          });
          expect(r.written.length).toBeGreaterThan(0);
          const text = readdirSync(out)
            .map((n) => readFileSync(join(out, n), "utf8"))
            .join("\n");
          const shown = seen(text);
          expect(planted.filter((s) => shown.includes(s.core)).map((s) => s.shape)).toEqual([]);
        },
      ),
      { numRuns: 12, seed: 7 },
    );
  }, 300_000);
});

describe("fixed rules", () => {
  test("only allowlisted top-level fields are kept", () => {
    const req = {
      model: "m",
      messages: [],
      metadata: { user_id: "u" },
      prompt_cache_key: "k",
      user: "x",
      store: true,
      contents: [],
    };
    expect(redactRequest(req)).toEqual({ model: "m", messages: [], contents: [] });
    expect(redactRequest(req, { keepFields: ["store"] })).toEqual({
      model: "m",
      messages: [],
      store: true,
      contents: [],
    });
  });

  test("ids, signatures and encrypted reasoning are exempt from the entropy rule only", () => {
    const sig = "EqQBCkgIARABGAIiQL2mZ9xQ7yR3vT1kP0wN8sJ4hF6gD2cB5aZ9yX7wV3uT1sR0qP8oN6mL4kJ2iH0gF8eD6cB4aA";
    const req = {
      messages: [
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: sig },
            { type: "tool_use", id: "toolu_01AbCdEfGh1234567890XyZw", name: "Read", input: {} },
          ],
        },
        { role: "assistant", content: [{ type: "redacted_thinking", data: sig }] },
      ],
      input: [
        { type: "reasoning", encrypted_content: sig },
        { type: "reasoning", encrypted_content: `x ghp_${"a1B2".repeat(9)} y` },
      ],
    };
    const out = redactRequest(req) as typeof req;
    expect(out.messages).toEqual(req.messages);
    expect(out.input).toEqual([
      { type: "reasoning", encrypted_content: sig },
      { type: "reasoning", encrypted_content: "x [REDACTED:github-token] y" },
    ]);
    expect(scanValue({ thinking: sig }, STRICT_DETECTORS).map((f) => f.detector)).toEqual(["high-entropy"]);
  });

  test("secret-named fields are redacted whatever their value", () => {
    expect(
      redactRequest({
        messages: [
          { role: "user", content: [{ type: "tool_use", input: { password: "hunter2", path: "a" } }] },
        ],
      }),
    ).toEqual({
      messages: [
        {
          role: "user",
          content: [{ type: "tool_use", input: { password: "[REDACTED:secret-field]", path: "a" } }],
        },
      ],
    });
  });

  test.each([
    "src/components/HeaderButtonGroup.tsx",
    "The quick brown fox jumps over the lazy dog 42 times",
    "node_modules/@types/node/index.d.ts",
    "3f2a9c1e-4b5d-4e6f-8a7b-9c0d1e2f3a4b",
    "abc123",
    "useEffectCleanupForMountedState",
  ])("not a secret: %s", (s) => {
    expect(redactRequest({ system: s })).toEqual({ system: s });
  });

  test("isHighEntropy", () => {
    expect([
      isHighEntropy("aZ7kq9LmN2pX4rT6vB8wC1yD3"),
      isHighEntropy("0123456789abcdef0123456789abcdef"),
      isHighEntropy("abcdefghijklmnopqrstuvwxyz"),
      isHighEntropy("ReadTheFileAndThenWriteIt"),
    ]).toEqual([true, true, false, false]);
  });
});

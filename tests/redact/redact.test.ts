import { describe, expect, test } from "bun:test";
import { DETECTORS, type Detector, findSecrets, redactText } from "../../lib/redact/index.ts";

// Fake credentials assembled at run time so this file itself never carries a credential shape.
const gh = (p: string) => `${p}_${"a1B2c3D4e5".repeat(4)}`;
const FAKE = {
  ghp: gh("ghp"),
  gho: gh("gho"),
  ghu: gh("ghu"),
  ghs: gh("ghs"),
  ghr: gh("ghr"),
  pat: `github_pat_${"11ABCDEFG0".repeat(3)}_${"x".repeat(20)}`,
  openai: `sk-proj-${"Abc123Def456".repeat(3)}`,
  anthropic: `sk-ant-api03-${"Zz9_Yy8-".repeat(4)}`,
  slack: `xoxb-${"1234567890"}-${"abcdefghij"}`,
  akia: `AKIA${"IOSFODNN7EXAMPLE"}`,
  asia: `ASIA${"ABCDEFGHIJKLMNOP"}`,
  jwt: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${"dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}`,
  pem: `-----BEGIN RSA PRIVATE ${"KEY"}-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE ${"KEY"}-----`,
};

describe("redactText", () => {
  test.each([
    {
      name: "ghp token",
      input: `token ${FAKE.ghp} ok`,
      text: "token [REDACTED:github-token] ok",
      detectors: ["github-token"],
    },
    { name: "gho token", input: FAKE.gho, text: "[REDACTED:github-token]", detectors: ["github-token"] },
    { name: "ghu token", input: FAKE.ghu, text: "[REDACTED:github-token]", detectors: ["github-token"] },
    { name: "ghs token", input: FAKE.ghs, text: "[REDACTED:github-token]", detectors: ["github-token"] },
    { name: "ghr token", input: FAKE.ghr, text: "[REDACTED:github-token]", detectors: ["github-token"] },
    {
      name: "fine-grained PAT",
      input: `x=${FAKE.pat}`,
      text: "x=[REDACTED:github-pat]",
      detectors: ["github-pat"],
    },
    {
      name: "OpenAI key",
      input: `key: ${FAKE.openai}`,
      text: "key: [REDACTED:openai-key]",
      detectors: ["openai-key"],
    },
    {
      name: "Anthropic key",
      input: FAKE.anthropic,
      text: "[REDACTED:anthropic-key]",
      detectors: ["anthropic-key"],
    },
    { name: "Slack token", input: FAKE.slack, text: "[REDACTED:slack-token]", detectors: ["slack-token"] },
    {
      name: "AWS AKIA id",
      input: `id ${FAKE.akia}.`,
      text: "id [REDACTED:aws-access-key-id].",
      detectors: ["aws-access-key-id"],
    },
    {
      name: "AWS ASIA id",
      input: FAKE.asia,
      text: "[REDACTED:aws-access-key-id]",
      detectors: ["aws-access-key-id"],
    },
    { name: "JWT", input: `jwt=${FAKE.jwt}`, text: "jwt=[REDACTED:jwt]", detectors: ["jwt"] },
    {
      name: "Bearer header",
      input: "Authorization: Bearer abc.def-123456",
      text: "Authorization: Bearer [REDACTED:http-auth]",
      detectors: ["http-auth"],
    },
    {
      name: "Basic header",
      input: "authorization: basic dXNlcjpwYXNz",
      text: "authorization: basic [REDACTED:http-auth]",
      detectors: ["http-auth"],
    },
    {
      name: "curl header, JSON-quoted",
      input: '{"Authorization": "token abcdef123456"}',
      text: '{"Authorization": "token [REDACTED:http-auth]"}',
      detectors: ["http-auth"],
    },
    {
      name: "bare Bearer credential",
      input: "-H 'Bearer abcdefghijklmnop1234'",
      text: "-H 'Bearer [REDACTED:bearer-token]'",
      detectors: ["bearer-token"],
    },
    {
      name: "PEM private key",
      input: `a\n${FAKE.pem}\nb`,
      text: "a\n[REDACTED:private-key]\nb",
      detectors: ["private-key"],
    },
    {
      name: "PEM without END",
      input: `-----BEGIN PRIVATE ${"KEY"}-----\nMIIE`,
      text: "[REDACTED:private-key]",
      detectors: ["private-key"],
    },
    {
      name: "PASSWORD=",
      input: "DB_PASSWORD=hunter22 next",
      text: "DB_PASSWORD=[REDACTED:assignment] next",
      detectors: ["assignment"],
    },
    {
      name: "TOKEN: quoted",
      input: "GH_TOKEN: 'abcd1234'",
      text: "GH_TOKEN: '[REDACTED:assignment]'",
      detectors: ["assignment"],
    },
    {
      name: "SECRET=",
      input: "export CLIENT_SECRET=s3cr3tvalue",
      text: "export CLIENT_SECRET=[REDACTED:assignment]",
      detectors: ["assignment"],
    },
    {
      name: "JSON token field",
      input: '{"token": "abcd-1234"}',
      text: '{"token": "[REDACTED:assignment]"}',
      detectors: ["assignment"],
    },
    {
      name: "token wins over its assignment",
      input: `GH_TOKEN=${FAKE.ghp}`,
      text: "GH_TOKEN=[REDACTED:github-token]",
      detectors: ["github-token"],
    },
    {
      name: "a value that only starts like a reference",
      input: "password=$ecretP4ss",
      text: "password=[REDACTED:assignment]",
      detectors: ["assignment"],
    },
    {
      name: "text after our own marker is a value",
      input: "password=[REDACTED:email]tail",
      text: "password=[REDACTED:assignment]",
      detectors: ["assignment"],
    },
    {
      name: "two in a row",
      input: `${FAKE.akia} ${FAKE.slack}`,
      text: "[REDACTED:aws-access-key-id] [REDACTED:slack-token]",
      detectors: ["aws-access-key-id", "slack-token"],
    },
  ])("$name", ({ input, text, detectors }) => {
    const r = redactText(input);
    expect({
      text: r.text,
      detectors: r.findings.map((f) => f.detector),
      clean: findSecrets(r.text),
    }).toEqual({ text, detectors: [...detectors], clean: [] });
  });
});

describe("not credentials", () => {
  test.each([
    { name: "prose about tokens", input: "The token expired; rotate the secret." },
    {
      name: "prose with basic and bearer",
      input: "A basic description of the Bearer instrument, basically.",
    },
    { name: "placeholder reference", input: "GH_TOKEN=$GH_TOKEN and API_KEY=$" + "{API_KEY}" },
    { name: "masked value", input: "PASSWORD=*** TOKEN=<redacted>" },
    { name: "lower-case config key", input: "secret_scanning: enabled" },
    { name: "short ghp-like word", input: "ghp_short" },
    { name: "JSON non-secret field", input: '{"token_count": 12, "title": "Bearer of bad news"}' },
    { name: "git sha", input: "commit 0123456789abcdef0123456789abcdef01234567" },
    { name: "our own markers", input: "TOKEN=[REDACTED:github-token]" },
    { name: "GitHub Actions and Windows references", input: "password=$" + "{{ secrets.PW }} token=%TOKEN%" },
    { name: "issue JSON", input: '{"number":7,"title":"login redirect","state":"OPEN"}' },
  ])("$name", ({ input }) => {
    expect(redactText(input)).toEqual({ text: input, findings: [] });
  });
});

test("findings give spans in the original text, never the secret", () => {
  const input = `a ${FAKE.ghp} b`;
  expect(findSecrets(input)).toEqual([{ detector: "github-token", start: 2, end: 2 + FAKE.ghp.length }]);
});

test("custom detector tables are honoured", () => {
  const only: Detector[] = [{ name: "word", pattern: /\bswordfish\b/g }];
  expect(redactText("the password is swordfish", only)).toEqual({
    text: "the password is [REDACTED:word]",
    findings: [{ detector: "word", start: 16, end: 25 }],
  });
});

test("every default detector has a unique name and a global pattern", () => {
  const names = DETECTORS.map((d) => d.name);
  expect({
    unique: new Set(names).size === names.length,
    global: DETECTORS.every((d) => d.pattern.global),
  }).toEqual({
    unique: true,
    global: true,
  });
});

import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepProtocol } from "../../lib/steps/case.ts";
import { buildRequest, loadSuite, replayCase } from "../../lib/steps/replay.ts";
import { runStepSuite } from "../../lib/steps/replay-run.ts";
import { httpError, type Step, startMockModel, text, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REQUESTS, result, stepCase, writeSuite } from "./_cases.ts";

const KEY = "sk-test-Zq9vXr2Lp8Wm4Nt6";
const AWS = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const READ = { name: "Read", args: { file_path: "a.ts" } };

const routes: Array<{
  protocol: StepProtocol;
  key: string;
  path: string;
  auth: string;
  body: Record<string, unknown>;
}> = [
  {
    protocol: "anthropic",
    key: KEY,
    path: "/v1/messages",
    auth: "x-api-key",
    body: { ...REQUESTS.anthropic, model: "opus", stream: false },
  },
  {
    protocol: "responses",
    key: KEY,
    path: "/v1/responses",
    auth: "bearer",
    body: { ...REQUESTS.responses, model: "opus", stream: false },
  },
  {
    protocol: "gemini",
    key: KEY,
    path: "/v1beta/models/opus:generateContent",
    auth: "x-goog-api-key",
    body: REQUESTS.gemini,
  },
  {
    protocol: "bedrock",
    key: `${AWS.accessKeyId}:${AWS.secretAccessKey}`,
    path: "/model/anthropic.claude-v1%3A0/invoke",
    auth: "aws-sigv4",
    body: REQUESTS.bedrock,
  },
  {
    protocol: "bedrock",
    key: KEY,
    path: "/model/anthropic.claude-v1%3A0/invoke",
    auth: "bearer",
    body: REQUESTS.bedrock,
  },
];

for (const r of routes)
  test(`replay ${r.protocol} (${r.auth}): one non-streaming call, model rewritten, graded`, async () => {
    await using mock = await startMockModel({
      script: [toolCalls([READ])],
      sigv4: { ...AWS, region: "us-east-1" },
    });
    using dir = tempDir("steps-replay");
    writeSuite(dir.path, [stepCase(r.protocol)]);
    const model = r.protocol === "bedrock" ? "anthropic.claude-v1:0" : "opus";
    const sc = await runStepSuite({
      suite: dir.path,
      model,
      url: mock.url,
      keyEnv: "STEP_KEY",
      region: "us-east-1",
      env: { STEP_KEY: r.key },
    });
    const [req] = mock.requests;
    expect({
      url: req?.url,
      auth: req?.auth,
      stream: req?.stream,
      body: req?.body,
      sigv4: req?.sigv4,
    }).toEqual({
      url: r.path,
      auth: r.auth as never,
      stream: false,
      body: r.body,
      sigv4: r.auth === "aws-sigv4" ? "ok" : undefined,
    });
    expect(sc.results).toEqual([
      result(`${r.protocol}-1`, 1, { depth: 3, protocol: r.protocol, latencyMs: sc.results[0]!.latencyMs }),
    ]);
    expect(JSON.stringify({ requests: mock.requests, sc })).not.toContain(KEY);
    expect(JSON.stringify({ requests: mock.requests, sc })).not.toContain(AWS.secretAccessKey);
  });

test("a wrong AWS secret is refused by the signature check and errors the case", async () => {
  await using mock = await startMockModel({
    script: [toolCalls([READ])],
    sigv4: { ...AWS, region: "us-east-1" },
  });
  using dir = tempDir("steps-replay");
  writeSuite(dir.path, [stepCase("bedrock")]);
  const sc = await runStepSuite({
    suite: dir.path,
    model: "m",
    url: mock.url,
    keyEnv: "K",
    region: "us-east-1",
    env: { K: `${AWS.accessKeyId}:wrong-secret-value-123` },
  });
  expect(mock.requests.map((q) => q.sigv4)).toEqual(["bad"]);
  expect(sc.results[0]?.error).toBe("HTTP 403: mock-model: the SigV4 signature does not match");
  expect(JSON.stringify(sc)).not.toContain("wrong-secret-value-123");
});

test("errors, stops and wrong tools: each case graded, an errored call fails its case", async () => {
  await using mock = await startMockModel({
    script: [
      // Not a 429 or 5xx: those are retried (next test), and the retry would take the next step.
      httpError(400),
      text("all done"),
      toolCalls([{ name: "Bash", args: { command: "cat a.ts" } }]),
      toolCalls([{ name: "Read", args: { path: "a.ts" } }]),
    ],
  });
  using dir = tempDir("steps-replay");
  writeSuite(
    dir.path,
    ["a", "b", "c", "d"].map((id) => stepCase("anthropic", { id })),
  );
  const sc = await runStepSuite({
    suite: dir.path,
    model: "m",
    url: mock.url,
    keyEnv: "K",
    parallel: 1,
    env: { K: KEY },
  });
  expect(
    sc.results.map((r) => ({
      id: r.id,
      pass: r.pass,
      stop: r.prematureStop,
      valid: r.valid,
      error: r.error,
      problems: r.problems,
    })),
  ).toEqual([
    { id: "a", pass: false, stop: null, valid: false, error: "HTTP 400: mock error", problems: [] },
    { id: "b", pass: false, stop: true, valid: true, error: undefined, problems: [] },
    {
      id: "c",
      pass: false,
      stop: false,
      valid: false,
      error: undefined,
      problems: ['"Bash" was not offered'],
    },
    {
      id: "d",
      pass: false,
      stop: false,
      valid: false,
      error: undefined,
      problems: ['"Read" misses "file_path"'],
    },
  ]);
  expect(sc.errors).toBe(1);
});

test.each<{ name: string; script: Step[]; requests: number; error: string | undefined }>([
  { name: "a 429 then a reply", script: [httpError(429), toolCalls([READ])], requests: 2, error: undefined },
  {
    name: "a 503 thrice",
    script: [httpError(503), httpError(503), httpError(503)],
    requests: 3,
    error: "HTTP 503: mock error",
  },
])("retries on 429 and 5xx: $name", async ({ script, requests, error }) => {
  await using mock = await startMockModel({ script });
  const c = stepCase("anthropic");
  const { result: r } = await replayCase(c, { url: mock.url, model: "m", key: KEY, backoff: () => 0 });
  const passed = result("anthropic-1", 1, { depth: 3, latencyMs: r.latencyMs });
  const failed = {
    ...passed,
    pass: false,
    sameTools: false,
    sameCalls: false,
    valid: false,
    prematureStop: null,
  };
  expect({ requests: mock.requests.length, result: r }).toEqual({
    requests,
    result: error ? { ...failed, tools: [], error } : passed,
  });
});

test("an unreachable endpoint errors every case without the key in the message", async () => {
  const mock = await startMockModel();
  const url = mock.url;
  await mock.close();
  using dir = tempDir("steps-replay");
  writeSuite(dir.path, [stepCase("responses")]);
  const sc = await runStepSuite({ suite: dir.path, model: "m", url, keyEnv: "K", env: { K: KEY } });
  expect(sc.errors).toBe(1);
  expect(sc.results[0]?.error).toStartWith("Request failed: ");
});

test("Bedrock signing takes the region from the URL host, and refuses without one", () => {
  const c = { protocol: "bedrock" as const, request: {} };
  const ep = { model: "m", key: "AK:SECRET", now: () => new Date("2026-01-01T00:00:00Z") };
  const signed = buildRequest(c, { ...ep, url: "https://bedrock-runtime.eu-west-1.amazonaws.com" });
  expect(signed.headers.authorization).toStartWith(
    "AWS4-HMAC-SHA256 Credential=AK/20260101/eu-west-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=",
  );
  expect(() => buildRequest(c, { ...ep, url: "http://127.0.0.1:1" })).toThrow(
    'Cannot sign for Bedrock at "http://127.0.0.1:1": give --region (or AWS_REGION)',
  );
});

const badSuites: Array<{ name: string; files: Record<string, string>; error: RegExp }> = [
  { name: "no cases", files: {}, error: /^Cannot load step suite ".*": no \*\.json case files$/ },
  { name: "not JSON", files: { "x.json": "{" }, error: /^Cannot parse step case ".*x\.json": / },
  {
    name: "bad field",
    files: { "x.json": JSON.stringify({ ...stepCase("anthropic"), match: "exact" }) },
    error: /^Cannot load step case ".*x\.json": .* at match$/,
  },
  {
    name: "duplicate id",
    files: {
      "a.json": JSON.stringify(stepCase("anthropic")),
      "b.json": JSON.stringify(stepCase("anthropic")),
    },
    error: /duplicate case id "anthropic-1"$/,
  },
];
for (const b of badSuites)
  test(`bad suite: ${b.name}`, () => {
    using dir = tempDir("steps-suite");
    for (const [n, t] of Object.entries(b.files)) writeFileSync(join(dir.path, n), t);
    expect(() => loadSuite(dir.path)).toThrow(b.error);
  });

test("a missing suite directory names it", () => {
  expect(() => loadSuite("/nonexistent/suite")).toThrow(/^Cannot read step suite "\/nonexistent\/suite": /);
});

const badOptions = [
  {
    name: "key variable unset",
    o: { keyEnv: "NOPE" },
    error: "--key-env NOPE: the variable is not set or empty",
  },
  {
    name: "a key given instead of a name",
    o: { keyEnv: "sk-abc" },
    error: "--key-env takes the NAME of an environment variable (letters, digits, _), not its value",
  },
  { name: "bad URL", o: { url: "gw.example" }, error: '--url must be an http(s) URL, got "gw.example"' },
];
for (const b of badOptions)
  test(`bad option: ${b.name}`, async () => {
    await expect(
      runStepSuite({
        suite: "/nonexistent",
        model: "m",
        url: "http://127.0.0.1:1",
        keyEnv: "K",
        env: { K: KEY },
        ...b.o,
      }),
    ).rejects.toThrow(b.error);
  });

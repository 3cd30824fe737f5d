// The model/judge HTTP client: retries on 429 and 5xx against the mock model (backoff injected, so
// no test waits), no retry on other statuses or on a timeout, Retry-After honoured, and no credential
// in any error, whatever the server or the transport echoes.
import { describe, expect, test } from "bun:test";
import { inspect } from "node:util";
import { defaultBackoff, type HttpError, type HttpRequest, post, retryAfterMs } from "../../lib/core/http.ts";
import { hang, httpError, type Step, startMockModel, text } from "../support/mock-model.ts";

const KEY = "sk-test-Hq7Wz3Kp9Lm2Vb5Nx";
const BODY = JSON.stringify({ model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
const request = (url: string): HttpRequest => ({
  url: `${url}/v1/messages`,
  headers: { "content-type": "application/json", "x-api-key": KEY },
  body: BODY,
});

/** What a call ended with, as one comparable value. */
async function outcome(p: Promise<{ status: number; attempts: number }>): Promise<Record<string, unknown>> {
  try {
    const r = await p;
    return { status: r.status, attempts: r.attempts };
  } catch (e) {
    const h = e as HttpError;
    return { error: h.message, name: h.name, exitCode: h.exitCode, status: h.status, attempts: h.attempts };
  }
}

describe("retries against the mock model", () => {
  const cases: Array<{
    name: string;
    script: Step[];
    timeoutMs?: number;
    want: Record<string, unknown>;
    waits: unknown[];
  }> = [
    {
      name: "a 429 then a 200 succeeds on the second attempt",
      script: [httpError(429), text("hello")],
      want: { status: 200, attempts: 2 },
      waits: [[1, undefined]],
    },
    {
      name: "a 503 thrice gives up after two retries",
      script: [httpError(503), httpError(503), httpError(503), text("never")],
      want: { error: "HTTP 503: mock error", name: "HttpError", exitCode: 4, status: 503, attempts: 3 },
      waits: [
        [1, undefined],
        [2, undefined],
      ],
    },
    {
      name: "a 400 is not retried",
      script: [httpError(400), text("never")],
      want: { error: "HTTP 400: mock error", name: "HttpError", exitCode: 4, status: 400, attempts: 1 },
      waits: [],
    },
    {
      name: "a hang past the timeout fails once, not retried",
      script: [hang(), text("never")],
      timeoutMs: 50,
      want: {
        error: "Request failed: no reply within 50 ms",
        name: "HttpError",
        exitCode: 4,
        status: undefined,
        attempts: 1,
      },
      waits: [],
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      await using mock = await startMockModel({ script: c.script });
      const waits: unknown[] = [];
      const got = await outcome(
        post(request(mock.url), {
          ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}),
          backoff: (n, after) => {
            waits.push([n, after]);
            return 0;
          },
        }),
      );
      expect({ got, waits, requests: mock.requests.length }).toEqual({
        got: c.want,
        waits: c.waits,
        requests: Number(c.want.attempts),
      });
    });
});

test("Retry-After (seconds or a date) is what the backoff is given", async () => {
  const replies = [
    new Response("{}", { status: 429, headers: { "retry-after": "7" } }),
    new Response("{}", {
      status: 503,
      headers: { "retry-after": new Date(Date.now() + 60_000).toUTCString() },
    }),
    new Response('{"ok":true}', { status: 200 }),
  ];
  const waits: Array<[number, number | undefined]> = [];
  const r = await post(request("http://127.0.0.1:1"), {
    fetch: (async () => replies.shift() as Response) as unknown as typeof fetch,
    backoff: (n, after) => {
      waits.push([n, after]);
      return 0;
    },
  });
  expect({ status: r.status, text: r.text, attempts: r.attempts, first: waits[0] }).toEqual({
    status: 200,
    text: '{"ok":true}',
    attempts: 3,
    first: [1, 7000],
  });
  // An HTTP date is relative to now: about a minute, never negative.
  expect(waits[1]?.[1]).toBeGreaterThan(50_000);
});

test.each([
  { name: "delta seconds", value: "3", want: 3000 },
  { name: "fractional seconds", value: "0.5", want: 500 },
  { name: "an HTTP date", value: "Thu, 01 Jan 2026 00:00:10 GMT", want: 10_000 },
  { name: "a date in the past", value: "Thu, 01 Jan 2026 00:00:00 GMT", want: 0 },
  { name: "absent", value: null, want: undefined },
  { name: "garbage", value: "soon", want: undefined },
])("Retry-After: $name", ({ value, want }) => {
  expect(retryAfterMs(value, Date.parse("2026-01-01T00:00:00Z"))).toEqual(want);
});

test("backoff doubles from 1 s, takes Retry-After when given, and is capped at 60 s", () => {
  expect([1, 2, 3, 8].map((n) => defaultBackoff(n, undefined))).toEqual([1000, 2000, 4000, 60_000]);
  expect([defaultBackoff(1, 5000), defaultBackoff(1, 0), defaultBackoff(2, 600_000)]).toEqual([
    5000, 0, 60_000,
  ]);
});

describe("no credential in an error", () => {
  const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  const cases: Array<{
    name: string;
    headers: Record<string, string>;
    secrets?: string[];
    fetch: typeof fetch;
  }> = [
    {
      name: "a gateway echoing the x-api-key",
      headers: { "x-api-key": KEY },
      fetch: (async (_u: string, init: RequestInit) =>
        new Response(
          JSON.stringify({ error: { message: `bad key ${new Headers(init.headers).get("x-api-key")}` } }),
          {
            status: 401,
          },
        )) as unknown as typeof fetch,
    },
    {
      name: "a gateway echoing the bearer token",
      headers: { authorization: `Bearer ${KEY}` },
      fetch: (async (_u: string, init: RequestInit) =>
        new Response(`denied: ${new Headers(init.headers).get("authorization")}`, {
          status: 403,
        })) as unknown as typeof fetch,
    },
    {
      name: "a transport error quoting the key",
      headers: { "x-goog-api-key": KEY },
      fetch: (async () => {
        throw new Error(`socket closed while sending ${KEY}`);
      }) as unknown as typeof fetch,
    },
    {
      name: "the parts of an AWS key pair given as secrets",
      headers: { authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/x, Signature=00" },
      secrets: [`AKIDEXAMPLE:${AWS_SECRET}`],
      fetch: (async () =>
        new Response(JSON.stringify({ message: `secret ${AWS_SECRET} refused` }), {
          status: 403,
        })) as unknown as typeof fetch,
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const error = await post(
        {
          url: "http://127.0.0.1:1/v1/x",
          headers: c.headers,
          body: "{}",
          ...(c.secrets ? { secrets: c.secrets } : {}),
        },
        { fetch: c.fetch, backoff: () => 0 },
      ).catch((e: unknown) => e as HttpError);
      const shown = inspect(error, { depth: 10, showHidden: true });
      expect({
        redacted: (error as HttpError).message.includes("[redacted]"),
        key: shown.includes(KEY),
        secret: shown.includes(AWS_SECRET),
      }).toEqual({ redacted: true, key: false, secret: false });
    });
});

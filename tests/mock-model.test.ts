// The mock model server over real HTTP: each protocol's text and tool-loop replies (streamed and
// not), errors, hang and stall (and that close() frees them), the request log without secrets (any
// credential-bearing header or query parameter, by rule), parallel scenarios by key, refusals of bad
// requests and of bodies over the cap (413, never held). No sleeps: waits are on events.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { bedrock, PROTOCOLS, type ProtocolName } from "../lib/wire/index.ts";
import { MAX_BODY_BYTES } from "../lib/wire/mock/server.ts";
import { hang, httpError, stall, startMockModel, text, toolCalls, toolLoop } from "./support/mock-model.ts";
import { tempDir } from "./support/tmp.ts";

const FIX = join(import.meta.dirname, "fixtures/wire");
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIX, name), "utf8"));
const USAGE = { input: 120, output: 7, cached: 20 };
const CALL = { name: "Write", args: { file_path: "/w/hello.txt", content: "hello\n" } };

const FIRST: Record<ProtocolName, Record<string, unknown>> = {
  anthropic: fixture("claude-first.json"),
  responses: {
    model: "gpt-5.5",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
  },
  gemini: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
};
const WITH_RESULT: Record<ProtocolName, Record<string, unknown>> = {
  anthropic: fixture("claude-tool-result.json"),
  responses: fixture("codex-tool-result.json"),
  gemini: fixture("gemini-tool-result.json"),
};

function path(p: ProtocolName, stream: boolean): string {
  if (p === "anthropic") return "/v1/messages?beta=true";
  if (p === "responses") return "/v1/responses";
  return `/v1beta/models/gemini-2.5-pro:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
}

interface Post {
  stream?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}
function post(url: string, p: ProtocolName, body: Record<string, unknown>, o: Post = {}): Promise<Response> {
  const stream = o.stream ?? true;
  return fetch(url + path(p, stream), {
    method: "POST",
    headers: { "content-type": "application/json", ...o.headers },
    body: JSON.stringify(p === "gemini" ? body : { ...body, stream }),
    ...(o.signal ? { signal: o.signal } : {}),
  });
}
async function reply(p: ProtocolName, res: Response, stream: boolean): Promise<unknown> {
  return stream ? PROTOCOLS[p].parseSse(await res.text()) : res.json();
}

const NAMES: ProtocolName[] = ["anthropic", "responses", "gemini"];

describe("replies by protocol", () => {
  for (const p of NAMES) {
    const wire = PROTOCOLS[p];
    for (const stream of [true, false]) {
      test(`${p} text, stream=${stream}`, async () => {
        await using mock = await startMockModel({ script: [text("done", USAGE)] });
        const res = await post(mock.url, p, FIRST[p], { stream });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(stream ? "text/event-stream" : "application/json");
        const ids = {
          id: `${p === "anthropic" ? "msg" : "resp"}_mock_1`,
          model: p === "gemini" ? "gemini-2.5-pro" : String(FIRST[p].model),
        };
        expect(await reply(p, res, stream)).toEqual(wire.textResponse("done", USAGE, ids));
      });
    }
    test(`${p} tool loop`, async () => {
      await using mock = await startMockModel({ script: toolLoop([CALL], "all done", USAGE) });
      const first = await reply(p, await post(mock.url, p, FIRST[p]), true);
      expect(wire.extractToolCalls(first).map(({ name, args }) => ({ name, args }))).toEqual([CALL]);
      const second = await reply(p, await post(mock.url, p, WITH_RESULT[p]), true);
      expect(wire.extractToolCalls(second)).toEqual([]);
      expect(JSON.stringify(second)).toContain("all done");
      expect(mock.requests.map((r) => [r.protocol, r.reply, r.stream])).toEqual([
        [p, "tools", true],
        [p, "text", true],
      ]);
    });
    for (const status of [500, 429]) {
      test(`${p} HTTP ${status}`, async () => {
        await using mock = await startMockModel({ script: [httpError(status)] });
        const res = await post(mock.url, p, FIRST[p]);
        expect(res.status).toBe(status);
        expect(await res.json()).toEqual(wire.errorBody(status, "mock error"));
      });
    }
  }
  test("an error with a scripted body", async () => {
    await using mock = await startMockModel({ script: [httpError(529, { overloaded: true })] });
    const res = await post(mock.url, "anthropic", FIRST.anthropic);
    expect([res.status, await res.json()]).toEqual([529, { overloaded: true }]);
  });
  test("text before tool calls, and the script sees what the request offers", async () => {
    const seen: unknown[] = [];
    await using mock = await startMockModel({
      script: (req, ctx) => {
        seen.push({ n: ctx.n, tools: ctx.tools, results: ctx.toolResults.length, model: req.model });
        return toolCalls([{ id: "toolu_9", ...CALL }], { text: "Creating.", usage: USAGE });
      },
    });
    const res = await post(mock.url, "anthropic", FIRST.anthropic, { stream: false });
    expect(await res.json()).toEqual(
      PROTOCOLS.anthropic.toolCallResponse([{ id: "toolu_9", ...CALL }], USAGE, {
        id: "msg_mock_1",
        model: "mock-model",
        text: "Creating.",
      }),
    );
    expect(seen).toEqual([
      { n: 0, tools: [{ name: "Read", required: ["file_path"] }], results: 0, model: "mock-model" },
    ]);
  });
  test("the Gemini router call gets schema-valid JSON without using a step", async () => {
    await using mock = await startMockModel({ script: [text("done")] });
    const res = await fetch(`${mock.url}/v1beta/models/gemini-3.5-flash-lite:generateContent`, {
      method: "POST",
      body: JSON.stringify(fixture("gemini-router.json")),
    });
    const body = (await res.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(JSON.parse(body.candidates[0]?.content.parts[0]?.text ?? "")).toEqual({
      complexity_reasoning: "mock",
      complexity_score: 1,
    });
    const next = await reply("gemini", await post(mock.url, "gemini", FIRST.gemini), true);
    expect(JSON.stringify(next)).toContain('"text":"done"');
    expect(mock.requests.map((r) => r.reply)).toEqual(["router", "text"]);
  });
  test("HEAD / answers 200 (or the configured status)", async () => {
    await using a = await startMockModel();
    await using b = await startMockModel({ headStatus: 404 });
    const codes = [
      (await fetch(a.url, { method: "HEAD" })).status,
      (await fetch(b.url, { method: "HEAD" })).status,
    ];
    expect(codes).toEqual([200, 404]);
  });
});

describe("hang and stall", () => {
  test("hang: no headers reach the client; abort and close free everything", async () => {
    const mock = await startMockModel({ script: [hang()] });
    const ctl = new AbortController();
    let settled = false;
    const pending = post(mock.url, "anthropic", FIRST.anthropic, { signal: ctl.signal }).finally(() => {
      settled = true;
    });
    await mock.waitForRequests(1);
    await fetch(mock.url, { method: "HEAD" }); // a later round trip completes; the hung one still has nothing
    expect(settled).toBe(false);
    ctl.abort();
    expect(
      await pending.then(
        () => "response",
        (e: Error) => e.name,
      ),
    ).toBe("AbortError");
    await mock.close();
    expect(mock.connections()).toBe(0);
  });
  test("hang: close() alone ends the client's request", async () => {
    const mock = await startMockModel({ script: [hang()] });
    const pending = post(mock.url, "responses", FIRST.responses).then(
      () => "response",
      () => "error",
    );
    await mock.waitForRequests(1);
    await mock.close();
    expect(await pending).toBe("error");
    expect(mock.connections()).toBe(0);
  });
  for (const p of NAMES) {
    test(`${p} stall: headers and the first event, then silence`, async () => {
      const mock = await startMockModel({ script: [stall()] });
      const ctl = new AbortController();
      const res = await post(mock.url, p, FIRST[p], { signal: ctl.signal });
      expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
      const reader = res.body!.getReader();
      if (p !== "gemini") {
        const first = new TextDecoder().decode((await reader.read()).value);
        expect(first.split("\n")[0]).toBe(
          p === "anthropic" ? "event: message_start" : "event: response.created",
        );
      }
      let settled = false;
      const next = reader.read().finally(() => {
        settled = true;
      });
      await fetch(mock.url, { method: "HEAD" });
      expect(settled).toBe(false);
      ctl.abort();
      expect(
        await next.then(
          () => "data",
          () => "error",
        ),
      ).toBe("error");
      await mock.close();
      expect(mock.connections()).toBe(0);
    });
  }
});

describe("request log", () => {
  test("records method, url, protocol, auth kind and body, never a secret", async () => {
    using dir = tempDir("proctor-mock");
    const logFile = join(dir.path, "requests.jsonl");
    await using mock = await startMockModel({ script: () => text("ok"), logFile });
    await fetch(mock.url, { method: "HEAD" });
    await post(mock.url, "anthropic", FIRST.anthropic, {
      headers: { "x-api-key": "sk-test-SECRET", "x-app": "cli" },
    });
    await post(mock.url, "responses", FIRST.responses, {
      headers: { authorization: "Bearer sk-test-SECRET" },
    });
    await post(mock.url, "gemini", FIRST.gemini, { headers: { "x-goog-api-key": "SECRET-goog" } });
    const q = await fetch(`${mock.url}/v1beta/models/m:generateContent?key=SECRET-q`, {
      method: "POST",
      body: JSON.stringify(FIRST.gemini),
    });
    expect(q.status).toBe(200);
    const log = mock.requests;
    expect(log.map((r) => [r.seq, r.method, r.url, r.protocol ?? null, r.auth, r.scenario, r.reply])).toEqual(
      [
        [1, "HEAD", "/", null, "none", "default", "status 200"],
        [2, "POST", "/v1/messages?beta=true", "anthropic", "x-api-key", "default", "text"],
        [3, "POST", "/v1/responses", "responses", "bearer", "default", "text"],
        [
          4,
          "POST",
          "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
          "gemini",
          "x-goog-api-key",
          "default",
          "text",
        ],
        [5, "POST", "/v1beta/models/m:generateContent", "gemini", "query-key", "default", "text"],
      ],
    );
    expect(log[1]?.body).toEqual({ ...FIRST.anthropic, stream: true });
    expect(log[1]?.headers["x-app"]).toBe("cli");
    expect([log[1]?.model, log[1]?.stream, log[4]?.model, log[4]?.stream]).toEqual([
      "mock-model",
      true,
      "m",
      false,
    ]);
    const file = readFileSync(logFile, "utf8");
    expect(
      file
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(JSON.parse(JSON.stringify(log)));
    expect(JSON.stringify(log)).not.toContain("SECRET");
    expect(file).not.toContain("SECRET");
  });
});

describe("the request log leaves out every credential, by rule", () => {
  // Gateway-style headers and credential query parameters that no list of seven names held; each
  // carries SECRET, which must not reach the log or its file.
  const SENT: Record<string, string> = {
    "x-portkey-api-key": "SECRET-1",
    "x-portkey-virtual-key": "SECRET-2",
    "helicone-auth": "Bearer SECRET-3",
    "cf-aig-authorization": "Bearer SECRET-4",
    "x-litellm-api-key": "SECRET-5",
    "ocp-apim-subscription-key": "SECRET-6",
    "x-auth-token": "SECRET-7",
    "x-goog-iap-jwt-assertion": "SECRET-8",
    "x-upstream": "Bearer SECRET-9",
    "x-trace-context": `sk-ant-api03-SECRET${"x".repeat(24)}`,
    "x-amz-security-token": "SECRET-10",
    "x-app": "cli",
    "x-request-id": "r-1",
    "idempotency-key": "i-1",
  };
  const QUERY =
    "?alt=sse&api_key=SECRET-a&access_token=SECRET-b&key=SECRET-c&apiKey=SECRET-d&client_secret=SECRET-e" +
    "&sig=SECRET-f&password=SECRET-g&X-Amz-Signature=SECRET-h&refresh_token=SECRET-i&keys=2&key_id=k1" +
    `&upstream=ghp_SECRET${"a1B2".repeat(8)}`;

  test("gateway headers, an auth scheme under any name and credential parameters are dropped", async () => {
    using dir = tempDir("proctor-mock");
    const logFile = join(dir.path, "requests.jsonl");
    await using mock = await startMockModel({ script: () => text("ok"), logFile });
    const r = await fetch(`${mock.url}/v1beta/models/m:streamGenerateContent${QUERY}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...SENT },
      body: JSON.stringify(FIRST.gemini),
    });
    await r.text();
    const entry = mock.requests[0];
    const kept = Object.keys(entry?.headers ?? {}).filter((h) => h in SENT || h.startsWith("x-"));
    expect({
      status: r.status,
      url: entry?.url,
      kept: kept.sort(),
      secret: [JSON.stringify(mock.requests), readFileSync(logFile, "utf8")].some((t) =>
        t.includes("SECRET"),
      ),
    }).toEqual({
      status: 200,
      url: "/v1beta/models/m:streamGenerateContent?alt=sse&keys=2&key_id=k1",
      kept: ["idempotency-key", "x-app", "x-request-id"],
      secret: false,
    });
  });
});

/** Sends raw request head bytes (and optionally part of a body) and resolves with the reply's status line. */
function rawStatus(url: string, head: string, body = ""): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(head + body));
    let got = "";
    socket.on("data", (d) => {
      got += d.toString("latin1");
      if (got.includes("\r\n")) {
        resolve(got.slice(0, got.indexOf("\r\n")));
        socket.destroy();
      }
    });
    socket.on("error", reject);
  });
}

describe("request bodies over the cap", () => {
  test("the default cap is 32 MiB; a 600 MB Content-Length is refused (413) before a byte of it is read", async () => {
    await using mock = await startMockModel({ script: () => text("ok") });
    const head = `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${600 * 1024 * 1024}\r\n\r\n`;
    expect({
      cap: MAX_BODY_BYTES,
      status: await rawStatus(mock.url, head, '{"model":'),
      log: mock.requests.map((r) => [r.url, r.reply, r.body]),
    }).toEqual({
      cap: 32 * 1024 * 1024,
      status: "HTTP/1.1 413 Payload Too Large",
      log: [["/v1/messages", "error 413", null]],
    });
  });

  test("a body that streams past the cap is refused (413) in the protocol's error shape; the server goes on", async () => {
    await using mock = await startMockModel({ script: () => text("ok"), maxBodyBytes: 4096 });
    const big = { ...FIRST.anthropic, pad: "x".repeat(64 * 1024) };
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(JSON.stringify(big));
        for (let i = 0; i < bytes.length; i += 1024) c.enqueue(bytes.subarray(i, i + 1024));
        c.close();
      },
    });
    const over = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      body: chunked,
      duplex: "half",
    } as RequestInit);
    const refused = { status: over.status, body: await over.json() };
    const ok = await post(mock.url, "anthropic", FIRST.anthropic, { stream: false });
    expect({
      refused,
      after: ok.status,
      log: mock.requests.map((r) => [r.reply, r.body === null]),
    }).toEqual({
      refused: {
        status: 413,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "mock-model: the request body is larger than 4096 bytes",
          },
        },
      },
      after: 200,
      log: [
        ["error 413", true],
        ["text", false],
      ],
    });
  });
});

describe("scenarios", () => {
  test("parallel runs keyed by API key or session header do not collide", async () => {
    await using mock = await startMockModel({ script: [text("default")] });
    mock.scenario("sk-run-a", [text("A1"), text("A2")], "run-a");
    mock.scenario("sk-run-b", [text("B1"), text("B2")], "run-b");
    mock.scenario("sess-c", [text("C1")], "run-c");
    const call = (headers: Record<string, string>) =>
      post(mock.url, "anthropic", FIRST.anthropic, { stream: false, headers }).then(
        async (r) => ((await r.json()) as { content: Array<{ text: string }> }).content[0]?.text,
      );
    const got = await Promise.all([
      call({ "x-api-key": "sk-run-a" }),
      call({ authorization: "Bearer sk-run-b" }),
      call({ "x-claude-code-session-id": "sess-c" }),
      call({ "x-api-key": "sk-unknown" }),
    ]);
    const again = await Promise.all([call({ "x-api-key": "sk-run-b" }), call({ "x-api-key": "sk-run-a" })]);
    expect([...got, ...again]).toEqual(["A1", "B1", "C1", "default", "B2", "A2"]);
    expect(mock.requests.map((r) => r.scenario).sort()).toEqual([
      "default",
      "run-a",
      "run-a",
      "run-b",
      "run-b",
      "run-c",
    ]);
    expect(JSON.stringify(mock.requests)).not.toContain("sk-run");
  });
});

describe("refusals", () => {
  const cases = [
    {
      name: "malformed JSON",
      method: "POST",
      url: "/v1/messages",
      body: "{nope",
      status: 400,
      msg: /^mock-model: malformed JSON body: /,
    },
    {
      name: "not a Messages request",
      method: "POST",
      url: "/v1/messages",
      body: '{"model":"m"}',
      status: 400,
      msg: /^Bad Anthropic Messages request: .* at messages$/,
    },
    {
      name: "unknown path",
      method: "POST",
      url: "/v1/complete",
      body: "{}",
      status: 404,
      msg: /^mock-model: no route for POST \/v1\/complete$/,
    },
    {
      name: "count_tokens is not served",
      method: "POST",
      url: "/v1/messages/count_tokens",
      body: "{}",
      status: 404,
      msg: /no route/,
    },
    {
      name: "wrong method",
      method: "GET",
      url: "/v1/responses",
      body: undefined,
      status: 405,
      msg: /^mock-model: \/v1\/responses takes POST, not GET$/,
    },
    {
      name: "script exhausted",
      method: "POST",
      url: "/v1/responses",
      body: JSON.stringify(FIRST.responses),
      status: 500,
      msg: /^mock-model: scenario "default" has no step for request 1$/,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      await using mock = await startMockModel();
      const res = await fetch(mock.url + c.url, {
        method: c.method,
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const body = (await res.json()) as { error: { message: string } };
      expect(res.status).toBe(c.status);
      expect(body.error.message).toMatch(c.msg);
      expect(mock.requests.length).toBe(1);
    });
  }
  test("a throwing script is a 500 with its message", async () => {
    await using mock = await startMockModel({
      script: () => {
        throw new Error("boom");
      },
    });
    const res = await post(mock.url, "gemini", FIRST.gemini);
    expect([res.status, await res.json()]).toEqual([
      500,
      PROTOCOLS.gemini.errorBody(500, "mock-model: script failed: boom"),
    ]);
  });
});

function toInvoke(body: Record<string, unknown>): Record<string, unknown> {
  const { model: _m, stream: _s, ...rest } = body;
  return { ...rest, anthropic_version: "bedrock-2023-05-31" };
}

describe("Bedrock InvokeModel", () => {
  const first = toInvoke(FIRST.anthropic);
  const withResult = toInvoke(WITH_RESULT.anthropic);
  const at = (url: string, model: string, stream: boolean) =>
    `${url}/model/${encodeURIComponent(model)}/${stream ? "invoke-with-response-stream" : "invoke"}`;
  const send = (url: string, body: object, stream: boolean, signal?: AbortSignal) =>
    fetch(at(url, "anthropic.claude-opus-4-8-v1:0", stream), {
      method: "POST",
      body: JSON.stringify(body),
      headers: { authorization: "AWS4-HMAC-SHA256 Credential=AKIDSECRET/x" },
      ...(signal ? { signal } : {}),
    });
  test("tool loop over the event-stream, then text without streaming", async () => {
    await using mock = await startMockModel({ script: toolLoop([CALL], "all done", USAGE) });
    const res = await send(mock.url, first, true);
    expect(res.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bedrock.extractToolCalls(bytes)).toEqual([{ id: "toolu_mock_1", ...CALL }]);
    const final = await send(mock.url, withResult, false);
    expect(await final.json()).toEqual(
      bedrock.textResponse("all done", USAGE, { id: "msg_mock_2", model: "anthropic.claude-opus-4-8-v1:0" }),
    );
    expect(mock.requests.map((r) => [r.protocol, r.model, r.stream, r.reply, r.auth])).toEqual([
      ["bedrock", "anthropic.claude-opus-4-8-v1:0", true, "tools", "aws-sigv4"],
      ["bedrock", "anthropic.claude-opus-4-8-v1:0", false, "text", "aws-sigv4"],
    ]);
    expect(JSON.stringify(mock.requests)).not.toContain("SECRET");
  });
  test("errors carry x-amzn-errortype", async () => {
    await using mock = await startMockModel({ script: [httpError(429)] });
    const res = await send(mock.url, first, false);
    expect([res.status, res.headers.get("x-amzn-errortype"), await res.json()]).toEqual([
      429,
      "ThrottlingException",
      { message: "mock error" },
    ]);
  });
  test("stall: the first frame, then silence", async () => {
    const mock = await startMockModel({ script: [stall()] });
    const ctl = new AbortController();
    const reader = (await send(mock.url, first, true, ctl.signal)).body!.getReader();
    const chunk = (await reader.read()).value!;
    expect(bedrock.decodeFrames(chunk).length).toBe(1);
    let settled = false;
    const next = reader.read().finally(() => {
      settled = true;
    });
    await fetch(mock.url, { method: "HEAD" });
    expect(settled).toBe(false);
    ctl.abort();
    expect(
      await next.then(
        () => "data",
        () => "error",
      ),
    ).toBe("error");
    await mock.close();
    expect(mock.connections()).toBe(0);
  });
});

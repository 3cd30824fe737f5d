// The model proxy (lib/isolation/model-proxy.ts) against a capturing endpoint on 127.0.0.1: per
// protocol, whatever credential the agent sends (the placeholder, or a forged key of its own, in any
// protocol's header or query parameter) is taken off and the host's real key put on the protocol's
// way (Bedrock: re-signed with SigV4, checked by the mock model's own verifier); without a
// credential the agent's headers pass unchanged; only the endpoint's path is forwarded; replies
// stream chunk by chunk, over TLS too; an observer sees each exchange without any credential.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { startModelBridge } from "../../lib/isolation/docker/bridge.ts";
import { type Exchange, type ModelProxy, startModelProxy } from "../../lib/isolation/model-proxy.ts";
import { CREDENTIAL_HEADERS, type Credential, PLACEHOLDER_KEY } from "../../lib/wire/credential.ts";
import type { WireName } from "../../lib/wire/index.ts";
import { checkSigV4 } from "../../lib/wire/mock/_http.ts";
import { signV4 } from "../../lib/wire/sigv4.ts";
import { tempDir } from "../support/tmp.ts";

const KEY_ENV = "PROCTOR_PROXY_TEST_KEY";
const REAL = `sk-real-${crypto.randomUUID()}`;
const AWS = { accessKeyId: "AKIDHOSTREAL", secretAccessKey: `host-secret-${crypto.randomUUID()}` };
const AWS_TOKEN = `host-session-${crypto.randomUUID()}`;
const REGION = "us-east-1";

/** What the endpoint received: the request line, its credential headers and the SigV4 verdict. */
interface Received {
  method: string;
  url: string;
  host: string;
  auth: Record<string, string>;
  sigv4: "ok" | "bad";
  body: string;
}

let endpoint: { server: Server; url: string; got: Received[] };
let proxy: ModelProxy | undefined;

/** Answers every request 200 with a small JSON body, after noting what it received. */
async function capture(handler?: (req: IncomingMessage, res: ServerResponse) => void) {
  const got: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    got.push({
      method: req.method ?? "",
      url: req.url ?? "",
      host: String(req.headers.host),
      auth: Object.fromEntries(
        Object.entries(req.headers).flatMap(([k, v]) => (CREDENTIAL_HEADERS.has(k) ? [[k, String(v)]] : [])),
      ),
      sigv4: checkSigV4(req, body, { ...AWS, region: REGION }),
      body,
    });
    if (handler) return handler(req, res);
    res.writeHead(200, { "content-type": "application/json", connection: "close" }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

/** One request through the proxy (a TCP address, or a Unix socket path). */
function send(
  at: string,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
  onChunk?: (chunk: string) => void,
): Promise<{ status: number; body: string; headers: IncomingMessage["headers"] }> {
  const where = at.startsWith("http://")
    ? { host: "127.0.0.1", port: Number(new URL(at).port) }
    : { socketPath: at };
  return new Promise((resolve, reject) => {
    const req = request(
      { ...where, method: o.method ?? "POST", path: o.path, headers: o.headers ?? {} },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
          onChunk?.(c.toString());
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(o.body ?? "");
  });
}

/** The agent's own SigV4 signature over a request, with credentials that are not the host's. */
function forgedSignature(url: string, body: string): Record<string, string> {
  const signed = signV4({
    method: "POST",
    url,
    headers: { "content-type": "application/json" },
    body,
    region: REGION,
    service: "bedrock",
    credentials: { accessKeyId: "AKIDFORGED", secretAccessKey: "forged", sessionToken: "forged-token" },
    date: new Date(),
  });
  const { host: _host, ...headers } = signed.headers;
  return headers;
}

/** The credential headers an endpoint received; a SigV4 signature as who signed it and whether it checks. */
function authSeen(r: Received): Record<string, unknown> {
  const sig = r.auth.authorization ?? "";
  if (!sig.startsWith("AWS4-HMAC-SHA256 ")) return r.auth;
  return {
    signer: /Credential=([^/]+)\//.exec(sig)?.[1],
    sigv4: r.sigv4,
    token: r.auth["x-amz-security-token"] ?? null,
    keys: Object.keys(r.auth).sort(),
  };
}

/** What authSeen says of a request the host's credentials signed (with the session token or not). */
function signedByHost(kind: "sigv4" | "sigv4+token"): Record<string, unknown> {
  const token = kind === "sigv4+token";
  return {
    signer: AWS.accessKeyId,
    sigv4: "ok",
    token: token ? AWS_TOKEN : null,
    keys: ["authorization", "x-amz-date", ...(token ? ["x-amz-security-token"] : [])],
  };
}

beforeAll(async () => {
  endpoint = await capture();
});
afterAll(() => endpoint.server.close());
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  delete process.env[KEY_ENV];
});

const BODY = '{"model":"m","messages":[]}';
const json = { "content-type": "application/json" };

describe("credentials: the agent's taken off, the host's put on", () => {
  test.each<{
    name: string;
    wire: WireName;
    key: string;
    path: string;
    headers: (url: string) => Record<string, string>;
    want: { url: string; auth: Record<string, string> | "sigv4" | "sigv4+token" };
  }>([
    {
      name: "anthropic: the placeholder x-api-key becomes the real one",
      wire: "anthropic",
      key: REAL,
      path: "/v1/messages?beta=true",
      headers: () => ({ ...json, "x-api-key": PLACEHOLDER_KEY }),
      want: { url: "/v1/messages?beta=true", auth: { "x-api-key": REAL } },
    },
    {
      name: "anthropic: a forged key, Bearer token and cookie of the agent's own are all replaced",
      wire: "anthropic",
      key: REAL,
      path: "/v1/messages",
      headers: () => ({
        ...json,
        "x-api-key": "sk-ant-forged",
        authorization: "Bearer forged-token",
        cookie: "session=forged",
        "proxy-authorization": "Basic Zm9yZ2Vk",
      }),
      want: { url: "/v1/messages", auth: { "x-api-key": REAL } },
    },
    {
      name: "responses: the placeholder Bearer becomes the real one, a forged x-api-key goes",
      wire: "responses",
      key: REAL,
      path: "/v1/responses",
      headers: () => ({ ...json, authorization: `Bearer ${PLACEHOLDER_KEY}`, "x-api-key": "forged" }),
      want: { url: "/v1/responses", auth: { authorization: `Bearer ${REAL}` } },
    },
    {
      name: "gemini: the placeholder x-goog-api-key becomes the real one",
      wire: "gemini",
      key: REAL,
      path: "/v1beta/models/g:streamGenerateContent?alt=sse",
      headers: () => ({ ...json, "x-goog-api-key": PLACEHOLDER_KEY }),
      want: { url: "/v1beta/models/g:streamGenerateContent?alt=sse", auth: { "x-goog-api-key": REAL } },
    },
    {
      name: "gemini: a ?key= (and other credential parameters) leave the URL, the key goes in the header",
      wire: "gemini",
      key: REAL,
      path: "/v1beta/models/g:generateContent?key=forged&alt=sse&access_token=forged&API_KEY=forged",
      headers: () => json,
      want: { url: "/v1beta/models/g:generateContent?alt=sse", auth: { "x-goog-api-key": REAL } },
    },
    {
      name: "bedrock: the agent's SigV4 signature is replaced by the host's, signed again",
      wire: "bedrock",
      key: `${AWS.accessKeyId}:${AWS.secretAccessKey}`,
      path: "/model/m/invoke",
      headers: (url) => ({ ...json, ...forgedSignature(`${url}/model/m/invoke`, BODY) }),
      want: { url: "/model/m/invoke", auth: "sigv4" },
    },
    {
      name: "bedrock: a presigned URL's X-Amz-* parameters go, a session token is the host's",
      wire: "bedrock",
      key: `${AWS.accessKeyId}:${AWS.secretAccessKey}:${AWS_TOKEN}`,
      path: "/model/m/invoke-with-response-stream?X-Amz-Signature=f&X-Amz-Credential=AKIDFORGED",
      headers: () => ({ ...json, "x-amz-security-token": "forged-token", "x-amz-content-sha256": "0" }),
      want: { url: "/model/m/invoke-with-response-stream", auth: "sigv4+token" },
    },
    {
      name: "bedrock: an API key (no colon) goes as a Bearer token",
      wire: "bedrock",
      key: "bedrock-api-key-real",
      path: "/model/m/invoke",
      headers: () => ({ ...json, authorization: "Bearer forged" }),
      want: { url: "/model/m/invoke", auth: { authorization: "Bearer bedrock-api-key-real" } },
    },
  ])("$name", async (c) => {
    process.env[KEY_ENV] = c.key;
    const credential: Credential = {
      wire: c.wire,
      keyEnv: KEY_ENV,
      ...(c.wire === "bedrock" ? { region: REGION } : {}),
    };
    proxy = await startModelProxy({ loopback: true }, { route: { url: endpoint.url, credential } });
    const before = endpoint.got.length;
    const r = await send(proxy.address, { path: c.path, headers: c.headers(endpoint.url), body: BODY });
    const got = endpoint.got.slice(before);
    expect({
      status: r.status,
      n: got.length,
      url: got[0]?.url,
      host: got[0]?.host,
      auth: got[0] ? authSeen(got[0]) : null,
      body: got[0]?.body,
    }).toEqual({
      status: 200,
      n: 1,
      url: c.want.url,
      host: new URL(endpoint.url).host,
      auth: typeof c.want.auth === "string" ? signedByHost(c.want.auth) : c.want.auth,
      body: BODY,
    });
  });
});

describe("routing", () => {
  test.each<{
    name: string;
    route: "none" | "passthrough" | "unset key" | "under /gw";
    path: string;
    want: {
      status: number;
      forwarded: { url: string; auth: Record<string, string> } | null;
      message?: string;
    };
  }>([
    {
      name: "without a credential the agent's own headers pass unchanged (a command agent's --pass-env key)",
      route: "passthrough",
      path: "/v1/messages?key=own",
      want: { status: 200, forwarded: { url: "/v1/messages?key=own", auth: { "x-api-key": "own-key" } } },
    },
    {
      name: "the host variable unset: the agent's credential is still taken off, none put on",
      route: "unset key",
      path: "/v1/messages",
      want: { status: 200, forwarded: { url: "/v1/messages", auth: {} } },
    },
    {
      name: "a path under the endpoint's path is forwarded as asked",
      route: "under /gw",
      path: "/gw/v1/messages",
      want: { status: 200, forwarded: { url: "/gw/v1/messages", auth: { "x-api-key": REAL } } },
    },
    {
      name: "a path outside the endpoint's path is refused, nothing forwarded",
      route: "under /gw",
      path: "/gw/../admin",
      want: {
        status: 404,
        forwarded: null,
        message: "model bridge: only the model endpoint's path /gw is forwarded",
      },
    },
    {
      name: "no route (no agent phase running): 503, nothing forwarded",
      route: "none",
      path: "/v1/messages",
      want: { status: 503, forwarded: null, message: "model bridge: no agent phase is running" },
    },
  ])("$name", async (c) => {
    const credential: Credential = { wire: "anthropic", keyEnv: KEY_ENV };
    if (c.route !== "unset key") process.env[KEY_ENV] = REAL;
    const route =
      c.route === "none"
        ? undefined
        : c.route === "passthrough"
          ? { url: endpoint.url }
          : { url: c.route === "under /gw" ? `${endpoint.url}/gw` : endpoint.url, credential };
    proxy = await startModelProxy({ loopback: true }, route ? { route } : {});
    const before = endpoint.got.length;
    const r = await send(proxy.address, {
      path: c.path,
      headers: { ...json, "x-api-key": "own-key" },
      body: BODY,
    });
    const got = endpoint.got.slice(before);
    expect({
      status: r.status,
      forwarded: got[0] ? { url: got[0].url, auth: got[0].auth } : null,
      ...(r.status === 200
        ? {}
        : { message: (JSON.parse(r.body) as { error: { message: string } }).error.message }),
    }).toEqual(c.want);
  });

  test("an endpoint that cannot be reached is a 502 with one line saying so, and the observer hears why", async () => {
    const down = await capture();
    const url = down.url;
    await new Promise<void>((r) => down.server.close(() => r()));
    const seen: Exchange[] = [];
    proxy = await startModelProxy({ loopback: true }, { route: { url }, onExchange: (e) => seen.push(e) });
    const r = await send(proxy.address, { path: "/v1/messages", body: BODY });
    const message = (JSON.parse(r.body) as { error: { message: string } }).error.message;
    const why = `cannot reach the model endpoint ${new URL(url).host}: `;
    expect({
      status: r.status,
      line: message.split("\n").length,
      says: message.startsWith(`model bridge: ${why}`),
      observed: seen.map((e) => ({
        path: e.request.path,
        response: e.response ?? null,
        error: e.error?.startsWith(why),
      })),
    }).toEqual({
      status: 502,
      line: 1,
      says: true,
      observed: [{ path: "/v1/messages", response: null, error: true }],
    });
  });
});

describe("streaming and observing", () => {
  test("an SSE reply streams through the bridge's Unix socket event by event, and the observer sees the exchange without a credential", async () => {
    // The endpoint sends its second event only once the agent has read the first through the proxy.
    let firstSeen: () => void = () => {};
    const seen = new Promise<void>((r) => {
      firstSeen = r;
    });
    const sse = await capture((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: one\ndata: {}\n\n");
      seen.then(() => res.end("event: two\ndata: {}\n\n"));
    });
    using dir = tempDir("proxy-bridge");
    process.env[KEY_ENV] = REAL;
    const exchanges: Exchange[] = [];
    const bridge = await startModelBridge(dir.path, sse.url, {
      credential: { wire: "anthropic", keyEnv: KEY_ENV },
      onExchange: (e) => exchanges.push(e),
    });
    const chunks: string[] = [];
    try {
      const r = await send(
        join(bridge.dir, "model.sock"),
        { path: "/v1/messages", headers: { ...json, "x-api-key": PLACEHOLDER_KEY }, body: BODY },
        (c) => {
          chunks.push(c);
          if (c.includes("event: one")) firstSeen();
        },
      );
      expect({ status: r.status, type: r.headers["content-type"], body: r.body }).toEqual({
        status: 200,
        type: "text/event-stream",
        body: "event: one\ndata: {}\n\nevent: two\ndata: {}\n\n",
      });
    } finally {
      await bridge.close();
      sse.server.close();
    }
    const e = exchanges[0]!;
    expect({
      chunks: chunks.length >= 2,
      exchanges: exchanges.length,
      request: { method: e.request.method, path: e.request.path, body: e.request.body.toString() },
      response: { status: e.response?.status, body: e.response?.body.toString() },
      credentialSeen: [REAL, PLACEHOLDER_KEY].some((k) => JSON.stringify(e).includes(k)),
      headerNames: Object.keys(e.request.headers).filter((h) => CREDENTIAL_HEADERS.has(h)),
    }).toEqual({
      chunks: true,
      exchanges: 1,
      request: { method: "POST", path: "/v1/messages", body: BODY },
      response: { status: 200, body: "event: one\ndata: {}\n\nevent: two\ndata: {}\n\n" },
      credentialSeen: false,
      headerNames: [],
    });
  });

  test("a route's own observer sees the exchanges of that route only, beside the proxy's (each trial's meter under --local)", async () => {
    const all: string[] = [];
    const first: string[] = [];
    const second: string[] = [];
    proxy = await startModelProxy({ loopback: true }, { onExchange: (e) => all.push(e.request.path) });
    proxy.route({ url: endpoint.url, onExchange: (e) => first.push(e.request.path) });
    await send(proxy.address, { path: "/v1/messages", body: BODY });
    proxy.route({ url: endpoint.url, onExchange: (e) => second.push(e.request.path) });
    await send(proxy.address, { path: "/v1/responses", body: BODY });
    proxy.route(undefined);
    await send(proxy.address, { path: "/v1/messages", body: BODY });
    expect({ all, first, second }).toEqual({
      all: ["/v1/messages", "/v1/responses"],
      first: ["/v1/messages"],
      second: ["/v1/responses"],
    });
  });

  test("an https endpoint gets TLS from the proxy: the agent speaks plain HTTP", async () => {
    using dir = tempDir("proxy-tls");
    const [key, cert] = [join(dir.path, "key.pem"), join(dir.path, "cert.pem")];
    const made = await run([
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ]);
    expect(made.exitCode).toBe(0);
    const got: Record<string, string>[] = [];
    const tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      got.push({ url: req.url ?? "", key: String(req.headers["x-api-key"]) });
      res.writeHead(200, { "content-type": "application/json" }).end('{"tls":true}');
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", () => r()));
    process.env[KEY_ENV] = REAL;
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    try {
      proxy = await startModelProxy(
        { loopback: true },
        {
          route: { url, credential: { wire: "anthropic", keyEnv: KEY_ENV }, ca: readFileSync(cert, "utf8") },
        },
      );
      const r = await send(proxy.address, {
        path: "/v1/messages",
        headers: { "x-api-key": PLACEHOLDER_KEY },
        body: BODY,
      });
      expect({ status: r.status, body: r.body, got }).toEqual({
        status: 200,
        body: '{"tls":true}',
        got: [{ url: "/v1/messages", key: REAL }],
      });
    } finally {
      tls.close();
    }
  });
});

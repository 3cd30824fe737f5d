// The mock model server: node:http on 127.0.0.1 (port 0 unless told), speaking Anthropic Messages,
// Bedrock InvokeModel, OpenAI Responses and Gemini by path (built on lib/wire), scripted with a queue
// of steps or a function (steps.ts), per-run scenarios keyed by API key or session header, and a
// request log that keeps the auth KIND and never a secret value: every header and query parameter
// that carries a credential (lib/wire/credential.ts: by its name, in any protocol or gateway; or by
// its value: an HTTP auth scheme's, or a token shape lib/redact knows) is left out. A body over `maxBodyBytes` is refused
// (413) without being held. Tests start it directly; `proctor mock-model` (cmd.ts) serves a replies
// file with it.
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { findSecrets } from "../../redact/index.ts";
import { isCredentialHeader, withoutCredentialParams } from "../credential.ts";
import { bedrock, gemini, PROTOCOLS, protocolForPath, type Usage, type WireProtocol } from "../index.ts";
import {
  authOf,
  BodyTooLarge,
  checkSigV4,
  EVENT_STREAM,
  readBody,
  SESSION_HEADERS,
  type SigV4Check,
  sendError,
  sendJson,
} from "./_http.ts";
import type { MockProtocol, MockRequest, Script, Step, StepContext } from "./steps.ts";

const WIRES: Record<MockProtocol, WireProtocol> = {
  ...PROTOCOLS,
  // Bedrock streams binary frames (bedrock.toEventStream, used below), never SSE.
  bedrock: { ...bedrock, toSse: () => "", parseSse: () => ({}) },
};

/** Server options: default script and usage, HEAD / status, JSONL log path, router auto-answer. */
export interface MockOptions {
  script?: Script;
  usage?: Usage;
  headStatus?: number;
  logFile?: string;
  autoRouter?: boolean;
  /** Verify AWS SigV4 on every aws-sigv4 request with these credentials (bad signature: 403). */
  sigv4?: SigV4Check;
  /** The port on 127.0.0.1 (default 0: any free one). */
  port?: number;
  /** The largest request body read (default MAX_BODY_BYTES); a larger one is refused with 413. */
  maxBodyBytes?: number;
}

/** The default cap on a request body: 32 MiB, the Messages API's own request limit. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A header value that is an HTTP credential whatever the header's name (`Bearer ...`, a SigV4 signature). */
const AUTH_SCHEME = /^\s*(?:bearer|basic|token|digest|negotiate|ntlm|aws4-hmac-sha256)\s+\S/i;

/** A value that is a credential whatever carries it: an HTTP auth scheme's, or a known token shape. */
const credentialValue = (v: string): boolean => AUTH_SCHEME.test(v) || findSecrets(v).length > 0;

/** The headers to log: every one but those carrying a credential, by name or by value. */
function loggedHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([k, v]) =>
      isCredentialHeader(k) || credentialValue(String(v)) ? [] : [[k, String(v)]],
    ),
  );
}

/** The request's query as sent, without its credential parameters, by name or by value ("" when none is left). */
function loggedQuery(rawUrl: string): string {
  const at = rawUrl.indexOf("?");
  if (at < 0) return "";
  const pairs = withoutCredentialParams(rawUrl.slice(at))
    .slice(1)
    .split("&")
    .filter((p) => p !== "" && !credentialValue(decoded(p.slice(p.indexOf("=") + 1))));
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return value;
  }
}

/** A running mock model server. */
export interface MockModel extends AsyncDisposable {
  url: string;
  requests: MockRequest[];
  scenario(match: string, script: Script, label?: string): void;
  waitForRequests(n: number): Promise<MockRequest[]>;
  connections(): number;
  close(): Promise<void>;
}

/** Starts the mock on 127.0.0.1 (port 0 unless `opts.port`). */
export async function startMockModel(opts: MockOptions = {}): Promise<MockModel> {
  const requests: MockRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: (r: MockRequest[]) => void }> = [];
  const scenarios = new Map<string, { label: string; script: Script; n: number }>();
  const fallback = { label: "default", script: opts.script ?? ([] as Script), n: 0 };
  const usage = opts.usage ?? { input: 100, output: 10 };
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;

  const log = (entry: MockRequest) => {
    requests.push(entry);
    if (opts.logFile) appendFileSync(opts.logFile, `${JSON.stringify(entry)}\n`);
    for (const w of waiters.filter((w) => requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(requests.slice());
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const auth = authOf(req.headers, url);
    const session = SESSION_HEADERS.map((h) => req.headers[h]).find((v) => typeof v === "string");
    const sc =
      [auth.value, session].flatMap((k) => (k && scenarios.get(k) ? [scenarios.get(k)!] : []))[0] ?? fallback;
    const route = bedrock.routeOf(url.pathname);
    const protocol: MockProtocol | undefined = route ? "bedrock" : protocolForPath(url.pathname);
    const entry: MockRequest = {
      seq: requests.length + 1,
      method: req.method ?? "",
      url: url.pathname + loggedQuery(req.url ?? ""),
      ...(protocol ? { protocol } : {}),
      headers: loggedHeaders(req.headers),
      auth: auth.kind,
      scenario: sc.label,
      body: null,
      reply: "",
    };
    const fail = (status: number, message: string) => {
      entry.reply = `error ${status}`;
      log(entry);
      sendError(
        res,
        protocol,
        status,
        protocol ? WIRES[protocol].errorBody(status, message) : { error: { message } },
      );
    };
    let raw: string;
    try {
      raw = await readBody(req, maxBody);
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      // Read no further: the rest is discarded as it arrives, and the connection closes after it.
      res.setHeader("connection", "close");
      fail(413, `mock-model: the request body is larger than ${maxBody} bytes`);
      req.resume();
      return;
    }
    const sigv4 = opts.sigv4 && auth.kind === "aws-sigv4" ? checkSigV4(req, raw, opts.sigv4) : undefined;
    if (sigv4) entry.sigv4 = sigv4;
    if (url.pathname === "/" && (req.method === "HEAD" || req.method === "GET")) {
      entry.reply = `status ${opts.headStatus ?? 200}`;
      log(entry);
      res.writeHead(opts.headStatus ?? 200).end();
      return;
    }
    if (!protocol) return fail(404, `mock-model: no route for ${req.method} ${url.pathname}`);
    if (sigv4 === "bad") return fail(403, "mock-model: the SigV4 signature does not match");
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return fail(405, `mock-model: ${url.pathname} takes POST, not ${req.method}`);
    }
    try {
      entry.body = JSON.parse(raw);
    } catch (e) {
      return fail(400, `mock-model: malformed JSON body: ${(e as Error).message}`);
    }
    const wire = WIRES[protocol];
    let parsed: object;
    try {
      parsed = wire.parseRequest(entry.body);
    } catch (e) {
      return fail(400, (e as Error).message);
    }
    const b = entry.body as Record<string, unknown>;
    const gem = protocol === "gemini";
    const model = route?.model ?? (gem ? /models\/([^/:]+):/.exec(url.pathname)?.[1] : String(b.model));
    const stream =
      route?.stream ?? (gem ? url.pathname.endsWith(":streamGenerateContent") : b.stream === true);
    Object.assign(entry, { model, stream });
    const ids = {
      id: `${protocol === "anthropic" || protocol === "bedrock" ? "msg" : "resp"}_mock_${entry.seq}`,
      model: model ?? "mock-model",
    };
    const streamOf = (resp: object): string | Buffer =>
      protocol === "bedrock" ? Buffer.from(bedrock.toEventStream(resp as never)) : wire.toSse(resp as never);
    const head = {
      "content-type": protocol === "bedrock" ? EVENT_STREAM : "text/event-stream",
      "cache-control": "no-cache",
    };
    const reply = (resp: object) => {
      if (stream) res.writeHead(200, head).end(streamOf(resp));
      else sendJson(res, 200, resp);
    };
    if (
      protocol === "gemini" &&
      opts.autoRouter !== false &&
      gemini.responseSchema(parsed as never) !== undefined
    ) {
      entry.reply = "router";
      entry.usage = usage;
      log(entry);
      return reply(gemini.routerResponse(parsed as never, usage, ids));
    }
    const ctx: StepContext = {
      n: sc.n++,
      protocol,
      request: parsed,
      tools: wire.toolsOffered(parsed as never),
      toolResults: wire.toolResults(parsed as never),
      hasToolResult: wire.hasToolResult(parsed as never),
    };
    let step: Step | undefined;
    try {
      step = typeof sc.script === "function" ? await sc.script(entry, ctx) : sc.script[ctx.n];
    } catch (e) {
      return fail(500, `mock-model: script failed: ${(e as Error).message}`);
    }
    if (!step) return fail(500, `mock-model: scenario "${sc.label}" has no step for request ${ctx.n + 1}`);
    entry.reply = step.kind === "error" ? `error ${step.status}` : step.kind;
    if (step.kind === "text" || step.kind === "tools") entry.usage = step.usage ?? usage;
    log(entry);
    if (step.kind === "hang") return;
    if (step.kind === "error")
      return sendError(res, protocol, step.status, step.body ?? wire.errorBody(step.status, "mock error"));
    if (step.kind === "stall") {
      res.writeHead(200, head);
      const all = streamOf(wire.textResponse("", usage, ids));
      if (typeof all !== "string") res.write(all.subarray(0, all.readUInt32BE(0)));
      else if (!gem) res.write(all.slice(0, all.indexOf("\n\n") + 2));
      else res.flushHeaders();
      return;
    }
    const u = entry.usage ?? usage;
    reply(
      step.kind === "text"
        ? wire.textResponse(step.text, u, ids)
        : wire.toolCallResponse(step.calls, u, { ...ids, ...(step.text ? { text: step.text } : {}) }),
    );
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `mock-model: ${(e as Error).message}` } });
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  // A port in use is an 'error' event, not a failed callback: reject instead of an uncaught throw.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    scenario(match, script, label = `scenario-${scenarios.size + 1}`) {
      scenarios.set(match, { label, script, n: 0 });
    },
    waitForRequests(n) {
      if (requests.length >= n) return Promise.resolve(requests.slice());
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    connections: () => sockets.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}

// The one mock model server of the test suite: node:http on 127.0.0.1 port 0, speaking Anthropic
// Messages, Bedrock InvokeModel, OpenAI Responses and Gemini by path (built on lib/wire), scripted
// per test with a queue of steps or a function (text, tool calls, HTTP error, hang, stall), per-run
// scenarios keyed by API key or session header, and a request log that keeps the auth KIND and
// never a secret value. `await using mock = await startMockModel()` closes it and destroys every
// open connection.
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  bedrock,
  gemini,
  type OfferedTool,
  PROTOCOLS,
  type ProtocolName,
  protocolForPath,
  type ToolCall,
  type ToolResult,
  type Usage,
  type WireProtocol,
} from "../../lib/wire/index.ts";
import { signV4 } from "../../lib/wire/sigv4.ts";

/** The protocols the mock serves: the SSE ones and Bedrock InvokeModel (event-stream). */
export type MockProtocol = ProtocolName | "bedrock";
const WIRES: Record<MockProtocol, WireProtocol> = {
  ...PROTOCOLS,
  // Bedrock streams binary frames (bedrock.toEventStream, used below), never SSE.
  bedrock: { ...bedrock, toSse: () => "", parseSse: () => ({}) },
};

/** What the mock does for one request. */
export type Step =
  | { kind: "text"; text: string; usage?: Usage }
  | { kind: "tools"; calls: ToolCall[]; text?: string; usage?: Usage }
  | { kind: "error"; status: number; body?: unknown }
  | { kind: "hang" }
  | { kind: "stall" };

/** A step for a final text reply. */
export const text = (t: string, usage?: Usage): Step => ({
  kind: "text",
  text: t,
  ...(usage ? { usage } : {}),
});
/** A step for a reply with tool calls (optionally after some text). */
export const toolCalls = (calls: ToolCall[], o: { text?: string; usage?: Usage } = {}): Step => ({
  kind: "tools",
  calls,
  ...o,
});
/** A step answering with an HTTP error (body defaults to the protocol's error shape). */
export const httpError = (status: number, body?: unknown): Step => ({
  kind: "error",
  status,
  ...(body === undefined ? {} : { body }),
});
/** A step that never sends headers. */
export const hang = (): Step => ({ kind: "hang" });
/** A step that sends 200 + SSE headers and the first event, then nothing. */
export const stall = (): Step => ({ kind: "stall" });

/** How the client authenticated (the value itself is never recorded). */
export type AuthKind = "x-api-key" | "bearer" | "aws-sigv4" | "x-goog-api-key" | "query-key" | "none";

/** One logged request. */
export interface MockRequest {
  seq: number;
  method: string;
  url: string;
  protocol?: MockProtocol;
  headers: Record<string, string>;
  auth: AuthKind;
  scenario: string;
  body: unknown;
  model?: string;
  stream?: boolean;
  reply: string;
  /** With MockOptions.sigv4: whether the request's SigV4 signature checked out. */
  sigv4?: "ok" | "bad";
}

/** What a script function sees besides the logged request. */
export interface StepContext {
  n: number;
  protocol: MockProtocol;
  request: object;
  tools: OfferedTool[];
  toolResults: ToolResult[];
  hasToolResult: boolean;
}

/** A queue of steps, or a function choosing the step for each request. */
export type Script = Step[] | ((req: MockRequest, ctx: StepContext) => Step | Promise<Step>);

/** A script for a tool loop: tool calls until the request carries a tool result, then the final text. */
export function toolLoop(calls: ToolCall[], final = "done", usage?: Usage): Script {
  return (_req, ctx) => (ctx.hasToolResult ? text(final, usage) : toolCalls(calls, usage ? { usage } : {}));
}

/**
 * The shell-tool call each real CLI understands, by the protocol its request came on: Claude Code's
 * `Bash` (Anthropic Messages and Bedrock), Codex's `exec_command` (Responses), Gemini CLI's
 * `run_shell_command` (Gemini).
 */
export function shellCall(protocol: MockProtocol, cmd: string): ToolCall {
  if (protocol === "responses") return { name: "exec_command", args: { cmd } };
  if (protocol === "gemini") return { name: "run_shell_command", args: { command: cmd } };
  return { name: "Bash", args: { command: cmd, description: "Run the command the test scripted" } };
}

/** A script for a real CLI: run `cmd` through its shell tool, then (once a tool result came back) answer `final`. */
export function runCommand(cmd: string, final = "done", usage?: Usage): Script {
  return (_req, ctx) =>
    ctx.hasToolResult
      ? text(final, usage)
      : toolCalls([shellCall(ctx.protocol, cmd)], usage ? { usage } : {});
}

/** Server options: default script and usage, HEAD / status, JSONL log path, router auto-answer. */
export interface MockOptions {
  script?: Script;
  usage?: Usage;
  headStatus?: number;
  logFile?: string;
  autoRouter?: boolean;
  /** Verify AWS SigV4 on every aws-sigv4 request with these credentials (bad signature: 403). */
  sigv4?: { accessKeyId: string; secretAccessKey: string; region: string; service?: string };
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

const SECRET_HEADERS = new Set([
  "x-api-key",
  "authorization",
  "x-goog-api-key",
  "api-key",
  "proxy-authorization",
  "x-amz-security-token",
  "cookie",
]);
const SESSION_HEADERS = ["x-proctor-scenario", "x-claude-code-session-id", "session-id"];

function authOf(h: IncomingMessage["headers"], url: URL): { kind: AuthKind; value?: string } {
  const bearer = /^Bearer\s+(.+)$/i.exec(String(h.authorization ?? ""));
  if (typeof h["x-api-key"] === "string") return { kind: "x-api-key", value: h["x-api-key"] };
  if (bearer) return { kind: "bearer", value: bearer[1] };
  if (/^AWS4-HMAC-SHA256 /.test(String(h.authorization ?? ""))) return { kind: "aws-sigv4" };
  if (typeof h["x-goog-api-key"] === "string") return { kind: "x-goog-api-key", value: h["x-goog-api-key"] };
  const q = url.searchParams.get("key");
  return q ? { kind: "query-key", value: q } : { kind: "none" };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

const EVENT_STREAM = "application/vnd.amazon.eventstream";

function sendError(
  res: ServerResponse,
  protocol: MockProtocol | undefined,
  status: number,
  body: unknown,
): void {
  if (protocol === "bedrock") res.setHeader("x-amzn-errortype", bedrock.errorType(status));
  sendJson(res, status, body);
}

/** Recomputes a SigV4 signature over the signed headers as received; "ok" when it matches. */
function checkSigV4(
  req: IncomingMessage,
  raw: string,
  creds: NonNullable<MockOptions["sigv4"]>,
): "ok" | "bad" {
  const m =
    /Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ""),
    );
  const stamp = String(req.headers["x-amz-date"] ?? "");
  if (!m || m[1] !== creds.accessKeyId || m[3] !== creds.region || m[4] !== (creds.service ?? "bedrock"))
    return "bad";
  if (!/^\d{8}T\d{6}Z$/.test(stamp) || stamp.slice(0, 8) !== m[2]) return "bad";
  const date = new Date(
    `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`,
  );
  const signed = (m[5] ?? "").split(";");
  const headers = Object.fromEntries(
    signed.filter((h) => h !== "host" && h !== "x-amz-date").map((h) => [h, String(req.headers[h] ?? "")]),
  );
  const again = signV4({
    method: req.method ?? "POST",
    url: `http://${req.headers.host}${req.url}`,
    headers,
    body: raw,
    region: creds.region,
    service: creds.service ?? "bedrock",
    credentials: creds,
    date,
  });
  return again.headers.authorization === req.headers.authorization ? "ok" : "bad";
}

/** Starts the mock on 127.0.0.1, port 0. */
export async function startMockModel(opts: MockOptions = {}): Promise<MockModel> {
  const requests: MockRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: (r: MockRequest[]) => void }> = [];
  const scenarios = new Map<string, { label: string; script: Script; n: number }>();
  const fallback = { label: "default", script: opts.script ?? ([] as Script), n: 0 };
  const usage = opts.usage ?? { input: 100, output: 10 };

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
    if (url.searchParams.has("key")) url.searchParams.set("key", "[redacted]");
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([k, v]) => (SECRET_HEADERS.has(k) ? [] : [[k, String(v)]])),
    );
    const raw = await readBody(req);
    const sigv4 = opts.sigv4 && auth.kind === "aws-sigv4" ? checkSigV4(req, raw, opts.sigv4) : undefined;
    const route = bedrock.routeOf(url.pathname);
    const protocol: MockProtocol | undefined = route ? "bedrock" : protocolForPath(url.pathname);
    const entry: MockRequest = {
      seq: requests.length + 1,
      method: req.method ?? "",
      url: url.pathname + url.search,
      ...(protocol ? { protocol } : {}),
      headers,
      auth: auth.kind,
      scenario: sc.label,
      body: null,
      reply: "",
      ...(sigv4 ? { sigv4 } : {}),
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
    const u = step.usage ?? usage;
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
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

// The model bridge's HTTP side: a forwarding proxy from the agent's listener (a Unix socket under
// Docker, a loopback port under --local) to the variant's model endpoint, under its path, and nowhere
// else. Each request is read whole (a SigV4 signature covers the body); with a credential, whatever
// credential the agent sent is taken off (every protocol's headers and query parameters,
// lib/wire/credential.ts) and the real one put on from the host's environment by the endpoint
// protocol's `authorize`, so the agent only ever holds a placeholder. The reply streams back chunk by
// chunk (SSE stays live); an https endpoint gets TLS from here. `onExchange` sees each exchange whole
// once it ends (the seam for a meter and a transcript), never a credential. node:http, not
// lib/core/http.ts: a proxy streams, and must neither retry nor buffer a reply.
import { chmodSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { type AddressInfo, isIP, type Socket } from "node:net";
import { messageOf, ToolError } from "../core/errors.ts";
import {
  type Credential,
  signedHeaders,
  withoutCredentialHeaders,
  withoutCredentialParams,
} from "../wire/credential.ts";
import { protocol } from "../wire/index.ts";

/** Where the proxy forwards to, and how it authorises. */
export interface ProxyRoute {
  /** The model endpoint (http or https); requests go to its host, and only under its path. */
  url: string;
  /** The real credential; absent, the agent's own headers pass unchanged (a command agent's --pass-env key). */
  credential?: Credential;
  /** PEM CAs an https endpoint's certificate may chain to instead of the runtime's (a private gateway, a test). */
  ca?: string;
  /** Sees each exchange of this route (the trial's meter), besides the proxy's own observer. */
  onExchange?: (e: Exchange) => void;
}

/** One request and its reply, as forwarded, credentials left out; for an observer once it ended. */
export interface Exchange {
  request: { method: string; path: string; headers: Record<string, string>; body: Buffer };
  /** The endpoint's reply (absent when it could not be reached: see `error`). */
  response?: { status: number; headers: Record<string, string | string[]>; body: Buffer };
  /** Why the exchange did not complete (endpoint unreachable, a connection cut midway). */
  error?: string;
  ms: number;
}

/** A listening proxy. */
export interface ModelProxy {
  /** Where the agent reaches it: `http://127.0.0.1:<port>`, or the Unix socket's path. */
  address: string;
  /** Points it at an endpoint; undefined refuses every request (503) until routed again. */
  route(to: ProxyRoute | undefined): void;
  close(): Promise<void>;
}

/** Parses the model URL: http or https with a host; anything else is the caller's error. */
export function parseModelUrl(url: string): { tls: boolean; host: string; port: number; path: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ToolError(`Invalid model URL "${url}": expected http://host:port or https://host`, 1);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname)
    throw new ToolError(`Invalid model URL "${url}": expected http://host:port or https://host`, 1);
  const tls = u.protocol === "https:";
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port ? Number(u.port) : tls ? 443 : 80;
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  return { tls, host, port, path };
}

/** The model URL as an agent behind a bridge at `origin` reaches it: the endpoint's path under that origin. */
export function bridgedUrl(origin: string, modelUrl: string): string {
  return `${origin}${parseModelUrl(modelUrl).path}`;
}

/** Headers of one connection, never forwarded (RFC 9110 7.6.1), and those the proxy sets itself. */
const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

function endToEnd(h: IncomingMessage["headers"]): Record<string, string | string[]> {
  const named = String(h.connection ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase());
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined && !HOP.has(k) && !named.includes(k)) out[k] = v;
  return out;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: { type: "proctor_bridge", message: `model bridge: ${message}` } });
  res.writeHead(status, { "content-type": "application/json" }).end(body);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** The request as it goes to the endpoint: path under the endpoint's, headers with the credential swapped. */
function outbound(req: IncomingMessage, body: Buffer, to: ProxyRoute) {
  const target = parseModelUrl(to.url);
  const asked = new URL(req.url ?? "/", "http://127.0.0.1");
  // The parsed path: a dot segment cannot climb out of the endpoint's path.
  if (target.path !== "" && asked.pathname !== target.path && !asked.pathname.startsWith(`${target.path}/`))
    return undefined;
  const path = asked.pathname + (to.credential ? withoutCredentialParams(asked.search) : asked.search);
  const host = new URL(to.url).host;
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(endToEnd(req.headers))) given[k] = Array.isArray(v) ? v.join(", ") : v;
  // Plain bytes back, so an observer reads what the model said (a client that asked for gzip takes identity).
  given["accept-encoding"] = "identity";
  const seen = withoutCredentialHeaders(given);
  const headers: Record<string, string> = { ...(to.credential ? seen : given), host };
  if (body.length > 0 || !["GET", "HEAD"].includes(req.method ?? "GET"))
    headers["content-length"] = String(body.length);
  const key = to.credential ? process.env[to.credential.keyEnv] : undefined;
  if (to.credential && key) {
    const url = `${target.tls ? "https" : "http"}://${host}${path}`;
    const method = req.method ?? "GET";
    const signable = { method, url, headers: signedHeaders(headers), body };
    const region = to.credential.region;
    Object.assign(headers, protocol(to.credential.wire).authorize(signable, key, region ? { region } : {}));
  }
  return { target, path, headers, seen: { ...seen, host } };
}

/** Starts the proxy on a Unix socket (world-connectable: the container's user reaches it) or on 127.0.0.1:0. */
export async function startModelProxy(
  listen: { socket: string } | { loopback: true },
  o: { route?: ProxyRoute; onExchange?: (e: Exchange) => void } = {},
): Promise<ModelProxy> {
  let current = o.route;
  const open = new Set<Socket>();
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const to = current;
    const body = await readAll(req);
    if (!to) return refuse(res, 503, "no agent phase is running");
    let out: ReturnType<typeof outbound>;
    try {
      out = outbound(req, body, to);
    } catch (error) {
      return refuse(res, 502, messageOf(error));
    }
    if (!out)
      return refuse(res, 404, `only the model endpoint's path ${parseModelUrl(to.url).path} is forwarded`);
    const { target, path, headers, seen } = out;
    const exchange: Exchange = {
      request: { method: req.method ?? "GET", path, headers: seen, body },
      ms: 0,
    };
    const reply: Buffer[] = [];
    const watchers = [o.onExchange, to.onExchange].filter((w) => w !== undefined);
    let ended = false;
    // Once per exchange, whichever way it ends first.
    const done = (error?: string) => {
      if (ended) return;
      ended = true;
      if (watchers.length === 0) return;
      exchange.ms = performance.now() - started;
      if (exchange.response) exchange.response.body = Buffer.concat(reply);
      for (const watch of watchers) watch(error === undefined ? exchange : { ...exchange, error });
    };
    const send = target.tls ? httpsRequest : httpRequest;
    const upstream = send({
      host: target.host,
      port: target.port,
      method: req.method,
      path,
      headers: headers as OutgoingHttpHeaders,
      // SNI names a host, never an address (RFC 6066); the certificate is checked against either.
      ...(target.tls && isIP(target.host) === 0 ? { servername: target.host } : {}),
      ...(target.tls && to.ca ? { ca: to.ca } : {}),
    });
    upstream.on("response", (up) => {
      const h = endToEnd(up.headers);
      exchange.response = { status: up.statusCode ?? 502, headers: h, body: Buffer.alloc(0) };
      res.writeHead(up.statusCode ?? 502, h);
      res.flushHeaders();
      up.on("data", (c: Buffer) => {
        if (watchers.length > 0) reply.push(c);
        // Each chunk as it comes (an SSE event must not wait for the next), paced by the agent.
        if (!res.write(c)) {
          up.pause();
          res.once("drain", () => up.resume());
        }
      });
      up.on("end", () => {
        res.end();
        done();
      });
      up.on("error", (e) => {
        done(`the model endpoint's reply broke off: ${e.message}`);
        res.destroy();
      });
    });
    upstream.on("error", (e) => {
      const why = `cannot reach the model endpoint ${new URL(to.url).host}: ${e.message}`;
      done(why);
      if (res.headersSent) res.destroy();
      else refuse(res, 502, why);
    });
    // The agent hung up: the endpoint's request goes too (a generation nobody reads).
    res.on("close", () => {
      if (res.writableFinished) return;
      done("the agent closed its connection before the reply ended");
      upstream.destroy();
    });
    upstream.end(body);
  };
  const server = createServer((req, res) => {
    forward(req, res).catch((error) => {
      if (!res.headersSent) refuse(res, 502, messageOf(error));
      else res.destroy();
    });
  });
  server.on("connection", (s: Socket) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const ready = () => {
      server.off("error", reject);
      resolve();
    };
    if ("socket" in listen) server.listen(listen.socket, ready);
    else server.listen(0, "127.0.0.1", ready);
  });
  // A listener of its own never keeps the process alive; an exchange in flight does.
  server.unref();
  let address: string;
  if ("socket" in listen) {
    chmodSync(listen.socket, 0o666);
    address = listen.socket;
  } else address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    address,
    route(to) {
      current = to;
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The mock model server's HTTP plumbing: how a client authenticated (the kind, never the value kept),
// reading a body, JSON and protocol-shaped error replies, and a SigV4 check over the headers as
// received. Internal to lib/wire/mock/.
import type { IncomingMessage, ServerResponse } from "node:http";
import { bedrock } from "../index.ts";
import { signV4 } from "../sigv4.ts";
import type { AuthKind, MockProtocol } from "./steps.ts";

export const SESSION_HEADERS = ["x-proctor-scenario", "x-claude-code-session-id", "session-id"];

export function authOf(h: IncomingMessage["headers"], url: URL): { kind: AuthKind; value?: string } {
  const bearer = /^Bearer\s+(.+)$/i.exec(String(h.authorization ?? ""));
  if (typeof h["x-api-key"] === "string") return { kind: "x-api-key", value: h["x-api-key"] };
  if (bearer) return { kind: "bearer", value: bearer[1] };
  if (/^AWS4-HMAC-SHA256 /.test(String(h.authorization ?? ""))) return { kind: "aws-sigv4" };
  if (typeof h["x-goog-api-key"] === "string") return { kind: "x-goog-api-key", value: h["x-goog-api-key"] };
  const q = url.searchParams.get("key");
  return q ? { kind: "query-key", value: q } : { kind: "none" };
}

/** A request body the server will not hold: over the cap, by its Content-Length or as it streams in. */
export class BodyTooLarge extends Error {}

/**
 * The request body as text, read up to `limit` bytes: a Content-Length over it is refused before a
 * byte is read, and a body that streams past it stops being read (BodyTooLarge either way), so no
 * request holds more than `limit` bytes of memory.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export const EVENT_STREAM = "application/vnd.amazon.eventstream";

export function sendError(
  res: ServerResponse,
  protocol: MockProtocol | undefined,
  status: number,
  body: unknown,
): void {
  if (protocol === "bedrock") res.setHeader("x-amzn-errortype", bedrock.errorType(status));
  sendJson(res, status, body);
}

/** The credentials a SigV4 signature is checked against. */
export interface SigV4Check {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service?: string;
}

/** Recomputes a SigV4 signature over the signed headers as received; "ok" when it matches. */
export function checkSigV4(req: IncomingMessage, raw: string, creds: SigV4Check): "ok" | "bad" {
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

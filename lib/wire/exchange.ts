// One request a client sent a model and the model's reply, read as the model bridge forwarded them:
// which protocol it spoke (by the request's path, a gateway's prefix before it allowed), the model it
// named, the conversation it carried and what the reply said and used. The suite's meter counts
// tokens and turns from it and its transcripts show it; reading never throws: a body that is not the
// protocol's leaves its part out and says why.
import { isRecord } from "./common.ts";
import { bedrock, protocol, protocolForPath, type WireName } from "./index.ts";
import type { Reply, Said } from "./reading.ts";

/** A request to a model and its reply, read. */
export interface ModelCall {
  protocol: WireName;
  /** The model the request named: its body's `model`, or the path's (Gemini, Bedrock). */
  model?: string;
  /** The request's conversation ([] when its body is not the protocol's). */
  conversation: Said[];
  /** The reply, when it succeeded (2xx) and could be read. */
  reply?: Reply;
  /** Why a 2xx reply could not be read (a cut-off or foreign body). */
  unreadable?: string;
}

/** The protocol of a request path (query ignored), trying each suffix from a `/` so `/gw/v1/messages` is Anthropic's. */
export function protocolOfPath(path: string): WireName | undefined {
  const p = path.split("?")[0] ?? "";
  for (let at = p.indexOf("/"); at >= 0; at = p.indexOf("/", at + 1)) {
    const tail = p.slice(at);
    if (bedrock.routeOf(tail)) return "bedrock";
    const sse = protocolForPath(tail);
    if (sse) return sse;
  }
  return undefined;
}

function modelOf(name: WireName, path: string, body: Record<string, unknown>): string | undefined {
  const p = path.split("?")[0] ?? "";
  if (name === "bedrock") {
    const tail = p.slice(Math.max(0, p.lastIndexOf("/model/")));
    return bedrock.routeOf(tail)?.model;
  }
  if (name === "gemini") {
    const m = /\/models\/([^/:]+):/.exec(p)?.[1];
    return m === undefined ? undefined : decodeURIComponent(m);
  }
  return typeof body.model === "string" ? body.model : undefined;
}

/**
 * Reads one forwarded exchange; undefined when the path is no model protocol's (Claude Code's `HEAD /`,
 * a models listing). `status` undefined: no reply came (the endpoint could not be reached).
 */
export function readModelCall(
  path: string,
  requestBody: Uint8Array,
  status: number | undefined,
  responseBody: Uint8Array | undefined,
): ModelCall | undefined {
  const name = protocolOfPath(path);
  if (name === undefined) return undefined;
  const wire = protocol(name);
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(new TextDecoder().decode(requestBody)) as unknown;
    if (isRecord(parsed)) body = parsed;
  } catch {
    // not JSON: no conversation to show, the reply still counts
  }
  const model = modelOf(name, path, body);
  const call: ModelCall = { protocol: name, ...(model ? { model } : {}), conversation: [] };
  try {
    call.conversation = wire.readConversation(body);
  } catch {
    // a body of another shape: its conversation stays unread
  }
  if (status === undefined || status < 200 || status > 299 || responseBody === undefined) return call;
  try {
    call.reply = wire.readReply(responseBody);
  } catch (error) {
    call.unreadable = (error as Error).message;
  }
  return call;
}

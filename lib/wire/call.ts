// One call to a model in any protocol of the registry, non-streaming: the wire request goes out
// through lib/core/http.ts (per-attempt timeout, retries on 429 and 5xx only, errors with no
// credential in them) and the reply is read back as an Answer. Shared by step replay, the step judge
// and the suite's rubric judge, which differ only in the body they send and what they do with it.
import { HttpError, type HttpOptions, post } from "../core/http.ts";
import type { Answer, Route, WireRequest } from "./common.ts";
import { protocol, type WireName } from "./index.ts";

/** One model route (base URL, model, key, Bedrock's region) and its transport settings. */
export interface Endpoint extends Route, Pick<HttpOptions, "retries" | "backoff"> {
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Sends one request; the answer or an error line, and the latency of the last attempt (not the backoff). */
export async function callModel(
  name: WireName,
  req: WireRequest,
  ep: Endpoint,
): Promise<{ answer?: Answer; error?: string; latencyMs: number }> {
  let reply: Awaited<ReturnType<typeof post>>;
  try {
    reply = await post(
      { ...req, secrets: [ep.key] },
      {
        ...(ep.timeoutMs ? { timeoutMs: ep.timeoutMs } : {}),
        ...(ep.retries !== undefined ? { retries: ep.retries } : {}),
        ...(ep.backoff ? { backoff: ep.backoff } : {}),
        ...(ep.fetch ? { fetch: ep.fetch } : {}),
      },
    );
  } catch (error) {
    if (error instanceof HttpError) return { error: error.message, latencyMs: error.ms };
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return { error: `Reply is not JSON (HTTP ${reply.status})`, latencyMs: reply.ms };
  }
  const answer = protocol(name).answerOf(body);
  if (!answer) return { error: `Reply is not a ${name} reply`, latencyMs: reply.ms };
  return { answer, latencyMs: reply.ms };
}

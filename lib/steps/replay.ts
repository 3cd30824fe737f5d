// Step replay: each case's request sent once, non-streaming, to one model route in its own wire
// protocol, through one rewrite (the model and streaming replaced, nothing else), then graded by
// lib/steps/match.ts. The key comes from the caller (read from the --key-env variable at the edge)
// and goes only into the protocol's auth header: x-api-key (Anthropic), Bearer (OpenAI Responses),
// x-goog-api-key (Gemini), SigV4 or a Bedrock API key (Bedrock). An errored call fails its case and
// its message never carries the key. Loading the suite, the scorecard and printing live elsewhere.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, UsageError } from "../core/errors.ts";
import { type AwsCredentials, awsEscape, regionOfUrl, signV4 } from "../wire/sigv4.ts";
import { loadStepCase, type StepCase, type StepProtocol } from "./case.ts";
import { erroredGrade, gradeAnswer } from "./match.ts";
import { type Answer, answerOf } from "./replay-answer.ts";
import type { StepResult } from "./scorecard.ts";

/** One model route: base URL, model (gateway alias or upstream id), the key, and transport settings. */
export interface Endpoint {
  url: string;
  model: string;
  key: string;
  /** Bedrock only: the signing region (else from the URL host or AWS_REGION at the edge). */
  region?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
}

/** The request as it goes on the wire. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The one rewrite: `model` replaced where the body names it, streaming turned off where it is asked for. */
export function rewriteBody(
  protocol: StepProtocol,
  request: Record<string, unknown>,
  model: string,
): Record<string, unknown> {
  // Bedrock and Gemini name the model and the streaming in the URL, not the body.
  if (protocol === "bedrock" || protocol === "gemini") return request;
  return { ...request, model, ...("stream" in request ? { stream: false } : {}) };
}

function join2(base: string, tail: string, versioned: RegExp, prefix: string): string {
  const b = base.replace(/\/+$/, "");
  return versioned.test(b) ? `${b}${tail}` : `${b}${prefix}${tail}`;
}

/** The non-streaming endpoint URL of a protocol under `base` (a base ending in /v1 or /v1beta is kept). */
export function endpointUrl(protocol: StepProtocol, base: string, model: string): string {
  if (protocol === "anthropic") return join2(base, "/messages", /\/v1$/, "/v1");
  if (protocol === "responses") return join2(base, "/responses", /\/v1$/, "/v1");
  if (protocol === "gemini")
    return join2(base, `/models/${awsEscape(model)}:generateContent`, /\/v1(beta|alpha)?$/, "/v1beta");
  return `${base.replace(/\/+$/, "")}/model/${awsEscape(model)}/invoke`;
}

/** `ACCESS_KEY_ID:SECRET[:SESSION_TOKEN]` as AWS credentials; anything without a colon is a Bedrock API key. */
export function awsCredentials(key: string): AwsCredentials | undefined {
  const parts = key.split(":");
  if (parts.length < 2) return undefined;
  const [accessKeyId = "", secretAccessKey = "", ...token] = parts;
  if (!accessKeyId || !secretAccessKey)
    throw new UsageError(
      "The Bedrock key must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN] or an API key",
    );
  return { accessKeyId, secretAccessKey, ...(token.length > 0 ? { sessionToken: token.join(":") } : {}) };
}

/** Builds the wire request of a case: URL, auth header for the protocol, JSON body. */
export function buildRequest(c: Pick<StepCase, "protocol" | "request">, ep: Endpoint): WireRequest {
  const url = endpointUrl(c.protocol, ep.url, ep.model);
  const body = JSON.stringify(rewriteBody(c.protocol, c.request, ep.model));
  const json = { "content-type": "application/json", accept: "application/json" };
  if (c.protocol === "anthropic")
    return { url, body, headers: { ...json, "x-api-key": ep.key, "anthropic-version": "2023-06-01" } };
  if (c.protocol === "responses")
    return { url, body, headers: { ...json, authorization: `Bearer ${ep.key}` } };
  if (c.protocol === "gemini") return { url, body, headers: { ...json, "x-goog-api-key": ep.key } };
  const credentials = awsCredentials(ep.key);
  if (!credentials) return { url, body, headers: { ...json, authorization: `Bearer ${ep.key}` } };
  const region = ep.region ?? regionOfUrl(url);
  if (!region) throw new UsageError(`Cannot sign for Bedrock at "${ep.url}": give --region (or AWS_REGION)`);
  const date = (ep.now ?? (() => new Date()))();
  const signed = signV4({
    method: "POST",
    url,
    headers: json,
    body,
    region,
    service: "bedrock",
    credentials,
    date,
  });
  const { host: _host, ...headers } = signed.headers;
  return { url, body, headers };
}

/** Removes every occurrence of the key from a message (a gateway may echo what it was sent). */
function scrub(message: string, key: string): string {
  const parts = [key, ...key.split(":").filter((p) => p.length >= 8)];
  return parts.reduce((m, p) => (p ? m.split(p).join("[redacted]") : m), message).slice(0, 300);
}

function errorText(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof j.error === "string" ? j.error : (j.error?.message ?? j.message);
    if (typeof m === "string") return m;
  } catch {
    // not JSON: the text itself
  }
  return body.replace(/\s+/g, " ").trim();
}

/** Sends one request; the reply's answer, or an error line (HTTP status, network, not a reply). */
export async function send(
  protocol: StepProtocol,
  req: WireRequest,
  ep: Endpoint,
): Promise<{ answer?: Answer; error?: string; latencyMs: number }> {
  const started = performance.now();
  const doFetch = ep.fetch ?? fetch;
  const ms = () => Math.round(performance.now() - started);
  try {
    const res = await doFetch(req.url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(ep.timeoutMs ?? 300_000),
    });
    const text = await res.text();
    if (!res.ok) return { error: scrub(`HTTP ${res.status}: ${errorText(text)}`, ep.key), latencyMs: ms() };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { error: `Reply is not JSON (HTTP ${res.status})`, latencyMs: ms() };
    }
    const answer = answerOf(protocol, body);
    if (!answer) return { error: `Reply is not a ${protocol} reply`, latencyMs: ms() };
    return { answer, latencyMs: ms() };
  } catch (error) {
    const e = error as Error;
    const why = e.name === "TimeoutError" ? `no reply within ${ep.timeoutMs ?? 300_000} ms` : e.message;
    return { error: scrub(`Request failed: ${why}`, ep.key), latencyMs: ms() };
  }
}

/** Replays one case and grades the answer (an errored call fails the case); the answer for a judge. */
export async function replayCase(
  c: StepCase,
  ep: Endpoint,
): Promise<{ result: StepResult; answer?: Answer }> {
  const reply = await send(c.protocol, buildRequest(c, ep), ep);
  const grade = reply.answer ? gradeAnswer(c, reply.answer) : erroredGrade();
  const result: StepResult = {
    id: c.id,
    session: c.provenance.session,
    depth: c.provenance.depth,
    protocol: c.protocol,
    ...grade,
    tools: reply.answer?.calls.map((k) => k.name) ?? [],
    latencyMs: reply.latencyMs,
    ...(reply.error ? { error: reply.error } : {}),
  };
  return reply.answer ? { result, answer: reply.answer } : { result };
}

/** Loads every `*.json` case of a suite directory, in file-name order; a bad case names its file. */
export function loadSuite(dir: string): StepCase[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch (error) {
    throw new ConfigError(`Cannot read step suite "${dir}": ${(error as Error).message}`, { cause: error });
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) throw new ConfigError(`Cannot load step suite "${dir}": no *.json case files`);
  const cases = names.map((n) => loadStepCase(join(dir, n)));
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new ConfigError(`Cannot load step suite "${dir}": duplicate case id "${c.id}"`);
    seen.add(c.id);
  }
  return cases;
}

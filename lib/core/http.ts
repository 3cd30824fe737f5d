// The one HTTP client for calls to a model or a judge, on ofetch: a POST per attempt with its own
// timeout, bounded retries on 429 and 5xx with exponential backoff that honours Retry-After, and
// errors that never carry a credential (auth header values and the caller's secrets are cut out; no
// cause that holds the request is attached). Network errors and timeouts are not retried: a replay
// never was, and a generation that timed out may still be billed. The loop is ours, not ofetch's
// `retry`, because ofetch reuses an aborted timeout signal on retry (unjs/ofetch#621) and sleeps on
// its own timer; here each attempt gets a fresh timeout and the backoff is injectable.
import { createFetch } from "ofetch";
import { UpstreamError } from "./errors.ts";

/** Transport settings of one client: per-attempt timeout, retry bound, backoff, the fetch to use. */
export interface HttpOptions {
  /** Each attempt's limit in ms (default 300 000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429 and 5xx (default 2). */
  retries?: number;
  /** Ms to wait before retry `n` (1-based) given the reply's Retry-After in ms (default defaultBackoff). */
  backoff?: (retry: number, retryAfterMs: number | undefined) => number;
  /** The fetch to call (tests inject one; default the global fetch). */
  fetch?: typeof fetch;
}

/** One POST: URL, headers (auth among them) and the body text; `secrets` are also cut from errors. */
export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  secrets?: readonly string[];
}

/** A 2xx reply: status, body text, how many attempts it took and the last attempt's duration. */
export interface HttpReply {
  status: number;
  text: string;
  attempts: number;
  ms: number;
}

/** A call that got no 2xx reply: the last HTTP status (none for a network error or timeout). */
export class HttpError extends UpstreamError {
  readonly status: number | undefined;
  readonly attempts: number;
  readonly ms: number;
  constructor(message: string, o: { status?: number; attempts: number; ms: number }) {
    super(message);
    this.name = "HttpError";
    this.status = o.status;
    this.attempts = o.attempts;
    this.ms = o.ms;
  }
}

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_RETRIES = 2;
const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
/**
 * Headers whose values are credentials, lower-case: errors cut them (a scheme word such as "Bearer"
 * is kept, the rest is cut) and the mock model (lib/wire/mock) never logs them.
 */
export const AUTH_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "x-amz-security-token",
  "cookie",
]);

/** True for the statuses worth another attempt: 429 and every 5xx. */
export function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Retry-After in ms (delta seconds or an HTTP date, relative to `now`); undefined when absent or bad. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** 1 s, 2 s, 4 s ... or the server's Retry-After, never more than 60 s. */
export function defaultBackoff(retry: number, retryAfter: number | undefined): number {
  return Math.min(retryAfter ?? BASE_DELAY_MS * 2 ** (retry - 1), MAX_DELAY_MS);
}

/** The credential parts of a request: auth header values (without their scheme) and the given secrets. */
export function secretsOf(req: Pick<HttpRequest, "headers" | "secrets">): string[] {
  const fromHeaders = Object.entries(req.headers).flatMap(([k, v]) =>
    AUTH_HEADERS.has(k.toLowerCase()) ? [v.replace(/^(Bearer|Basic|Token)\s+/i, "")] : [],
  );
  const given = (req.secrets ?? []).flatMap((s) => [s, ...s.split(":").filter((p) => p.length >= 8)]);
  // Longest first, so a secret is cut whole before a part of it is looked for.
  return [...new Set([...given, ...fromHeaders])]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by [redacted]. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => t.split(s).join("[redacted]"), text);
}

/** The message a JSON error body carries (`error.message`, `error`, `message`), else the text itself. */
export function errorText(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof j.error === "string" ? j.error : (j.error?.message ?? j.message);
    if (typeof m === "string") return m;
  } catch {
    // not JSON: the text itself
  }
  return body.replace(/\s+/g, " ").trim();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends `req` as a POST; the 2xx reply, or an HttpError whose message names no credential. */
export async function post(req: HttpRequest, o: HttpOptions = {}): Promise<HttpReply> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = o.retries ?? DEFAULT_RETRIES;
  const backoff = o.backoff ?? defaultBackoff;
  const given = o.fetch;
  const $fetch = createFetch({
    fetch: given ?? (((input, init) => globalThis.fetch(input, init)) as typeof fetch),
  });
  const fail = (message: string, at: { status?: number; attempts: number; ms: number }) =>
    new HttpError(redactSecrets(message, secretsOf(req)).slice(0, 300), at);
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    let res: Awaited<ReturnType<typeof $fetch.raw<string, "text">>>;
    try {
      res = await $fetch.raw(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        timeout: timeoutMs,
        retry: false,
        ignoreResponseError: true,
        responseType: "text",
      });
    } catch (error) {
      // ofetch wraps the transport's error; its cause is the fetch failure itself.
      const e = ((error as Error).cause ?? error) as Error;
      const why = e.name === "TimeoutError" ? `no reply within ${timeoutMs} ms` : e.message;
      throw fail(`Request failed: ${why}`, { attempts: attempt, ms: ms() });
    }
    const text = typeof res._data === "string" ? res._data : "";
    if (res.status >= 200 && res.status < 300)
      return { status: res.status, text, attempts: attempt, ms: ms() };
    if (attempt > retries || !retryable(res.status))
      throw fail(`HTTP ${res.status}: ${errorText(text)}`, {
        status: res.status,
        attempts: attempt,
        ms: ms(),
      });
    const wait = backoff(attempt, retryAfterMs(res.headers.get("retry-after")));
    if (wait > 0) await sleep(wait);
  }
}

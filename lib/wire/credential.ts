// What carries a client's credential on a model request, in every protocol of the registry: the
// headers (Anthropic's x-api-key, a Bearer token, Gemini's x-goog-api-key, a SigV4 signature and its
// date and token, cookies) and the query parameters (Gemini's `?key=`, a presigned SigV4 URL's
// X-Amz-*), so the model bridge can take them all off whatever protocol the endpoint speaks; the
// credential the bridge adds instead (a protocol and the host variable holding the key, applied by
// that protocol's `authorize`); and the placeholder an agent is given in place of the key. Pure: it
// reads no environment and holds no secret.
import { AUTH_HEADERS } from "../core/http.ts";
import type { WireName } from "./index.ts";

/**
 * The key an agent CLI is given instead of the real one: obviously fake, accepted by every CLI as a
 * key, worth nothing outside the bridge, which takes it off and puts the real credential on.
 */
export const PLACEHOLDER_KEY = "proctor-placeholder-key-not-a-secret";

/** The real credential the bridge puts on each forwarded request. */
export interface Credential {
  /** The protocol the endpoint speaks: its `authorize` puts the key on. */
  wire: WireName;
  /** The host variable holding the key, read when a request is forwarded (Bedrock: ID:SECRET[:TOKEN] or an API key). */
  keyEnv: string;
  /** Bedrock SigV4 only: the signing region (default: the endpoint host's, bedrock-runtime.<region>...). */
  region?: string;
}

/** Headers that carry a credential or a signature's parts in any protocol (lower case). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  ...AUTH_HEADERS,
  "x-amz-date",
  "x-amz-content-sha256",
]);

/** Query parameters that carry a credential (lower case); every `x-amz-*` one too (a presigned URL). */
const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set([
  "key",
  "api_key",
  "api-key",
  "apikey",
  "access_token",
  "auth_token",
  "token",
]);

/** Whether a query parameter's name says it carries a credential. */
export function isCredentialParam(name: string): boolean {
  const n = name.toLowerCase();
  return CREDENTIAL_PARAMS.has(n) || n.startsWith("x-amz-");
}

/** `headers` without any credential header (names compared in lower case); the rest as given. */
export function withoutCredentialHeaders<T>(headers: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase())),
  );
}

/**
 * A URL's query (`?a=1&key=x`, or "") without its credential parameters, every other pair byte for
 * byte as sent (no re-encoding); "" when none is left.
 */
export function withoutCredentialParams(search: string): string {
  const pairs = search
    .replace(/^\?/, "")
    .split("&")
    .filter((p) => p !== "" && !isCredentialParam(paramName(p)));
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

function paramName(pair: string): string {
  const raw = pair.split("=")[0] ?? "";
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return raw;
  }
}

/**
 * The headers a re-signed request's SigV4 signature covers, of those it carries: content-type and
 * every x-amz-* one (AWS wants those signed); host and x-amz-date are added by the signer.
 */
export function signedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([k]) => {
      const n = k.toLowerCase();
      return n === "content-type" || (n.startsWith("x-amz-") && !CREDENTIAL_HEADERS.has(n));
    }),
  );
}

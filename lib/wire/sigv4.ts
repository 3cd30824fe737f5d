// AWS Signature Version 4 for Bedrock InvokeModel, on node:crypto (no AWS SDK: one POST needs one
// signature). Follows the published algorithm: canonical request (method, URI with each path segment
// escaped again for every service but S3, sorted query, lower-cased trimmed headers, payload hash),
// string to sign over the credential scope, HMAC chain from "AWS4"+secret. The secret only ever
// enters HMAC keys; it is never part of a returned value.
import { createHmac } from "node:crypto";
import { sha256Hex } from "../core/hash.ts";

/** AWS credentials as read from the --key-env variable (`ACCESS_KEY_ID:SECRET[:SESSION_TOKEN]`). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A request to sign: the headers given are all signed (plus host, x-amz-date and the token). */
export interface SignInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  region: string;
  service: string;
  credentials: AwsCredentials;
  date: Date;
  /** Escape each path segment a second time in the canonical URI (every service but S3). */
  doubleEscapePath?: boolean;
}

const sha256 = sha256Hex;
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/** RFC 3986 escaping as SigV4 wants it (unreserved characters kept, everything else %XX). */
export function awsEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20150830T123600Z` from a Date. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/** The canonical request, string to sign and the headers to send (with `authorization`). */
export function signV4(input: SignInput): {
  canonicalRequest: string;
  stringToSign: string;
  headers: Record<string, string>;
} {
  const url = new URL(input.url);
  const stamp = amzDate(input.date);
  const day = stamp.slice(0, 8);
  const headers: Record<string, string> = { ...input.headers, host: url.host, "x-amz-date": stamp };
  if (input.credentials.sessionToken) headers["x-amz-security-token"] = input.credentials.sessionToken;
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) lower.set(k.toLowerCase(), v.trim().replace(/\s+/g, " "));
  const names = [...lower.keys()].sort();
  const path =
    input.doubleEscapePath === false
      ? url.pathname
      : url.pathname
          .split("/")
          .map((seg) => awsEscape(seg))
          .join("/");
  const query = [...url.searchParams]
    .map(([k, v]) => `${awsEscape(k)}=${awsEscape(v)}`)
    .sort()
    .join("&");
  const canonicalRequest = [
    input.method.toUpperCase(),
    path || "/",
    query,
    ...names.map((n) => `${n}:${lower.get(n)}`),
    "",
    names.join(";"),
    sha256(input.body),
  ].join("\n");
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, sha256(canonicalRequest)].join("\n");
  let key = hmac(`AWS4${input.credentials.secretAccessKey}`, day);
  for (const part of [input.region, input.service, "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(stringToSign, "utf8").digest("hex");
  const authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, headers: { ...headers, authorization } };
}

/** The region of a Bedrock runtime URL (`bedrock-runtime.<region>.amazonaws.com`), if it names one. */
export function regionOfUrl(url: string): string | undefined {
  return /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(url).hostname)?.[1];
}

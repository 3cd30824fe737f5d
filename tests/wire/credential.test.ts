// Which parts of a request carry a credential in any protocol (lib/wire/credential.ts), and each
// protocol's `authorize`: the header it puts the key in, or for Bedrock a SigV4 signature over the
// request as given (or a Bearer API key). Pure: the proxy tests send these over a socket.
import { expect, test } from "bun:test";
import {
  isCredentialParam,
  signedHeaders,
  withoutCredentialHeaders,
  withoutCredentialParams,
} from "../../lib/wire/credential.ts";
import { protocol, type WireName } from "../../lib/wire/index.ts";

test.each([
  { name: "no query", search: "", want: "" },
  { name: "nothing to take", search: "?alt=sse&beta=true", want: "?alt=sse&beta=true" },
  { name: "Gemini's key", search: "?alt=sse&key=AIzaSyForged", want: "?alt=sse" },
  { name: "the only parameter", search: "?key=x", want: "" },
  { name: "any letter case", search: "?KEY=x&Api_Key=y&apikey=z&api-key=w", want: "" },
  { name: "tokens", search: "?access_token=a&auth_token=b&token=c&n=1", want: "?n=1" },
  {
    name: "a presigned SigV4 URL",
    search: "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20250101&X-Amz-Signature=ab&x=1",
    want: "?x=1",
  },
  { name: "an encoded name is read decoded", search: "?%6Bey=x&alt=sse", want: "?alt=sse" },
  {
    name: "other pairs kept byte for byte",
    search: "?q=a+b%20c&key=k&empty=&flag",
    want: "?q=a+b%20c&empty=&flag",
  },
  { name: "without the question mark", search: "key=k&alt=sse", want: "?alt=sse" },
  {
    name: "a name only like a credential",
    search: "?keys=1&monkey=2&key_id=3",
    want: "?keys=1&monkey=2&key_id=3",
  },
])("query: $name", ({ search, want }) => {
  expect(withoutCredentialParams(search)).toBe(want);
});

test("headers: every protocol's credential header goes, whatever its case; the rest stay as given", () => {
  const sent = {
    "X-Api-Key": "a",
    Authorization: "Bearer b",
    "x-goog-api-key": "c",
    "api-key": "d",
    "x-amz-security-token": "e",
    "X-Amz-Date": "20250101T000000Z",
    "x-amz-content-sha256": "f",
    cookie: "g",
    "proxy-authorization": "Basic h",
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
    "x-amz-target": "kept",
    "x-goog-api-client": "kept",
  };
  expect(withoutCredentialHeaders(sent)).toEqual({
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
    "x-amz-target": "kept",
    "x-goog-api-client": "kept",
  });
});

test("a re-signed request signs content-type and x-amz-* headers, never a credential", () => {
  expect(
    signedHeaders({
      "content-type": "application/json",
      accept: "application/json",
      "x-amz-target": "t",
      "x-amz-security-token": "forged",
      "x-amz-date": "old",
      "user-agent": "cli",
    }),
  ).toEqual({ "content-type": "application/json", "x-amz-target": "t" });
  expect(["key", "X-Amz-Signature", "alt", "model"].map(isCredentialParam)).toEqual([
    true,
    true,
    false,
    false,
  ]);
});

const REQ = {
  method: "POST",
  url: "http://127.0.0.1:1/model/m/invoke",
  headers: { "content-type": "application/json" },
  body: "{}",
};
const NOW = () => new Date("2025-01-02T03:04:05Z");

test.each<{ name: WireName; key: string; want: Record<string, string> }>([
  { name: "anthropic", key: "K", want: { "x-api-key": "K" } },
  { name: "responses", key: "K", want: { authorization: "Bearer K" } },
  { name: "gemini", key: "K", want: { "x-goog-api-key": "K" } },
  { name: "bedrock", key: "BEDROCK-API-KEY", want: { authorization: "Bearer BEDROCK-API-KEY" } },
])("authorize: $name puts the key in its own header", ({ name, key, want }) => {
  expect(protocol(name).authorize(REQ, key, { now: NOW })).toEqual(want);
});

test("authorize: bedrock signs an AWS key pair with SigV4 (token included), and needs a region", () => {
  const signed = protocol("bedrock").authorize(REQ, "AKIDX:secret:tok", { region: "eu-west-1", now: NOW });
  expect({
    keys: Object.keys(signed).sort(),
    date: signed["x-amz-date"],
    token: signed["x-amz-security-token"],
    scope:
      /Credential=AKIDX\/20250102\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/.test(
        signed.authorization ?? "",
      ),
  }).toEqual({
    keys: ["authorization", "x-amz-date", "x-amz-security-token"],
    date: "20250102T030405Z",
    token: "tok",
    scope: true,
  });
  expect(() => protocol("bedrock").authorize(REQ, "AKIDX:secret", { now: NOW })).toThrow(
    'Cannot sign for Bedrock at "http://127.0.0.1:1/model/m/invoke": give --region (or AWS_REGION)',
  );
});

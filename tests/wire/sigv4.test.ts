import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { awsCredentials } from "../../lib/wire/bedrock.ts";
import { amzDate, awsEscape, regionOfUrl, signV4 } from "../../lib/wire/sigv4.ts";

// The worked example of AWS's "Signature Calculations for the Authorization Header" (Amazon S3 API
// reference, sig-v4-header-based-auth): GET /test.txt with a Range header, example credentials.
test("AWS documentation vector: GET object from S3", () => {
  const r = signV4({
    method: "GET",
    url: "https://examplebucket.s3.amazonaws.com/test.txt",
    headers: {
      range: "bytes=0-9",
      "x-amz-content-sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    body: "",
    region: "us-east-1",
    service: "s3",
    credentials: {
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    },
    date: new Date("2013-05-24T00:00:00Z"),
    doubleEscapePath: false,
  });
  expect(r.canonicalRequest).toBe(
    [
      "GET",
      "/test.txt",
      "",
      "host:examplebucket.s3.amazonaws.com",
      "range:bytes=0-9",
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "x-amz-date:20130524T000000Z",
      "",
      "host;range;x-amz-content-sha256;x-amz-date",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ].join("\n"),
  );
  expect(r.stringToSign).toBe(
    "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972",
  );
  expect(r.headers.authorization).toBe(
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
  );
});

test("Bedrock: the path is escaped again in the canonical URI, the body hash is signed, the token sent", () => {
  const body = '{"messages":[]}';
  const r = signV4({
    method: "POST",
    url: `https://bedrock-runtime.us-west-2.amazonaws.com/model/${awsEscape("anthropic.claude-v1:0")}/invoke`,
    headers: { "content-type": "application/json" },
    body,
    region: "us-west-2",
    service: "bedrock",
    credentials: { accessKeyId: "AK", secretAccessKey: "SECRET", sessionToken: "TOKEN" },
    date: new Date("2026-11-30T04:05:06.789Z"),
  });
  expect(r.canonicalRequest.split("\n")).toEqual([
    "POST",
    "/model/anthropic.claude-v1%253A0/invoke",
    "",
    "content-type:application/json",
    "host:bedrock-runtime.us-west-2.amazonaws.com",
    "x-amz-date:20261130T040506Z",
    "x-amz-security-token:TOKEN",
    "",
    "content-type;host;x-amz-date;x-amz-security-token",
    createHash("sha256").update(body).digest("hex"),
  ]);
  expect(r.headers["x-amz-security-token"]).toBe("TOKEN");
  expect(JSON.stringify(r)).not.toContain("SECRET");
});

test("header values are trimmed and inner spaces folded; names lower-cased", () => {
  const r = signV4({
    method: "POST",
    url: "https://h.example/",
    headers: { "X-Custom": "  a   b  " },
    body: "",
    region: "r",
    service: "s",
    credentials: { accessKeyId: "a", secretAccessKey: "b" },
    date: new Date(0),
  });
  expect(r.canonicalRequest.split("\n").slice(3, 6)).toEqual([
    "host:h.example",
    "x-amz-date:19700101T000000Z",
    "x-custom:a b",
  ]);
});

test.each([
  { key: "AKID:SECRET", creds: { accessKeyId: "AKID", secretAccessKey: "SECRET" } },
  {
    key: "AKID:SECRET:TOK:EN",
    creds: { accessKeyId: "AKID", secretAccessKey: "SECRET", sessionToken: "TOK:EN" },
  },
  { key: "bedrock-api-key", creds: undefined },
])("awsCredentials($key)", ({ key, creds }) => {
  expect(awsCredentials(key)).toEqual(creds);
});

test.each([":SECRET", "AKID:"])("awsCredentials refuses %p", (key) => {
  expect(() => awsCredentials(key)).toThrow(
    "The Bedrock key must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN] or an API key",
  );
});

test("helpers: amzDate, awsEscape, regionOfUrl", () => {
  expect(amzDate(new Date("2015-08-30T12:36:00Z"))).toBe("20150830T123600Z");
  expect(awsEscape("a b*(')!~:/")).toBe("a%20b%2A%28%27%29%21~%3A%2F");
  expect(regionOfUrl("https://bedrock-runtime.eu-central-1.amazonaws.com")).toBe("eu-central-1");
  expect(regionOfUrl("https://gateway.example.com")).toBeUndefined();
});

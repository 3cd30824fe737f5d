// The client side of the protocol registry: the endpoint URL under a base, the one rewrite (model and
// streaming only), the auth header each protocol sends, and the judge's request shape. Step replay and
// the judge reach all of it through `protocol(name)`, never by switching on the name.
import { expect, test } from "bun:test";
import { protocol, WIRE_NAMES, type WireName } from "../../lib/wire/index.ts";

test("the registry has all four protocols, in the step case schema's order", () => {
  expect(WIRE_NAMES).toEqual(["anthropic", "bedrock", "responses", "gemini"]);
  expect(WIRE_NAMES.map((n) => typeof protocol(n).buildRequest)).toEqual([
    "function",
    "function",
    "function",
    "function",
  ]);
});

test.each([
  { name: "anthropic", body: { model: "a", stream: true, x: 1 }, want: { model: "b", stream: false, x: 1 } },
  { name: "responses", body: { model: "a", x: 1 }, want: { model: "b", x: 1 } },
  { name: "gemini", body: { contents: [] }, want: { contents: [] } },
  { name: "bedrock", body: { messages: [], stream: true }, want: { messages: [], stream: true } },
] as const)("the rewrite of $name replaces model and streaming only", ({ name, body, want }) => {
  expect(protocol(name).rewriteBody({ ...body }, "b")).toEqual(want);
});

test.each([
  { name: "anthropic", base: "https://gw.example/v1/", url: "https://gw.example/v1/messages" },
  { name: "anthropic", base: "https://gw.example", url: "https://gw.example/v1/messages" },
  { name: "responses", base: "https://api.openai.com/v1", url: "https://api.openai.com/v1/responses" },
  {
    name: "gemini",
    base: "https://generativelanguage.googleapis.com",
    url: "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
  },
  {
    name: "bedrock",
    base: "https://bedrock-runtime.eu-west-1.amazonaws.com",
    url: "https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/invoke",
  },
] as const)("endpoint URL: $name at $base", ({ name, base, url }) => {
  expect(protocol(name).endpointUrl(base, "m")).toBe(url);
});

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };
test.each<{ name: WireName; key: string; auth: Record<string, string> }>([
  { name: "anthropic", key: "K", auth: { "x-api-key": "K", "anthropic-version": "2023-06-01" } },
  { name: "responses", key: "K", auth: { authorization: "Bearer K" } },
  { name: "gemini", key: "K", auth: { "x-goog-api-key": "K" } },
  { name: "bedrock", key: "BEDROCK-API-KEY", auth: { authorization: "Bearer BEDROCK-API-KEY" } },
])("the $name request carries the key in its own header", ({ name, key, auth }) => {
  const r = protocol(name).buildRequest({ model: "x" }, { url: "http://127.0.0.1:1", model: "m", key });
  expect(r.headers).toEqual({ ...JSON_HEADERS, ...auth });
});

test.each<{ name: WireName; want: Record<string, unknown> }>([
  { name: "anthropic", want: { model: "j", max_tokens: 1024, messages: [{ role: "user", content: "P" }] } },
  {
    name: "bedrock",
    want: {
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 1024,
      messages: [{ role: "user", content: "P" }],
    },
  },
  { name: "responses", want: { model: "j", input: "P" } },
  { name: "gemini", want: { contents: [{ role: "user", parts: [{ text: "P" }] }] } },
])("the judge's $name request is one user turn, no tools", ({ name, want }) => {
  expect(protocol(name).judgeRequest("j", "P")).toEqual(want);
});

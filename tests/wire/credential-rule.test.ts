// The rule lib/wire/credential.ts applies to a header's or a query parameter's name (issue 27): a
// credential word anywhere in it, or a last word naming a key or a password, in any case and any
// spelling (dashes, underscores, dots, camelCase). Gateways' own headers are caught without a list.
import { expect, test } from "bun:test";
import { isCredentialHeader, isCredentialParam } from "../../lib/wire/credential.ts";

test.each([
  // the registry's own
  { name: "x-api-key", credential: true },
  { name: "Authorization", credential: true },
  { name: "x-goog-api-key", credential: true },
  { name: "x-amz-security-token", credential: true },
  { name: "X-Amz-Date", credential: true },
  // gateways and proxies
  { name: "x-portkey-api-key", credential: true },
  { name: "x-portkey-virtual-key", credential: true },
  { name: "Helicone-Auth", credential: true },
  { name: "cf-aig-authorization", credential: true },
  { name: "x-litellm-api-key", credential: true },
  { name: "Ocp-Apim-Subscription-Key", credential: true },
  { name: "x-auth-token", credential: true },
  { name: "x-goog-iap-jwt-assertion", credential: true },
  { name: "private-token", credential: true },
  { name: "x-functions-key", credential: true },
  { name: "set-cookie", credential: true },
  { name: "XApiKey", credential: true },
  // not credentials
  { name: "content-type", credential: false },
  { name: "anthropic-version", credential: false },
  { name: "x-goog-api-client", credential: false },
  { name: "x-amz-target", credential: false },
  { name: "x-claude-code-session-id", credential: false },
  { name: "idempotency-key", credential: false },
  { name: "x-api-key-id", credential: false },
])("header $name: $credential", ({ name, credential }) => {
  expect(isCredentialHeader(name)).toBe(credential);
});

test.each([
  { name: "key", credential: true },
  { name: "api_key", credential: true },
  { name: "apiKey", credential: true },
  { name: "access_token", credential: true },
  { name: "refresh_token", credential: true },
  { name: "client_secret", credential: true },
  { name: "password", credential: true },
  { name: "db_pass", credential: true },
  { name: "pw", credential: true },
  { name: "sig", credential: true },
  { name: "X-Goog-Signature", credential: true },
  { name: "X-Amz-Credential", credential: true },
  { name: "auth", credential: true },
  { name: "alt", credential: false },
  { name: "keys", credential: false },
  { name: "key_id", credential: false },
  { name: "monkey", credential: false },
  { name: "passthrough", credential: false },
  { name: "model", credential: false },
])("query parameter $name: $credential", ({ name, credential }) => {
  expect(isCredentialParam(name)).toBe(credential);
});

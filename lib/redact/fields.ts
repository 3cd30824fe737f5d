// Where a value sits in a request, for the two rules that depend on it: which field names hold a
// secret whatever the value looks like (any depth, any case: `db_password`, `apiKey`, `auth_token`),
// and which exact provider-id paths are exempt from the entropy rule (so the request replays). The
// exemption is by path, not by key: an `id` or `signature` inside tool arguments is data like any other.
// A name/value pair's value is a secret when its name is (pairedSecret).
import { isCredentialParam } from "../wire/credential-name.ts";

/** A position in a request (or a harvested case) that the two rules care about; "value" is any other. */
export type Where =
  | "case"
  | "request"
  | "messages"
  | "message"
  | "blocks"
  | "block"
  | "items"
  | "item"
  | "contents"
  | "content"
  | "parts"
  | "part"
  | "call"
  | "value";

/** Keys exempt from the entropy rule at some provider-id path (their union; see exemptAt). */
export const ENTROPY_EXEMPT_KEYS: ReadonlySet<string> = new Set([
  "id",
  "tool_use_id",
  "call_id",
  "signature",
  "thoughtSignature",
  "thought_signature",
  "encrypted_content",
  "previous_response_id",
  "data",
]);

// The exempt paths:
//   Anthropic / Bedrock  messages[].content[].{id, tool_use_id, signature} (+ `data` of redacted_thinking),
//                        also in a tool_result's nested content blocks
//   OpenAI Responses     input[].{id, call_id, encrypted_content}, previous_response_id
//   Gemini               contents[].parts[].{thoughtSignature, thought_signature, functionCall.id, functionResponse.id}
const EXEMPT: Partial<Record<Where, ReadonlySet<string>>> = {
  case: new Set(["id"]),
  request: new Set(["previous_response_id"]),
  block: new Set(["id", "tool_use_id", "signature"]),
  item: new Set(["id", "call_id", "encrypted_content"]),
  part: new Set(["thoughtSignature", "thought_signature"]),
  call: new Set(["id"]),
};

/** True when the string under `key` of an object at `where` is a provider id, signature or encrypted reasoning. */
export function exemptAt(where: Where, key: string, parent: unknown): boolean {
  if (EXEMPT[where]?.has(key)) return true;
  // Anthropic's redacted_thinking block carries its encrypted reasoning in `data`.
  return where === "block" && key === "data" && (parent as { type?: unknown }).type === "redacted_thinking";
}

const CHILD: Partial<Record<Where, Readonly<Record<string, Where>>>> = {
  case: { request: "request" },
  request: { messages: "messages", input: "items", contents: "contents" },
  message: { content: "blocks" },
  block: { content: "blocks" },
  content: { parts: "parts" },
  part: { functionCall: "call", functionResponse: "call" },
};
const ITEM: Partial<Record<Where, Where>> = {
  messages: "message",
  blocks: "block",
  items: "item",
  contents: "content",
  parts: "part",
};

/** Where the value under `key` of an object at `where` sits. */
export function childAt(where: Where, key: string): Where {
  const next = CHILD[where];
  return (next && Object.hasOwn(next, key) ? next[key] : undefined) ?? "value";
}

/** Where the items of an array at `where` sit. */
export function itemAt(where: Where): Where {
  return ITEM[where] ?? "value";
}

const SECRET_NAME =
  /(?:pass(?:word|wd|phrase)s?|secrets?|token|credentials?|authorization|cookies?|(?:api|access|secret|private|signing|encryption|master|account|auth|client|service|db|database|priv)key|(?<!by|com|sur|tres|over|under|multi|en)pass|pw|creds|contrase(?:ñ|n)a)$/;

// Field names repeat across a store (role, type, text...): each is judged once per process, up to a
// bound so a store of ever-new names cannot grow it without end.
const SECRET_NAME_MEMO_MAX = 4096;
const secretNameMemo = new Map<string, boolean>();

const NAME_KEYS = ["name", "Name", "key", "Key"] as const;
const VALUE_KEY = /^value$/i;

/**
 * True when `key` of `obj` is the value of a secret-named name/value pair (a Kubernetes env entry
 * `{"name": "DB_PASSWORD", "value": ...}`, a HAR header `{"name": "X-Auth-Token", "value": ...}`,
 * a tag `{"Key": "ApiKey", "Value": ...}`), or of any pair under a secret-named list (HAR `cookies`).
 */
export function pairedSecret(obj: object, key: string, underSecret: boolean): boolean {
  if (!VALUE_KEY.test(key)) return false;
  if (underSecret) return true;
  for (const k of NAME_KEYS) {
    const name = (obj as Record<string, unknown>)[k];
    if (typeof name === "string") return isSecretName(name) || isCredentialParam(name);
  }
  return false;
}

/** True for a field name whose value is a credential whatever it looks like (`{"db_password": 1234}`). */
export function isSecretName(key: string): boolean {
  let secret = secretNameMemo.get(key);
  if (secret === undefined) {
    const k = key.toLowerCase().replace(/[^a-z0-9]/g, "");
    secret = k === "auth" || SECRET_NAME.test(k);
    if (secretNameMemo.size >= SECRET_NAME_MEMO_MAX) secretNameMemo.clear();
    secretNameMemo.set(key, secret);
  }
  return secret;
}

/** A JSON object or array held in a string (tool-call arguments, tool results), or undefined. */
export function embeddedJson(s: string): unknown {
  const t = s.trim();
  const first = t[0];
  const last = t[t.length - 1];
  if (!((first === "{" && last === "}") || (first === "[" && last === "]"))) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

// The rule on a header's or query parameter's name that says it carries a credential, in any
// protocol or gateway: what lib/wire/credential.ts (the model bridge, the mock model's log) and
// lib/redact (credential-named URL parameters) both apply. The name is split into words (`-`, `_`,
// `.`, camelCase): a word that names a credential anywhere in it (x-auth-user,
// x-goog-iap-jwt-assertion), or a last word that names a key or a password (x-portkey-virtual-key,
// db_pass; key_id and keys are not). A list of names would miss the next gateway's header. It imports
// nothing, so the gh shim's redaction can use it without loading an HTTP client.
const CREDENTIAL_WORD =
  /^(?:auth|authn|authz|authorization|authentication|token|secret|password|passwd|passphrase|pwd|credentials?|creds|cookie|jwt|apikey|signature|bearer)$/;
const CREDENTIAL_LAST = /^(?:key|pass|pw|sig)$/;
/** Names whose last word is "key" without naming a credential. */
const NOT_CREDENTIAL: ReadonlySet<string> = new Set(["idempotency-key"]);

/** The lower-case words of a name: `X-Portkey-API-Key` and `xPortkeyApiKey` alike. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/** Whether a header's or parameter's name says it carries a credential (the rule above). */
export function namesCredential(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0 || NOT_CREDENTIAL.has(words.join("-"))) return false;
  return (
    words.some((w) => CREDENTIAL_WORD.test(w)) || CREDENTIAL_LAST.test(words[words.length - 1] as string)
  );
}

/** Whether a query parameter's name says it carries a credential; every `x-amz-*` one too (a presigned URL). */
export function isCredentialParam(name: string): boolean {
  return name.toLowerCase().startsWith("x-amz-") || namesCredential(name);
}

// The credential shapes, written for this project after the shapes of maintained rule sets (gitleaks,
// detect-secrets; tests/fixtures/redact/coverage.json maps their categories to these rules): vendor
// tokens with a fixed prefix, private keys, JWTs, HTTP credentials (Authorization, Cookie, Set-Cookie,
// curl -u, URL user:password), secret-named assignments in env, YAML, JSON, INI, URL-query and
// command-line form, in any letter case, and credential-named URL query parameters (the model bridge's
// rule, lib/wire/credential.ts). Values that are secrets by their place in a file format or a command
// line are lib/redact/forms.ts. The e-mail and entropy rules are strict-only (lib/redact/strict.ts):
// gh output legitimately carries e-mail addresses and SHAs.
import { isCredentialParam } from "../wire/credential-name.ts";

/** One kind of credential and how to recognise it. */
export interface Detector {
  /** Stable name used in findings and in the `[REDACTED:<name>]` marker. */
  name: string;
  /** Global pattern; when it has a `secret` group only that part is the credential. */
  pattern: RegExp;
  /** A further test of a match the pattern alone cannot make (a parameter's name by a rule). */
  accept?: (match: RegExpMatchArray) => boolean;
  /** A cheap test a text must pass for the pattern to be run on it at all (the literals it needs). */
  hint?: (text: string) => boolean;
}

// A name that ends in one of these (any case, `_`, `-` or `.` between words) names a secret
// (Authorization and Cookie have their own rules, which keep the scheme).
const SECRET_WORDS =
  "pass(?:word|wd|phrase)|pwd|secret|token|credentials?|(?:api|access|secret|private|signing|encryption|master|account|auth|client|service|db|database|priv)[_.-]?key|(?<!by|com|sur|tres|over|under|multi|en)pass|pw|auth|creds|contrase(?:ñ|n)a";
/** SECRET_WORDS and the two names whose values are credentials in a header or pair (lib/redact/forms.ts). */
export const NAME_WORDS = `${SECRET_WORDS}|authorization|cookie`;
// Every repetition before a literal is bounded, so no pattern is quadratic on a long run of
// name characters (a 1 MB tool result must not stall the harvest).
// The value: double-quoted (also inside an escaped JSON string), single-quoted, or a bare word.
export const VALUE =
  '(?:\\\\*"(?<secret>(?:[^"\\\\\\r\\n]|\\\\[^"\\r\\n])+)\\\\*"|\'(?<secret2>[^\'\\r\\n]+)\'|(?<secret3>[^\\s"\'&;,]{3,}))';
const UPPER_NAMES =
  "PASSWORD|PASSWD|PASSPHRASE|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?";

/** Vendor tokens: a fixed prefix and a body, most specific first. */
export const VENDOR: readonly Detector[] = [
  {
    name: "private-key",
    pattern:
      /-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
  },
  { name: "github-token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,251}\b/g },
  { name: "github-pat", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,244}\b/g },
  {
    name: "gitlab-token",
    pattern:
      /\b(?:gl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|oas|ffct|ft)-[0-9A-Za-z_-]{20,}|GR1348941[0-9A-Za-z_-]{20,})/g,
  },
  { name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: "slack-token", pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g },
  {
    name: "slack-webhook",
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{20,}/g,
  },
  { name: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  { name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: "google-oauth", pattern: /\b(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{20,})/g },
  {
    name: "stripe-key",
    pattern: /\b(?:(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[A-Za-z0-9]{24,})/g,
  },
  { name: "twilio-key", pattern: /\bSK[0-9a-fA-F]{32}\b/g },
  { name: "sendgrid-key", pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}/g },
  { name: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: "pypi-token", pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { name: "huggingface-token", pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { name: "azure-ad-secret", pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}/g },
  { name: "azure-sas", pattern: /[?&]sig=(?<secret>[A-Za-z0-9%+/=]{16,})/g },
  {
    name: "vendor-token",
    pattern:
      /\b(?:dapi[a-f0-9]{32}|do[opr]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|hv[sbr]\.[A-Za-z0-9_-]{24,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|lin_api_[A-Za-z0-9]{40}|gl(?:c|sa)_[A-Za-z0-9_+/=-]{32,}|ATATT3[A-Za-z0-9_=-]{50,}|key-[0-9a-z]{32}|dp\.pt\.[A-Za-z0-9]{40,}|NRAK-[A-Z0-9]{27}|sntrys_[A-Za-z0-9+/=_]{50,}|AGE-SECRET-KEY-1[0-9A-Z]{58}|\d{8,10}:AA[A-Za-z0-9_-]{33})/g,
  },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // JFrog Artifactory API keys and reference tokens, Discord bot tokens, Mailchimp keys, Square tokens.
  { name: "artifactory-token", pattern: /\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b/g },
  {
    name: "discord-bot-token",
    pattern: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/g,
  },
  { name: "mailchimp-key", pattern: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g },
  {
    name: "square-token",
    pattern: /\b(?:sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60})\b/g,
  },
];

/** HTTP and command-line credentials, and secret-named assignments. */
export const GENERIC: readonly Detector[] = [
  {
    name: "http-auth",
    pattern:
      /\b(?:proxy-)?authorization\\*["']?[ \t]*[:=][ \t]*\\*["']?(?:(?:bearer|basic|token|digest|negotiate|ntlm|hoba|mutual|vapid|aws4-hmac-sha256)[ \t]+)?(?<secret>[^\s"'\\][^\r\n"'\\]*)/gi,
  },
  {
    name: "cookie",
    pattern: /\b(?:set-)?cookie\\*["']?[ \t]*[:=][ \t]*\\*["']?(?<secret>[^\s"'\\][^\r\n"'\\]*)/gi,
  },
  { name: "bearer-token", pattern: /\bBearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g },
  { name: "basic-auth", pattern: /\bBasic[ \t]+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/g },
  {
    name: "curl-user",
    pattern: /(?:^|[\s"'`])(?:-u[ \t]*|--user[ \t=]+)["']?(?<secret>[^\s"':@]*:[^\s"']+)/g,
  },
  {
    name: "url-credentials",
    pattern: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@"'<>]{0,256}:(?<secret>[^\s@/"'<>]+)@/gi,
  },
  {
    name: "assignment",
    pattern: new RegExp(
      `(?<![A-Za-z0-9])[\\w.-]{0,64}?(?:${SECRET_WORDS})\\\\*["']?[ \\t]*(?:=>|:=|[:=])[ \\t]*${VALUE}`,
      "gi",
    ),
  },
  {
    name: "flag-assignment",
    pattern: new RegExp(`(?<![\\w-])--?[\\w.-]{0,64}?(?:${SECRET_WORDS})[ \\t]+(?!-)${VALUE}`, "gi"),
  },
  {
    name: "env-assignment",
    pattern: new RegExp(
      `\\b[A-Z0-9_]{0,64}(?:${UPPER_NAMES})[A-Z0-9_]{0,64}[ \\t]*[=:][ \\t]*(?<q>["']?)(?<secret>[^\\s"'&;,]{4,})\\k<q>`,
      "g",
    ),
  },
  {
    // ?key=, &pw=, ;sig=, ?X-Amz-Signature=: a parameter whose name says it is a credential
    name: "url-param",
    hint: (t) => t.includes("=") && (t.includes("?") || t.includes("&") || t.includes(";")),
    pattern: /[?&;](?<name>[A-Za-z0-9_.%[\]-]{1,64})=(?<secret>[^&#;\s"'<>\\]{1,})/g,
    accept: (m) => isCredentialParam(decodeName(m.groups?.name ?? "")),
  },
];

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Literals one of which every built-in rule needs (`@`: the strict e-mail rule); without any, they are skipped. */
export const HINTS =
  /-----begin|gh[pousr]_|github_pat_|gl[a-z]+-|gr1348941|sk-|xox|xapp-|hooks\.slack|akia|asia|abia|acca|a3t|aiza|gocspx-|ya29\.|_live_|_test_|whsec_|sk[0-9a-f]{32}|sg\.|npm_|pypi-|hf_|q~|sig=|dapi|_v1_|shp|hv[sbr]\.|pmak-|lin_api_|glc_|glsa_|atatt3|key-|dp\.pt|nrak-|sntrys_|age-secret|:aa|eyj|authorization|cookie|bearer|basic|-u|--user|:\/\/|pass|pwd|pw|secret|token|credential|creds|key|contrase|akcp|cmvmd|sq0|eaaa|-us\d|\.[a-z0-9_-]{6}\.|[?&;][\w.%[\]-]{1,64}=|auth|sig|jwt|identified|mysql|mariadb|redis-cli|ssh-keygen|login|sqlcmd|bcp|sql|zip|7z|mongo|smb|ldap|useradd|usermod|net user|lftp|rdp|rdesktop|\/p:|sqlplus|chpasswd|@/i;

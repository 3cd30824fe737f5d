// The secret that hashes session ids into case provenance. A raw session id never reaches a case; a
// keyed hash does, so cases of one session cluster (the scorecard resamples sessions) and two harvests
// of one store cluster together as long as they use the same key. The key is --session-key-file when
// given (32 bytes, standard base64, like a pair key), else derived with HKDF-SHA256 from the first
// --pair-key-file (so the pair key's holders, and only they, get the same hashes).
import { Buffer } from "node:buffer";
import { createHmac, hkdfSync } from "node:crypto";
import { sha256Hex } from "../core/hash.ts";
import { keyId, type PairKey } from "./pairs/index.ts";

/** The HKDF salt and info of the derived session key; changing either re-keys every hash. */
export const SESSION_KEY_SALT = "proctor/eval-steps/session-hash";
export const SESSION_KEY_INFO = "v1";

/** A session-hashing key and its id (hex of the first 8 bytes of its SHA-256). */
export interface SessionKey {
  kid: string;
  key: Buffer;
}

/** The session key derived from a pair key. */
export function deriveSessionKey(pairKey: PairKey): SessionKey {
  const key = Buffer.from(hkdfSync("sha256", pairKey.key, SESSION_KEY_SALT, SESSION_KEY_INFO, 32));
  return { kid: keyId(key), key };
}

/** `hmac-sha256:<kid>:<hex HMAC of the session id>`, the form case provenance stores. */
export function hashSession(k: SessionKey, sessionId: string): string {
  return `hmac-sha256:${k.kid}:${createHmac("sha256", k.key).update(sessionId, "utf8").digest("hex")}`;
}

/** A short stable digest (hex) of any text: case file names for ids that are not file-safe. */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

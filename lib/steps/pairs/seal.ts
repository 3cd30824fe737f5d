// Sealed pair-store rows, byte-compatible with halo-shadow: a key is 32 raw bytes stored base64 in a
// key file; a sealed row's `enc` is base64(nonce(12) || AES-256-GCM ciphertext || tag(16)) of the
// plaintext pair JSON with AAD = the row id; `kid` = hex of the first 8 bytes of SHA-256(key). Several
// keys may be loaded at once (current and retired): a row picks its key by kid.
import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { accessProblem, readRegular } from "../../core/confined.ts";
import { ConfigError } from "../../core/errors.ts";
import { sha256Bytes } from "../../core/hash.ts";

/** One loaded pair key and its id. */
export interface PairKey {
  kid: string;
  key: Buffer;
}

/** The key id of a 32-byte key: hex(sha256(key)[:8]), 16 hex characters. */
export function keyId(key: Uint8Array): string {
  return sha256Bytes(key).subarray(0, 8).toString("hex");
}

/** Decodes key-file text (std base64, surrounding whitespace trimmed) into a key; `where` names it. */
export function parsePairKey(text: string, where: string): PairKey {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, "base64");
  // Buffer.from silently drops bad characters: re-encoding must give the text back.
  if (key.length !== 32 || key.toString("base64") !== trimmed)
    throw new ConfigError(`Cannot load pair key "${where}": expected 32 bytes in standard base64`);
  return { kid: keyId(key), key };
}

/** Reads one key file (regular files only, 64 KiB at most); never echoes its contents in an error. */
export function loadPairKey(
  path: string,
  read: (path: string, maxBytes: number) => Uint8Array = (p, maxBytes) =>
    readRegular(p, { follow: true, maxBytes }),
): PairKey {
  let text: string;
  try {
    text = Buffer.from(read(path, 64 << 10)).toString("utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read pair key "${path}": ${accessProblem(error)}`, { cause: error });
  }
  return parsePairKey(text, path);
}

/** The keys by kid (a repeated key is loaded once). */
export function keyRing(keys: readonly PairKey[]): Map<string, PairKey[]> {
  const ring = new Map<string, PairKey[]>();
  for (const k of keys) {
    const list = ring.get(k.kid) ?? [];
    if (!list.some((o) => o.key.equals(k.key))) list.push(k);
    ring.set(k.kid, list);
  }
  return ring;
}

/** Seals plaintext pair JSON for row `id` (used by tests, the bench and any re-sealing tool). */
export function seal(
  plaintext: string,
  id: string,
  key: PairKey,
  nonce: Uint8Array = randomBytes(12),
): string {
  const cipher = createCipheriv("aes-256-gcm", key.key, nonce);
  cipher.setAAD(Buffer.from(id, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([nonce, body]).toString("base64");
}

/** Opens a sealed row's `enc`; throws an Error whose message is the original's wording. */
export function unseal(enc: string, id: string, kid: string, ring: Map<string, PairKey[]>): string {
  const keys = ring.get(kid);
  if (!keys) throw new Error(`no key for kid ${JSON.stringify(kid)}`);
  const raw = Buffer.from(enc, "base64");
  if (raw.length < 12 + 16) throw new Error("short ciphertext");
  const nonce = raw.subarray(0, 12);
  const tag = raw.subarray(raw.length - 16);
  const body = raw.subarray(12, raw.length - 16);
  for (const { key } of keys) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, nonce);
      decipher.setAAD(Buffer.from(id, "utf8"));
      decipher.setAuthTag(tag);
      const head = decipher.update(body);
      const tail = decipher.final(); // empty for GCM: no second copy of the plaintext
      return (tail.length === 0 ? head : Buffer.concat([head, tail])).toString("utf8");
    } catch {
      // a retired key with a colliding kid: try the next one
    }
  }
  throw new Error("decrypt: message authentication failed");
}

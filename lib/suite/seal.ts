// The integrity seal of a shard's trials file (`agent-eval suite --shard K/N --seal-key-env NAME`):
// HMAC-SHA-256 under a key only the CI holds, chained line by line, so whoever handles the file
// between the shard and `suite merge` (an artifact store, a shared volume) cannot change a byte of it
// without merge refusing it. The header says the file is sealed; a seal line follows the header and
// every trial line (written in the same append), each the MAC of the previous seal and the bytes
// since it, so a crash leaves every finished line sealed and --resume can check what it keeps.
// Without a key nothing is sealed and merge checks consistency only. The key never leaves the
// process: read once from its variable, which is then removed from the environment every child gets.
import { createHmac } from "node:crypto";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";

/** What marks a trials file's line as a seal line (a trial has a task, a seal never). */
export const SEAL_KIND = "proctor.suite.seal";
/** The header's `seal` value of a sealed file: the MAC it carries. */
export const SEAL_ALGORITHM = "hmac-sha256";
/** The least key a seal takes: 32 bytes (e.g. `openssl rand -hex 32`, 64 characters). */
export const MIN_KEY_BYTES = 32;

/** One seal line. */
export const SealLine = z
  .object({
    kind: z.literal(SEAL_KIND),
    version: z.literal(1),
    mac: z.string().regex(/^hmac-sha256:[0-9a-f]{64}$/, "expected hmac-sha256:<64 hex digits>"),
  })
  .strict();
export type SealLine = z.infer<typeof SealLine>;

/** A seal key, its bytes kept out of every message and out of JSON. */
export interface SealKey {
  readonly name: string;
  readonly bytes: Buffer;
}

const DOMAIN = "proctor.suite.seal/1\n";

/**
 * Takes the key from variable `name` of `env` (default process.env) and removes it there, so no agent,
 * phase or other child started after this ever has it. ConfigError (one line, never the value) when
 * the name is not a variable name or the value is missing or shorter than MIN_KEY_BYTES.
 */
export function takeSealKey(name: string, env: NodeJS.ProcessEnv = process.env): SealKey {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new ConfigError(
      `--seal-key-env: expected the NAME of an environment variable, got ${JSON.stringify(name)}`,
    );
  const value = env[name];
  delete env[name];
  if (value === undefined || value === "")
    throw new ConfigError(`--seal-key-env ${name}: the variable is not set (it holds the shards' seal key)`);
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length < MIN_KEY_BYTES)
    throw new ConfigError(
      `--seal-key-env ${name}: the key has ${bytes.length} bytes, expected at least ${MIN_KEY_BYTES} (e.g. openssl rand -hex 32)`,
    );
  return { name, bytes };
}

/** The seal line (with its newline) of `mac`. */
export function sealLineText(mac: string): string {
  return `${JSON.stringify({ kind: SEAL_KIND, version: 1, mac: `${SEAL_ALGORITHM}:${mac}` } satisfies SealLine)}\n`;
}

/** The chain of one file: each seal is the MAC of the previous one and the bytes written since it. */
export class SealChain {
  #key: Buffer;
  #last = "";
  constructor(key: SealKey) {
    this.#key = key.bytes;
  }
  /** The MAC of the next seal over `bytes` (the text since the previous seal line); the chain moves on. */
  mac(bytes: string): string {
    this.#last = createHmac("sha256", this.#key)
      .update(DOMAIN)
      .update(`${this.#last}\n`)
      .update(bytes, "utf8")
      .digest("hex");
    return this.#last;
  }
  /** `bytes` followed by its seal line. */
  seal(bytes: string): string {
    return bytes + sealLineText(this.mac(bytes));
  }
}

/** True when `line` (no newline) is a seal line by its kind (its fields may still be wrong). */
export function isSealLine(line: string): boolean {
  if (!line.includes(SEAL_KIND)) return false;
  try {
    const data = JSON.parse(line) as { kind?: unknown } | null;
    return typeof data === "object" && data !== null && data.kind === SEAL_KIND;
  } catch {
    return false;
  }
}

/** Where the seals of a text stand: the bytes up to and including its last seal line, and how many lines follow unsealed. */
export interface SealedPrefix {
  /** The length of the text up to the end of its last good seal line. */
  end: number;
  /** Lines after it (a crash's unsealed tail). */
  unsealed: number;
}

/**
 * Checks every seal line of `text` (a sealed trials file: header first) under `key`, in order. Throws a
 * ConfigError `<prefix>line N: ...` at the first seal line that is malformed or does not match; returns
 * how far the seals reach. The caller decides what an unsealed tail means (merge: refused; resume: dropped).
 */
export function checkSeals(text: string, key: SealKey, prefix: string): SealedPrefix {
  const chain = new SealChain(key);
  let start = 0; // where the bytes since the last seal begin
  let end = 0;
  let unsealed = 0;
  let at = 0;
  let n = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    const stop = nl < 0 ? text.length : nl + 1;
    const line = text.slice(at, nl < 0 ? text.length : nl);
    n++;
    if (isSealLine(line)) {
      const want = sealLineText(chain.mac(text.slice(start, at)));
      if (`${line}\n` !== want) {
        let data: unknown;
        try {
          data = JSON.parse(line);
        } catch {}
        throw new ConfigError(
          SealLine.safeParse(data).success
            ? `${prefix}line ${n}: the seal does not match: the file was changed after its shard wrote it, or sealed with another key`
            : `${prefix}line ${n}: a malformed seal line`,
        );
      }
      start = stop;
      end = stop;
      unsealed = 0;
    } else if (line !== "") unsealed++;
    at = stop;
  }
  return { end, unsealed };
}

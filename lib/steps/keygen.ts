// `eval-steps keygen`: a new random key in the format every key file of this lane takes (32 bytes,
// standard base64, pairs/seal.ts parsePairKey): a --session-key-file for harvest (a plaintext pair
// store has no pair key to derive one from), or a pair key for a store one seals. Written with mode
// 0600 to --out, never over an existing file, or printed on stdout for a secret manager.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { ArgsDef, ParsedArgs } from "citty";
import { fileProblem, UsageError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";
import { parsePairKey } from "./pairs/index.ts";

/** The flags of `eval-steps keygen`. */
export const KEYGEN_ARGS = {
  out: { type: "string", description: "write the key to FILE (mode 0600; never over an existing file)" },
} as const satisfies ArgsDef;

/** A new key file's text: 32 random bytes in standard base64, and a newline. */
export function newKeyText(): string {
  return `${randomBytes(32).toString("base64")}\n`;
}

/** Writes (or prints) a new key; 0, or a UsageError (exit 2) when --out cannot be written. */
export function keygenCmd(args: ParsedArgs<typeof KEYGEN_ARGS>): number {
  const text = newKeyText();
  const { kid } = parsePairKey(text, "the new key");
  if (args.out === undefined) {
    process.stdout.write(text);
    return 0;
  }
  try {
    writeFileSync(args.out, text, { mode: 0o600, flag: "wx" });
  } catch (error) {
    const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
    throw new UsageError(
      `Cannot write key "${args.out}": ${exists ? "it exists (a key file is never overwritten)" : fileProblem(error)}`,
      { cause: error },
    );
  }
  createLogger("eval-steps").info(
    `✓ wrote a new key to ${args.out} (id ${kid}): harvest --session-key-file ${args.out} hashes session ids with it`,
  );
  return 0;
}

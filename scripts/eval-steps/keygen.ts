// `eval-steps keygen [--out FILE]`: a new 32-byte key in base64 (a --session-key-file for harvest, or
// a pair key). Exit 0, 2 when --out exists or cannot be written. Body: lib/steps/keygen.ts.
import { defineCommand } from "citty";
import { KEYGEN_ARGS, keygenCmd } from "../../lib/steps/keygen.ts";

export const keygen = defineCommand({
  meta: { name: "keygen", description: "write a new key (32 bytes, base64) for harvest's key files" },
  args: KEYGEN_ARGS,
  run: ({ args }) => keygenCmd(args),
});

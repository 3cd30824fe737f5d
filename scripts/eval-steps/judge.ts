// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const judge = defineCommand({
  meta: { name: "judge", description: "not in this build yet" },
  run() {
    throw new UsageError("judge is not in this build yet");
  },
});

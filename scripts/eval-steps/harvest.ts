// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const harvest = defineCommand({
  meta: { name: "harvest", description: "not in this build yet" },
  run() {
    throw new UsageError("harvest is not in this build yet");
  },
});

// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const run = defineCommand({
  meta: { name: "run", description: "not in this build yet" },
  run() {
    throw new UsageError("run is not in this build yet");
  },
});

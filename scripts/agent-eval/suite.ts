// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const suite = defineCommand({
  meta: { name: "suite", description: "not in this build yet" },
  run() {
    throw new UsageError("suite is not in this build yet");
  },
});

// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const report = defineCommand({
  meta: { name: "report", description: "not in this build yet" },
  run() {
    throw new UsageError("report is not in this build yet");
  },
});

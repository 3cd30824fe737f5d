// Placeholder until this lane lands: refuses clearly instead of pretending.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";

export const lock = defineCommand({
  meta: { name: "lock", description: "not in this build yet" },
  run() {
    throw new UsageError("lock is not in this build yet");
  },
});
export const run = defineCommand({
  meta: { name: "run", description: "not in this build yet" },
  run() {
    throw new UsageError("run is not in this build yet");
  },
});
export const verdict = defineCommand({
  meta: { name: "verdict", description: "not in this build yet" },
  run() {
    throw new UsageError("verdict is not in this build yet");
  },
});
export const verify = defineCommand({
  meta: { name: "verify", description: "not in this build yet" },
  run() {
    throw new UsageError("verify is not in this build yet");
  },
});
export const plan = defineCommand({
  meta: { name: "plan", description: "not in this build yet" },
  run() {
    throw new UsageError("plan is not in this build yet");
  },
});

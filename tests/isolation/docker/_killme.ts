// Fixture for cleanup.test.ts: starts a run whose agent phase never ends, says "ready" once the
// command is under way (the container exists: an exec, or the start of an attached phase), and waits to be killed. argv: <runId> <image> <scratchRoot>
import { dockerRunner, installSignalCleanup } from "../../../lib/isolation/docker/index.ts";

const [runId = "", image = "", scratchRoot = ""] = process.argv.slice(2);
installSignalCleanup(runId, { scratchRoot });
const r = dockerRunner({
  scratchRoot,
  onDockerCall: (a) => {
    if (a[0] === "exec" || a[0] === "start") process.stdout.write("ready\n");
  },
});
const ws = await r.prepare(runId, undefined);
await r.runPhase(ws, {
  runId,
  image,
  phase: "agent",
  argv: ["sleep", "600"],
  timeoutMs: 600_000,
  network: "none",
});

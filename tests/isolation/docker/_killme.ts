// Fixture for cleanup.test.ts: starts a run whose agent phase never ends, says "ready" once the
// command is under way (the container has started: an exec, or the engine's start event of an attached
// phase's `docker run -i`, whose call begins before its container exists), and waits to be killed.
// argv: <runId> <image> <scratchRoot>
import { spawn } from "node:child_process";
import { dockerRunner, installSignalCleanup } from "../../../lib/isolation/docker/index.ts";

const [runId = "", image = "", scratchRoot = ""] = process.argv.slice(2);
installSignalCleanup(runId, { scratchRoot });

/** Prints "ready" at the container's start event (--since replays one that came before we listened). */
function readyWhenStarted(name: string): void {
  const since = String(Math.floor(Date.now() / 1000) - 1);
  const events = spawn(
    "docker",
    ["events", "--since", since, "--filter", `container=${name}`, "--filter", "event=start"],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  events.stdout.once("data", () => {
    process.stdout.write("ready\n");
    events.kill();
  });
}

const r = dockerRunner({
  scratchRoot,
  onDockerCall: (a) => {
    if (a[0] === "exec") process.stdout.write("ready\n");
    if (a[0] === "run" && a[1] === "-i") readyWhenStarted(a[a.indexOf("--name") + 1] ?? "");
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

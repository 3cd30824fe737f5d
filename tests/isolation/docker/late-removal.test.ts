// A phase whose `docker run -i` client is killed at its time limit while the engine is still making
// the container: `rm -f` of a container that does not exist yet says "No such container" and exits 0,
// so the runner asks again until there was one to remove, a bounded number of times. The engine is a
// fake docker CLI here (a script logging its verbs), since no real engine can be made slow on cue.
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LATE_REMOVAL_TRIES } from "../../../lib/isolation/docker/_box.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { tempDir } from "../../support/tmp.ts";

/** A docker CLI whose `run` outlives the phase and whose container appears at the `appearsAt`-th rm. */
function fakeDocker(dir: string, appearsAt: number): { path: string; verbs: () => string[] } {
  const log = join(dir, "calls");
  const path = join(dir, "docker");
  writeFileSync(
    path,
    `#!/bin/sh
echo "$1" >> '${log}'
case "$1" in
  version) echo 28.2.2 ;;
  run) exec sleep 30 ;;
  rm)
    n=$(grep -c '^rm$' '${log}')
    [ "$n" -ge ${appearsAt} ] || echo "Error response from daemon: No such container: $3" >&2 ;;
esac
exit 0
`,
  );
  chmodSync(path, 0o755);
  return { path, verbs: () => readFileSync(log, "utf8").trim().split("\n") };
}

describe("a timed-out attached phase", () => {
  const cases = [
    { name: "removes the container once the engine has made it", appearsAt: 3, rms: 3 },
    { name: "stops asking after its bound when none ever appears", appearsAt: 1000, rms: LATE_REMOVAL_TRIES },
  ];
  for (const c of cases)
    test(c.name, async () => {
      using dir = tempDir("late-removal");
      const docker = fakeDocker(dir.path, c.appearsAt);
      const r = dockerRunner({ docker: docker.path, scratchRoot: dir.path });
      const id = `t${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      const ws = await r.prepare(id, undefined);
      const phase = await r.runPhase(ws, {
        runId: id,
        image: "fake",
        timeoutMs: 50,
        network: "none",
        phase: "setup",
        argv: ["true"],
      });
      await r.dispose(ws);
      expect({ timedOut: phase.timedOut, verbs: docker.verbs() }).toEqual({
        timedOut: true,
        verbs: ["version", "run", ...Array.from({ length: c.rms }, () => "rm")],
      });
    }, 20_000);
});

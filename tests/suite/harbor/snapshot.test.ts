// The agent's container at the end of a Harbor agent phase (lib/suite/harbor/snapshot.ts), against a
// fake engine whose calls end when the test says: frozen by the pause, it is removed in the background
// (snapshotAgent returns with the removal still running, so the verifier need not wait); a container
// the pause did not freeze, or one that cannot be committed, is removed before snapshotAgent returns.
import { describe, expect, test } from "bun:test";
import type { ProcResult } from "../../../lib/core/proc.ts";
import type { DockerCall } from "../../../lib/isolation/docker/engine.ts";
import { snapshotAgent } from "../../../lib/suite/harbor/snapshot.ts";

/** A fake engine: each verb's exit code; `rm` ends only when `release` is called. */
function engine(exits: Partial<Record<string, number>>) {
  const log: string[] = [];
  let release = () => {};
  const removed = new Promise<void>((r) => {
    release = r;
  });
  const call: DockerCall = async (args) => {
    const verb = args[0]!;
    log.push(`start ${verb}`);
    if (verb === "rm") await removed;
    log.push(`end ${verb}`);
    const result: ProcResult = {
      command: ["docker", ...args],
      exitCode: exits[verb] ?? 0,
      signal: null,
      stdout: verb === "diff" ? "C /app\nA /app/new\n" : "",
      stderr: exits[verb] ? `${verb} failed` : "",
      durationMs: 0,
      timedOut: false,
    };
    return result;
  };
  return { call, log, release: () => release() };
}

describe("snapshotAgent", () => {
  test("a frozen container is removed while the caller goes on", async () => {
    const e = engine({});
    const snap = await snapshotAgent(e.call, "run1", "agent1");
    const atReturn = [...e.log];
    e.release();
    await snap.agentGone;
    expect({ atReturn, changes: snap.changes.length, image: snap.image }).toEqual({
      atReturn: [
        "start pause",
        "end pause",
        "start diff",
        "end diff",
        "start commit",
        "end commit",
        "start rm",
      ],
      changes: 2,
      image: "proctor-harbor-snapshot:agent1",
    });
  });

  test.each([
    { name: "a container the pause did not freeze goes first", exits: { pause: 1 }, error: null },
    {
      name: "a container that cannot be committed goes before the error",
      exits: { commit: 1 },
      error: "docker commit: commit failed",
    },
  ])("$name", async ({ exits, error }) => {
    const e = engine(exits);
    const pending = snapshotAgent(e.call, "run1", "agent1").then(
      () => null,
      (err: Error) => err.message,
    );
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve(); // let the calls before the removal run
    for (let i = 0; i < 50 && !e.log.includes("start rm"); i++) await Promise.resolve();
    const beforeRelease = { settled, removing: e.log.includes("start rm") };
    e.release();
    expect({ beforeRelease, error: await pending, last: e.log.at(-1) }).toEqual({
      beforeRelease: { settled: false, removing: true },
      error,
      last: "end rm",
    });
  });
});

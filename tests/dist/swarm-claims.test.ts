// examples/swarm/task.sh's claims, on this machine without a swarm: one `proctor-swarm shard` task
// over a prepared claims folder, with a stand-in docker (which containers run on this node) and a
// stand-in eval-steps (writes its scorecard, or fails). What the real swarm in swarm.test.ts cannot
// show on one node: a holder on another node lives while its heartbeat is fresh and is superseded
// once it is older than LEASE, by the volume's own clock; a shard whose attempts all died is given
// up, not run again; a task fails with its lane and leaves the shard to the next attempt.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { tempDir } from "../support/tmp.ts";
import { EXAMPLE } from "./_swarm.ts";

const NODE = "node-here";
const ME = "task-container-me";
/** Containers the stand-in docker reports running on this node. */
const RUNNING = ["running-here"];

const DOCKER = `#!/bin/sh
# inspect --type container --format ... ID: "true" for a running container, else "No such object"
for id in ${RUNNING.join(" ")}; do [ "$6" = "$id" ] && { echo true; exit 0; }; done
echo "Error: No such object: $6" >&2
exit 1
`;
const EVAL_STEPS = `#!/bin/sh
# run --suite S --shard K/N --scorecard FILE ...: records the shard, writes FILE (or fails: FAIL_SHARD)
shard=$5
echo "$shard" >>"$TRIALS_DIR/ran"
[ "$shard" = "\${FAIL_SHARD:-}" ] && exit 1
echo '{}' >"$7"
`;

type Holder = { node: string; container: string; ageS?: number };
type Case = {
  name: string;
  claims: Record<string, Holder>;
  done?: number[];
  fail?: string;
  expected: { exit: number; ran: string[]; added: string[] };
};

const here = (container: string): Holder => ({ node: NODE, container });
const elsewhere = (ageS: number): Holder => ({ node: "node-there", container: "c-there", ageS });

const CASES: Case[] = [
  {
    name: "a free shard: attempt 0 is claimed, run, marked done",
    claims: {},
    expected: { exit: 0, ran: ["0/3"], added: ["shard-0.0", "shard-0.done"] },
  },
  {
    name: "a live holder on this node keeps its shard; the next free one is taken",
    claims: { "shard-0.0": here("running-here") },
    expected: { exit: 0, ran: ["1/3"], added: ["shard-1.0", "shard-1.done"] },
  },
  {
    name: "a holder on this node whose container is gone is superseded by attempt 1",
    claims: { "shard-0.0": here("gone") },
    expected: { exit: 0, ran: ["0/3"], added: ["shard-0.1", "shard-0.done"] },
  },
  {
    name: "another node's holder with a fresh heartbeat lives; one older than LEASE is superseded",
    claims: { "shard-0.0": elsewhere(5), "shard-1.0": elsewhere(600) },
    expected: { exit: 0, ran: ["1/3"], added: ["shard-1.1", "shard-1.done"] },
  },
  {
    name: "a done shard is never claimed again, though its holder died",
    claims: { "shard-0.0": here("gone") },
    done: [0],
    expected: { exit: 0, ran: ["1/3"], added: ["shard-1.0", "shard-1.done"] },
  },
  {
    name: "ATTEMPTS dead attempts: the shard is given up, the next one run",
    claims: { "shard-0.0": here("gone"), "shard-0.1": here("gone"), "shard-0.2": here("gone") },
    expected: { exit: 0, ran: ["1/3"], added: ["shard-0.failed", "shard-1.0", "shard-1.done"] },
  },
  {
    name: "a lane that fails: the task fails, its claim stays, no done mark",
    claims: {},
    fail: "0/3",
    expected: { exit: 1, ran: ["0/3"], added: ["shard-0.0"] },
  },
  {
    name: "every shard done or given up: nothing runs, the task completes",
    claims: { "shard-2.0": here("gone"), "shard-2.1": here("gone"), "shard-2.2": here("gone") },
    done: [0, 1],
    expected: { exit: 0, ran: [], added: ["shard-2.failed"] },
  },
];

describe("examples/swarm task.sh: claiming a shard", () => {
  test.each(CASES)("$name", async (c) => {
    using dir = tempDir("proctor-swarm-claims");
    const trials = join(dir.path, "trials");
    const claims = join(trials, "claims");
    const bin = join(dir.path, "bin");
    mkdirSync(claims, { recursive: true });
    mkdirSync(bin);
    writeFileSync(join(bin, "docker"), DOCKER, { mode: 0o755 });
    writeFileSync(join(bin, "eval-steps"), EVAL_STEPS, { mode: 0o755 });
    const now = Date.now() / 1000;
    for (const [file, h] of Object.entries(c.claims)) {
      const path = join(claims, file);
      writeFileSync(path, `node=${h.node}\ncontainer=${h.container}\ntask=t\n`);
      utimesSync(path, now - (h.ageS ?? 0), now - (h.ageS ?? 0));
    }
    for (const k of c.done ?? []) writeFileSync(join(claims, `shard-${k}.done`), "");
    const before = new Set(readdirSync(claims));
    const r = await run(["sh", join(EXAMPLE, "task.sh"), "shard"], {
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        TRIALS_DIR: trials,
        SHARDS: "3",
        LANE: "steps",
        STEPS: "/evals/steps",
        ATTEMPTS: "3",
        LEASE: "60",
        POLL: "1",
        SHARD_NODE: NODE,
        HOSTNAME: ME,
        ...(c.fail ? { FAIL_SHARD: c.fail } : {}),
      },
    });
    const ran = readdirSync(trials).includes("ran")
      ? readFileSync(join(trials, "ran"), "utf8").split("\n").filter(Boolean)
      : [];
    expect({
      exit: r.exitCode,
      ran,
      added: readdirSync(claims)
        .filter((f) => !before.has(f) && !f.startsWith("."))
        .sort(),
    }).toEqual(c.expected);
  });
});

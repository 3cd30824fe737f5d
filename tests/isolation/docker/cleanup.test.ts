// Killing a run midway (SIGINT or SIGTERM) leaves none of its containers, networks or scratch dirs,
// exits 130/143, and never touches another run's, even one whose id starts with the same characters;
// and so does a whole suite run interrupted at fifteen points spread over its life (before the first
// docker call, as each phase's attached run starts, mid-copy, mid-removal), whatever was in flight.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import type { ProcResult } from "../../../lib/core/proc.ts";
import {
  containersOf,
  makeScratchDir,
  networksOf,
  removeRunResources,
  runCall,
  scratchDirsOf,
  stopRun,
} from "../../../lib/isolation/docker/cleanup.ts";
import type { DockerCall } from "../../../lib/isolation/docker/engine.ts";
import { ADD_REPO, evalsTree } from "../../suite/_support.ts";
import { type TempDir, tempDir } from "../../support/tmp.ts";
import { BIN } from "../../support/tools.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
beforeAll(async () => {
  image = await testImage();
}, IMAGE_BUILD_MS);

describe("signal cleanup", () => {
  test.each([
    { signal: "SIGINT" as const, code: 130 },
    { signal: "SIGTERM" as const, code: 143 },
  ])("$signal removes only this run's containers and dirs", async ({ signal, code }) => {
    using scratch = tempDir("proctor-cleanup");
    const mine = `k${process.pid}${signal}`;
    const other = `${mine}0`; // a prefix match would catch it
    const otherName = `proctor-eval-other-${other}`;
    const started = spawnSync(
      "docker",
      [
        "run",
        "-d",
        "--rm",
        "--name",
        otherName,
        "--label",
        `proctor.run=${other}`,
        "--network",
        "none",
        image,
        "sleep",
        "600",
      ],
      { encoding: "utf8" },
    );
    expect(started.status).toBe(0);
    const otherDir = makeScratchDir(other, scratch.path);
    const child = spawn(BIN.bun, [join(import.meta.dirname, "_killme.ts"), mine, image, scratch.path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (b) => {
      err += b;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (b: Buffer) => String(b).includes("ready") && resolve());
      child.on("exit", () => reject(new Error(`fixture exited early: ${err}`)));
    });
    const during = {
      containers: (await containersOf(mine)).length,
      dirs: scratchDirsOf(mine, scratch.path).length,
    };
    const exit = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    child.kill(signal);
    const exitCode = await exit;
    const after = {
      exitCode,
      mine: await containersOf(mine),
      mineDirs: scratchDirsOf(mine, scratch.path),
      other: await containersOf(other),
      otherDirs: scratchDirsOf(other, scratch.path),
    };
    await removeRunResources(other, { scratchRoot: scratch.path });
    expect({ during, ...after }).toEqual({
      during: { containers: 1, dirs: 1 },
      exitCode: code,
      mine: [],
      mineDirs: [],
      other: [otherName],
      otherDirs: [otherDir],
    });
  });
});

// Two trials at once (a phase of one starts while the other is being swept), each three containers.
const SUITE = `name: interrupt
tasks: [fix-add]
control: control
repeats: 1
variants:
  - {name: control, harness: claude, model: noop}
  - {name: fixer, harness: claude, model: fixer}
`;

/** Where a signal lands: at "ready" (before any docker call), or as the n-th call of a verb starts. */
type Point = { verb: "ready" } | { verb: "run" | "cp" | "rm"; n: number };

/**
 * One run of tests/isolation/docker/_interrupt.ts, signalled at `at` (never, when absent); `group` signals its
 * whole process group, as a terminal's Ctrl-C does. Returns the verbs it called, by count.
 */
async function interruptedRun(runId: string, at: Point | undefined, signal: NodeJS.Signals, group = false) {
  const child = spawn(
    BIN.bun,
    [join(import.meta.dirname, "_interrupt.ts"), runId, image, scratch.path, suitePath, trialsPath(runId)],
    { stdio: ["ignore", "pipe", "pipe"], detached: group },
  );
  const calls: Record<string, number> = {};
  let landed = false;
  let pending = "";
  child.stdout.on("data", (b: Buffer) => {
    pending += String(b);
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line !== "ready" && !line.startsWith("done")) calls[line] = (calls[line] ?? 0) + 1;
      const hit =
        at?.verb === "ready"
          ? line === "ready"
          : at !== undefined && line === at.verb && calls[line] === at.n;
      if (hit && !landed) {
        landed = true;
        if (group && child.pid) process.kill(-child.pid, signal);
        else child.kill(signal);
      }
    }
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  return {
    exitCode,
    landed,
    calls,
    left: {
      containers: await containersOf(runId),
      networks: await networksOf(runId),
      dirs: scratchDirsOf(runId, scratch.path),
    },
  };
}

const NOTHING = { containers: [], networks: [], dirs: [] };
let scratch: TempDir;
let suitePath = "";
const trialsPath = (runId: string) => join(scratch.path, `${runId}.trials.jsonl`);

/**
 * Fifteen points over the run's life: before any call, as each of the six phases' attached `docker run
 * -i` starts (each phase is one command without secrets: its container created and started by that one
 * call, /work going in on its stdin), and mid-copy and mid-removal early, midway and late; SIGTERM and
 * SIGINT in turn, every fourth signal to the whole process group (the docker clients run in their own
 * groups, so only the run gets it).
 */
const POINTS: Point[] = [
  { verb: "ready" },
  ...[1, 2, 3, 4, 5, 6].map((n) => ({ verb: "run" as const, n })),
  ...[1, 2, 3, 4].map((n) => ({ verb: "cp" as const, n })),
  ...[1, 2, 3, 4].map((n) => ({ verb: "rm" as const, n })),
];

describe("a suite run interrupted anywhere leaves nothing behind", () => {
  beforeAll(() => {
    scratch = tempDir("proctor-interrupt");
    const tree = evalsTree(scratch.path);
    tree.task(
      "fix-add",
      "id: fix-add\nrepo: repo\nsetup: [test -f add.sh]\nprompt: fix add.sh\ncheck: sh test.sh\n",
      ADD_REPO,
    );
    suitePath = tree.suite("interrupt", SUITE);
  });
  afterAll(() => scratch?.[Symbol.dispose]());

  test("uninterrupted: exit 0, nothing left, the calls the points below pick from", async () => {
    const r = await interruptedRun(`w${process.pid}`, undefined, "SIGTERM");
    expect({ exitCode: r.exitCode, calls: r.calls, left: r.left }).toEqual({
      exitCode: 0,
      // A check's container goes with --rm: no `docker rm` of its own.
      calls: { version: 1, run: 6, cp: 4, rm: 4 },
      left: NOTHING,
    });
  });

  test.each(
    POINTS.map((at, i) => ({
      at,
      where: at.verb === "ready" ? "before any docker call" : `as docker ${at.verb} #${at.n} starts`,
      signal: (i % 2 === 0 ? "SIGTERM" : "SIGINT") as NodeJS.Signals,
      code: i % 2 === 0 ? 143 : 130,
      to: i % 4 === 1 ? "its process group" : "the process",
    })),
  )("$signal to $to $where", async ({ at, signal, code, to }) => {
    const runId = `i${process.pid}${at.verb}${"n" in at ? at.n : 0}`;
    const r = await interruptedRun(runId, at, signal, to !== "the process");
    expect({ landed: r.landed, exitCode: r.exitCode, left: r.left }).toEqual({
      landed: true,
      exitCode: code,
      left: NOTHING,
    });
  });
});

/**
 * An engine whose `docker run` creates its container only when the test says so, as a busy one does;
 * an attached run (`run -i`) then lasts until its container is removed, and exits 137 as docker's does.
 */
function slowEngine() {
  const containers = new Set<string>();
  const pendingCreates: (() => void)[] = [];
  const running = new Map<string, () => void>();
  let listedOnce: () => void = () => {};
  const listed = new Promise<void>((resolve) => {
    listedOnce = resolve;
  });
  const ok = (args: string[], stdout = ""): ProcResult => ({
    command: ["docker", ...args],
    exitCode: 0,
    signal: null,
    stdout,
    stderr: "",
    durationMs: 0,
    timedOut: false,
  });
  const call: DockerCall = async (args) => {
    if (args[0] === "run") {
      await new Promise<void>((resolve) => pendingCreates.push(resolve));
      const name = args[args.indexOf("--name") + 1] ?? "";
      containers.add(name);
      if (args[1] === "-i") {
        await new Promise<void>((resolve) => running.set(name, resolve));
        return { ...ok(args), exitCode: 137 };
      }
    } else if (args[0] === "ps") {
      listedOnce();
      return ok(args, [...containers].map((c) => `${c}\n`).join(""));
    } else if (args[0] === "rm")
      for (const c of args.slice(2)) {
        containers.delete(c);
        running.get(c)?.();
      }
    return ok(args);
  };
  return { call, containers, create: () => pendingCreates.shift()?.(), listed };
}

describe("stopRun: the mechanism, against an engine that is still creating", () => {
  test("waits for the create in flight, refuses new work, sweeps what the create made and the scratch dirs", async () => {
    using root = tempDir("proctor-stop");
    const runId = `s${process.pid}`;
    const engine = slowEngine();
    const call = runCall(runId, engine.call);
    const dir = makeScratchDir(runId, root.path);
    const inFlight = call(["run", "-d", "--name", "c1", "img"]);
    const stopping = stopRun(runId, { call: engine.call, scratchRoot: root.path });
    const refused = await Promise.all([
      call(["run", "-d", "--name", "c2", "img"]),
      call(["exec", "c1", "true"]),
    ]);
    let newDir = "";
    try {
      makeScratchDir(runId, root.path);
    } catch (error) {
      newDir = (error as Error).message;
    }
    engine.create(); // the engine finishes c1 only now, after the signal
    await inFlight;
    const swept = await stopping;
    expect({
      refused: refused.map((r) => [r.exitCode, r.stderr]),
      newDir,
      swept,
      left: [...engine.containers],
      dirs: scratchDirsOf(runId, root.path),
    }).toEqual({
      refused: [
        [null, `run "${runId}" is stopping: docker run not started`],
        [null, `run "${runId}" is stopping: docker exec not started`],
      ],
      newDir: `Run "${runId}" is stopping: no new workspace`,
      swept: { containers: ["c1"], networks: [], dirs: [dir] },
      left: [],
      dirs: [],
    });
  });

  test("never waits for an attached run (it lasts the phase): removes its container, and chases one created late", async () => {
    using root = tempDir("proctor-stop");
    const runId = `a${process.pid}`;
    const engine = slowEngine();
    const call = runCall(runId, engine.call);
    const running = call(["run", "-i", "--name", "a1", "img"]);
    engine.create(); // a1 runs its phase
    const late = call(["run", "-i", "--name", "a2", "img"]);
    const t = performance.now();
    const stopping = stopRun(runId, { call: engine.call, scratchRoot: root.path });
    await engine.listed;
    engine.create(); // the engine finishes a2 only after the first listing
    const exits = (await Promise.all([running, late])).map((r) => r.exitCode);
    const swept = await stopping;
    expect({
      exits,
      swept,
      left: [...engine.containers],
      // Waiting for attached runs as for detached ones would take the 60 s start grace.
      withinGrace: performance.now() - t < 30_000,
    }).toEqual({
      exits: [137, 137],
      swept: { containers: ["a1", "a2"], networks: [], dirs: [] },
      left: [],
      withinGrace: true,
    });
  });
});

// examples/swarm for real, on a single-node Docker Swarm initialised on 127.0.0.1 (and left, with all
// the tests made, whatever happens): the example's own image.sh builds the shard image (offline, FROM
// proctor-base) and its run.sh runs each lane as 4 shards, one replicated job, then the merge job and
// the sweep job. The fixture suite runs with the real Claude Code against the mock model (shard
// containers on the host network reach the mock on 127.0.0.1; their trials run as sibling containers
// through the engine socket, the model bridge in each shard's process); each shard task gets its own
// key ({{.Task.ID}}), so the mock knows which task a request came through and holds one task's
// second trial mid-request while the test SIGKILLs that task's container. Swarm starts another task,
// which claims the dead holder's shard, sweeps what it left and resumes its trials file; the merged
// scorecard is the unsharded run's (wall-clock readings aside). eval-steps run goes the same way,
// its key from a swarm secret, its results on a bind mount; a shard whose every call fails is tried
// ATTEMPTS times, given up, and the merge refuses it, naming it (exit 2).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { defaultImage } from "../../lib/suite/run.ts";
import { loadSuite } from "../../lib/suite/suite.ts";
import { REQUESTS, session, stepCase, writeSuite } from "../steps/_cases.ts";
import { fixtureScript } from "../suite/_support.ts";
import { binDir } from "../support/binary.ts";
import { httpError, type Script, type Step, startMockModel, text, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import {
  buildShardImage,
  docker,
  initSwarm,
  killTask,
  must,
  onTrials,
  runExample,
  type TestSwarm,
  taskIds,
} from "./_swarm.ts";

const PREFIX = `pswarm${Date.now().toString(36)}`;
const SUITE = join(REPO_ROOT, "evals", "suites", "fixture.yaml");
const dir = tempDir("proctor-swarm");
const scratch = join(dir.path, "scratch");
const evals = join(dir.path, "evals");
let swarm: TestSwarm | undefined;
let image = "";

/** Steps per session of the step suite: one session per shard of 4 (sessions are never split). */
const SESSIONS = [3, 2, 2, 1];
/** The session whose every call fails in the give-up run: the shard holding it fails each attempt. */
const FAILING = 1;

function writeSteps(into: string): void {
  mkdirSync(into, { recursive: true });
  let i = 0;
  const cases = SESSIONS.flatMap((size, s) =>
    Array.from({ length: size }, (_, depth) => {
      const id = `step-${String(i++).padStart(2, "0")}`;
      const request = JSON.parse(
        JSON.stringify(REQUESTS.anthropic).replace("open a.ts", `open a.ts (${id}, s${s + 1})`),
      );
      return stepCase("anthropic", {
        id,
        request,
        provenance: { ...stepCase("anthropic").provenance, session: session(s + 1), depth },
      });
    }),
  );
  writeSuite(into, cases);
}

beforeAll(async () => {
  for (const v of loadSuite(SUITE).variants) {
    const tag = defaultImage(v);
    if ((await docker(["image", "inspect", tag])).exitCode !== 0)
      throw new Error(`Missing image ${tag}: run \`npx bun evals/images/build.ts --harness all\``);
  }
  mkdirSync(scratch);
  for (const d of ["suites", "tasks"])
    cpSync(join(REPO_ROOT, "evals", d), join(evals, d), { recursive: true });
  writeSteps(join(evals, "steps"));
  swarm = await initSwarm(PREFIX);
  image = await buildShardImage(`${PREFIX}-shard:1`, evals);
}, 600_000);

afterAll(async () => {
  await swarm?.leave();
  await docker(["rmi", "-f", `${PREFIX}-shard:1`]);
  dir[Symbol.dispose]();
}, 600_000);

/** The environment of a run on this host: the tools' PATH, no CI (a log's progress lines), `over` on top. */
function hostEnv(over: Record<string, string>): Record<string, string> {
  const env = { ...(process.env as Record<string, string>), ...over };
  delete env.CI;
  return env;
}

/** A scorecard with its wall-clock readings (wallMs, wallP50Ms, wallMean...) set aside. */
const withoutWall = (json: string): unknown =>
  JSON.parse(json, (key, value) => (key.startsWith("wall") ? undefined : value));
/** Every field's type, so setting readings aside cannot hide a field only one side has. */
const shape = (json: string): unknown =>
  JSON.parse(json, (_key, value) => (typeof value === "object" ? value : typeof value));

describe("examples/swarm on a single-node swarm (127.0.0.1)", () => {
  test("a 4-shard suite with the real Claude Code, one shard's container killed mid-trial and restarted by Swarm: the merged scorecard is the unsharded run's", async () => {
    const name = `${PREFIX}-suite`;
    const fixture = fixtureScript() as Exclude<Script, Step[]>;
    const starts = new Map<string, number>();
    /** The fixture's answers, counting the conversations (a request without a tool result starts one). */
    const counted =
      (label: string, hold?: Promise<void>, onHold?: () => void): Script =>
      async (req, ctx) => {
        if (!ctx.hasToolResult) {
          starts.set(label, (starts.get(label) ?? 0) + 1);
          if (hold && starts.get(label) === 2) {
            onHold?.();
            await hold;
          }
        }
        return fixture(req, ctx);
      };
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    let held: (task: string) => void = () => {};
    const firstHeld = new Promise<string>((r) => {
      held = r;
    });
    // Unknown keys (a task Swarm started after the kill) get the fallback: "restarted".
    await using mock = await startMockModel({ script: counted("restarted") });
    mock.scenario("whole-key", counted("whole"), "whole");
    const wholeDir = join(dir.path, "whole");
    const agentEval = join(await binDir(), "agent-eval");
    const whole = run(
      [agentEval, "suite", SUITE, "--model-url", mock.url, "--parallel", "3"].concat([
        "--trials",
        join(wholeDir, "trials.jsonl"),
        "--scorecard",
        join(wholeDir, "scorecard.json"),
      ]),
      { env: hostEnv({ ANTHROPIC_API_KEY: "whole-key" }) },
    );
    const example = runExample({
      IMAGE: image,
      NAME: name,
      SHARDS: "4",
      SCRATCH: scratch,
      SUITE: "/evals/suites/fixture.yaml",
      // One trial at a time: a shard's second trial starts once its first is in the trials file.
      SUITE_FLAGS: `--parallel 1 --model-url ${mock.url}`,
      SHARD_FLAGS: "--env ANTHROPIC_API_KEY=swarm-key-{{.Task.ID}}",
      RESTART_DELAY: "1s",
      POLL: "1",
    });
    const ended = (what: string) => async (r: ProcResult) => {
      throw new Error(`run.sh ended (exit ${r.exitCode}) before ${what}: ${r.stderr}`);
    };
    const tasks = await Promise.race([
      taskIds(`${name}-shards`, 4),
      example.then(ended("its tasks were listed")),
    ]);
    for (const t of tasks)
      mock.scenario(
        `swarm-key-${t}`,
        counted(t, released, () => held(t)),
        t,
      );
    // The first task to start its second trial is held in its first model request, then killed.
    const victim = await Promise.race([firstHeld, example.then(ended("a shard's second trial"))]);
    await killTask(victim);
    release();
    const [r, w] = await Promise.all([example, whole]);
    expect([r.exitCode, r.stderr, w.exitCode, w.stderr]).toEqual([
      0,
      expect.any(String),
      0,
      expect.any(String),
    ]);

    const mount = `type=volume,source=${name}-trials,destination=/trials`;
    const claims = (await onTrials(image, mount, "ls /trials/claims")).split("\n").filter(Boolean);
    const held0 = (
      await onTrials(image, mount, `grep -l '^task=${victim}$' /trials/claims/shard-*.0`)
    ).trim();
    const k = /shard-(\d)\.0$/.exec(held0)?.[1] ?? "?";
    const victimFile = await onTrials(image, mount, `cat /trials/shard-${k}/trials.jsonl`);
    const merged = await onTrials(image, mount, "cat /trials/scorecard.json");
    const wholeJson = readFileSync(join(wholeDir, "scorecard.json"), "utf8");
    await must(["volume", "rm", `${name}-trials`]);
    expect({
      merged: r.stderr.includes("merged 4 shards of suite fixture: 6 trials, seed 1"),
      claims,
      // The shard's header and its 2 trials: the one the killed attempt finished, kept, and the rest.
      victimFile: victimFile.split("\n").filter(Boolean).length,
      conversations: {
        victim: starts.get(victim),
        restarted: starts.get("restarted"),
        tasks: tasks.map((t) => starts.get(t) ?? 0).sort(),
        whole: starts.get("whole"),
      },
      shape: shape(merged),
      scorecard: withoutWall(merged),
      leftovers: await swarm?.leftovers(name),
      scratch: readdirSync(scratch),
    }).toEqual({
      merged: true,
      claims: [0, 1, 2, 3]
        .flatMap((s) => [`shard-${s}.0`, ...(String(s) === k ? [`shard-${s}.1`] : []), `shard-${s}.done`])
        .sort(),
      victimFile: 3,
      conversations: { victim: 2, restarted: 1, tasks: [1, 1, 2, 2], whole: 6 },
      shape: shape(wholeJson),
      scorecard: withoutWall(wholeJson),
      leftovers: [],
      scratch: [],
    });
  }, 900_000);

  test("eval-steps run as 4 shards, the key from a swarm secret: merged, the unsharded replay's; a shard whose every call fails is given up after ATTEMPTS and the merge refuses it by name", async () => {
    const answer =
      (failing: boolean): Script =>
      (req) => {
        const [, n, s] = /\(step-(\d\d), s(\d)\)/.exec(JSON.stringify(req.body)) ?? [];
        if (failing && Number(s) === FAILING) return httpError(500);
        return Number(n) % 3 === 1
          ? text("done")
          : toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]);
      };
    await using mock = await startMockModel({ script: [] });
    mock.scenario("steps-ok-key", answer(false), "ok");
    mock.scenario("steps-failing-key", answer(true), "failing");
    const flags = `--model m --url ${mock.url} --key-env STEP_KEY --seed 7`;
    const lane = (name: string, key: string, attempts: string) => {
      const trials = join(dir.path, name);
      mkdirSync(trials);
      return must(["secret", "create", `${name}-key`, "-"], key).then(() =>
        runExample({
          IMAGE: image,
          NAME: name,
          LANE: "steps",
          SHARDS: "4",
          SCRATCH: scratch,
          STEPS: "/evals/steps",
          STEPS_FLAGS: flags,
          TRIALS_MOUNT: `type=bind,source=${trials},destination=/trials`,
          MODEL_KEY_SECRET: `${name}-key`,
          MODEL_KEY_ENV: "STEP_KEY",
          ATTEMPTS: attempts,
          RESTART_DELAY: "1s",
          POLL: "1",
        }),
      );
    };
    const evalSteps = join(await binDir(), "eval-steps");
    const wholeFile = join(dir.path, "steps-whole.json");
    const [ok, failing, whole] = await Promise.all([
      lane(`${PREFIX}-steps`, "steps-ok-key", "3"),
      lane(`${PREFIX}-fail`, "steps-failing-key", "2"),
      run(
        [evalSteps, "run", "--suite", join(evals, "steps"), ...flags.split(" "), "--scorecard", wholeFile],
        {
          env: hostEnv({ STEP_KEY: "steps-ok-key" }),
        },
      ),
    ]);
    for (const n of ["steps", "fail"]) await must(["secret", "rm", `${PREFIX}-${n}-key`]);
    const claims = (name: string) =>
      readdirSync(join(dir.path, name, "claims")).filter((f) => !f.startsWith("."));
    const given = claims(`${PREFIX}-fail`).find((f) => f.endsWith(".failed")) ?? "";
    const k = /^shard-(\d)\.failed$/.exec(given)?.[1] ?? "?";
    /** A step scorecard with its latencies set aside; the suite folder is the image's (/evals/steps). */
    const settled = (path: string) =>
      JSON.parse(readFileSync(path, "utf8"), (key, value) =>
        key === "latencyMs" ? 0 : key === "suite" ? "/evals/steps" : value,
      );
    /** run.sh's lines (the merge's, then the shard tasks' own when it failed) that match `re`. */
    const said = (r: ProcResult, re: RegExp) => (r.stdout + r.stderr).split("\n").filter((l) => re.test(l));
    expect({
      exits: [ok.exitCode, failing.exitCode, whole.exitCode],
      // What a run said, when it did not end as expected.
      why: [ok, failing, whole].map((r, i) => (r.exitCode === [0, 2, 0][i] ? "" : r.stderr.slice(-3000))),
      merged: settled(join(dir.path, `${PREFIX}-steps`, "scorecard.json")),
      okClaims: claims(`${PREFIX}-steps`).sort(),
      failClaims: claims(`${PREFIX}-fail`).sort(),
      refusal: said(failing, /^(✗ Cannot merge|proctor-swarm: shard-\d was given up)/),
      // Each task's lines in order, the tasks in any: sorted.
      failedAttempts: said(failing, new RegExp(`^proctor-swarm: shard ${k}/4: (exit|2 attempts)`)).sort(),
      scenarios: [...new Set(mock.requests.map((q) => q.scenario))].sort(),
      leftovers: [
        ...((await swarm?.leftovers(`${PREFIX}-steps`)) ?? []),
        ...((await swarm?.leftovers(`${PREFIX}-fail`)) ?? []),
      ],
    }).toEqual({
      exits: [0, 2, 0],
      why: ["", "", ""],
      merged: settled(wholeFile),
      okClaims: [0, 1, 2, 3].flatMap((s) => [`shard-${s}.0`, `shard-${s}.done`]).sort(),
      failClaims: [0, 1, 2, 3]
        .flatMap((s) =>
          String(s) === k ? [`shard-${s}.0`, `shard-${s}.1`, given] : [`shard-${s}.0`, `shard-${s}.done`],
        )
        .sort(),
      failedAttempts: [
        `proctor-swarm: shard ${k}/4: 2 attempts failed or died; given up (the merge will refuse it)`,
        `proctor-swarm: shard ${k}/4: exit 1 (Swarm starts another task, which claims the next attempt)`,
        `proctor-swarm: shard ${k}/4: exit 1 (Swarm starts another task, which claims the next attempt)`,
      ],
      refusal: [
        `proctor-swarm: shard-${k} was given up after 2 attempts`,
        expect.stringMatching(new RegExp(`^✗ Cannot merge: shard ${k}/4 is missing \\(given: `)),
      ],
      scenarios: ["failing", "ok"],
      leftovers: [],
    });
  }, 600_000);
});

// Harbor tasks end to end on the Docker engine (issue 14's proof): `agent-eval tasks check` passes the
// fixture tasks (nop fails, oracle passes) and names the broken ones; an environment image is built
// once and reused by a later run; real Claude Code (against the mock model) fixes a Harbor task
// inside its own environment through `agent-eval suite`, the scorecard counts it and --resume keeps
// it; an allow_internet task is refused without --network bridge and named in the scorecard with it.
import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { dockerCli } from "../../../lib/isolation/docker/engine.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { resolveBaseImage } from "../../../lib/suite/agents/image.ts";
import { builtinContext } from "../../../lib/suite/harbor/check.ts";
import { parseImageMap, taskImage } from "../../../lib/suite/harbor/image.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import { applyHarborOptions, settleHarborRemovals } from "../../../lib/suite/harbor/trial.ts";
import { loadScorecard, loadTrials } from "../../../lib/suite/scorecard/index.ts";
import { runTrial } from "../../../lib/suite/trial.ts";
import { agentCli } from "../../support/agent-clis.ts";
import { startMockModel } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { fixtureScript } from "../_support.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const LIMIT_MS = 600_000;

/** The fixtures say FROM ubuntu:24.04; offline, that is the project's base image. */
async function imageMap(): Promise<string[]> {
  for (const tag of ["eval-claude:2.1.197"])
    if ((await run(["docker", "image", "inspect", tag])).exitCode !== 0)
      throw new Error(`Missing image ${tag}: run \`npx bun evals/images/build.ts --harness all\``);
  return ["--image-map", `ubuntu:24.04=${await resolveBaseImage(dockerCli())}`];
}

async function agentEval(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = await run([process.execPath, ENTRY, ...args], {
    cwd,
    env: { ...(process.env as Record<string, string>), ...env },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const at = (...names: string[]) => names.map((n) => join(FIXTURES, n));

describe("agent-eval tasks check", () => {
  test(
    "the fixture tasks pass (nop fails, oracle passes); the broken ones are named and exit 1",
    async () => {
      using dir = tempDir("harbor-check");
      const map = await imageMap();
      const good = await agentEval(
        [
          "tasks",
          "check",
          ...at("fix-add", "partial-credit", "needs-internet"),
          ...map,
          "--network",
          "bridge",
        ],
        dir.path,
      );
      const all = await agentEval(["tasks", "check", FIXTURES, ...map], dir.path);
      expect({ good, all: { exitCode: all.exitCode, stdout: all.stdout } }).toEqual({
        good: {
          exitCode: 0,
          stdout: [
            "task            nop     oracle  status",
            "fix-add         fail    pass    ok",
            "partial-credit  fail    pass    ok",
            "needs-internet  fail    pass    ok",
            "3 of 3 tasks ok",
            "",
          ].join("\n"),
          stderr: "",
        },
        all: {
          exitCode: 1,
          stdout: [
            "task            nop     oracle  status",
            "fix-add         fail    pass    ok",
            "guarded         fail    pass    ok",
            `missing-base    -       -       skipped: environment/Dockerfile: FROM image "proctor-no-such-base:1.0" (line 1) is not on this machine; load it (docker pull proctor-no-such-base:1.0) or map it with --image-map proctor-no-such-base:1.0=LOCAL`,
            "needs-internet  -       -       skipped: task.toml: environment.allow_internet: the task reaches the internet; run with --network bridge to let it",
            "partial-credit  fail    pass    ok",
            // Offline, its verifier's apt-get cannot fetch: broken here, and said so.
            "root-tools      fail    fail    broken: oracle did not pass (reward 0)",
            "3 of 6 tasks ok, 1 broken, 2 skipped",
            "",
          ].join("\n"),
        },
      });
    },
    LIMIT_MS,
  );

  test(
    "an environment image is built once: a second run reuses it by its content hash",
    async () => {
      using dir = tempDir("harbor-cache");
      const task = join(dir.path, "cached");
      cpSync(join(FIXTURES, "fix-add"), task, { recursive: true });
      // A context no earlier run has seen: its hash, hence its tag, is new.
      writeFileSync(join(task, "environment", "marker.txt"), `${dir.path}\n`);
      const map = await imageMap();
      const first = await agentEval(["tasks", "check", task, ...map], dir.path);
      const calls: string[] = [];
      const loaded = loadHarborTask(task);
      const again = await taskImage(
        dockerCli("docker", (argv) => calls.push(argv[0]!)),
        loaded,
        new Map([["ubuntu:24.04", map[1]!.split("=")[1]!]]),
      );
      try {
        expect({
          first: first.exitCode,
          reused: again.reused,
          builds: calls.filter((c) => c === "build"),
        }).toEqual({
          first: 0,
          reused: true,
          builds: [],
        });
      } finally {
        await run(["docker", "image", "rm", "-f", again.tag]);
      }
    },
    LIMIT_MS,
  );
});

describe("a Harbor trial's containers", () => {
  test(
    "the agent's hardened and offline with task.toml's resources; the verifier's fresh, from its snapshot, tests/ only then",
    async () => {
      const map = await imageMap();
      const task = loadHarborTask(join(FIXTURES, "partial-credit"));
      const calls: string[][] = [];
      applyHarborOptions([task], {
        imageMap: parseImageMap([map[1]!]),
        onDockerCall: (argv) => calls.push(argv),
      });
      const trial = await runTrial(
        { task, variant: { name: "oracle", harness: "oracle" }, repeat: 0 },
        builtinContext(`harbor-verbs-${process.pid}`, dockerRunner(), "oracle", "none"),
      );
      // Its removals run once the result is known (the agent's container while the verifier runs, the
      // verifier's and then the snapshot after the reward is read): wait for them.
      await settleHarborRemovals();
      const agent = calls.find((c) => c[0] === "run" && c.includes("-d"))!;
      const verifier = calls.find((c) => c[0] === "create")!;
      const flags = (argv: string[]) => ({
        network: argv[argv.indexOf("--network") + 1],
        hardening: argv.filter((a) => /^--(cap-|security-opt|pids-limit)/.test(a)),
        resources: argv.filter((a) => /^--(cpus|memory|user)=/.test(a)),
      });
      // What each call does, in order, past the image look-ups and the listing of the task's programs.
      const verbs = calls
        .filter((c) => c[0] !== "image" && !(c[0] === "run" && c.includes("--rm")))
        .map((c) =>
          c[0] === "exec"
            ? `exec ${c
                .slice(c.findIndex((a) => a.startsWith("proctor-harbor-")) + 1)
                .join(" ")
                .slice(0, 30)}`
            : c[0] === "cp"
              ? `cp ${c.filter((a) => a.includes(":")).map((a) => a.replace(/^proctor-harbor-[^:]*/, "C"))}`
              : c[0]!,
        );
      const caps = [
        "--cap-drop=ALL",
        ...[
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "SETGID",
          "SETUID",
          "NET_BIND_SERVICE",
          "SYS_CHROOT",
          "AUDIT_WRITE",
        ].map((c) => `--cap-add=${c}`),
        "--security-opt=no-new-privileges",
        "--pids-limit=512",
      ];
      expect({
        pass: trial.pass,
        reward: trial.reward,
        agent: flags(agent),
        verifier: {
          ...flags(verifier),
          // Its own init, bash by absolute path, fresh volumes over whatever the agent left.
          run: verifier.slice(verifier.indexOf("--entrypoint"), verifier.indexOf("--entrypoint") + 2),
          command: verifier.at(-1),
          mounts: verifier.filter((a) => a.startsWith("type=volume")),
          init: verifier.includes("--init"),
          image: verifier.at(-2)!.split(":")[0],
        },
        verbs,
        // task.toml's verifier env reaches test.sh by name; its value is in no docker argv.
        verifierEnv: [
          calls.some((c) => c.includes("-e") && c.includes("EXPECTED_LINES")),
          calls.some((c) => c.join(" ").includes("EXPECTED_LINES=3")),
        ],
      }).toEqual({
        pass: true,
        reward: 1,
        agent: { network: "none", hardening: caps, resources: ["--memory=1024m", "--cpus=1", "--user=0"] },
        verifier: {
          network: "none",
          hardening: caps,
          resources: ["--memory=1024m", "--cpus=1", "--user=0:0"],
          run: ["--entrypoint", "/bin/bash"],
          command: "/tests/test.sh",
          mounts: ["/tests", "/logs", "/solution"].map((d) => `type=volume,dst=${d},volume-nocopy`),
          init: true,
          image: "proctor-harbor-snapshot",
        },
        verbs: [
          "run",
          "cp C:/solution",
          "exec bash /solution/solve.sh",
          "pause",
          "diff",
          "commit",
          "rm",
          "create",
          "cp C:/",
          "start",
          "cp C:/logs/verifier/reward.json",
          "cp C:/logs/verifier/reward.txt",
          "rm",
          "rmi",
        ],
        verifierEnv: [true, false],
      });
    },
    LIMIT_MS,
  );
});

/** fix-add under the fixture models: the control leaves it broken, the fixer solves it. */
const SOLVED = {
  pass1: [
    ["control", 1, 0, 0],
    ["fixer", 1, 1, 1],
  ],
  trials: [
    ["control", false, 0, null],
    ["fixer", true, 1, null],
  ],
};

/** True in a container that holds neither /tests nor any solve.sh (the agent's view of a Harbor task). */
const UNSEEN = '[ ! -e /tests ] && [ -z "$(find / -xdev -name solve.sh 2>/dev/null)" ]';

test.each([
  { name: "the image's USER when task.toml names none", agent: "[agent]", user: "agent" },
  { name: "task.toml's [agent] user over it", agent: '[agent]\nuser = "root"', user: "root" },
])(
  "a Harbor agent runs as $name",
  async ({ agent, user }) => {
    using dir = tempDir("harbor-user");
    const at = join(dir.path, "t");
    cpSync(join(FIXTURES, "fix-add"), at, { recursive: true });
    appendFileSync(join(at, "environment", "Dockerfile"), "USER agent\n");
    writeFileSync(
      join(at, "task.toml"),
      readFileSync(join(at, "task.toml"), "utf8").replace("[agent]", agent),
    );
    const task = loadHarborTask(at);
    const starts: string[][] = [];
    applyHarborOptions([task], {
      imageMap: parseImageMap([(await imageMap())[1]!]),
      // The agent's exec: its container's own first process is root's, the agent runs as its user.
      onDockerCall: (argv) => argv[0] === "exec" && starts.push(argv),
    });
    const t = await runTrial(
      { task, variant: { name: "nop", harness: "nop" }, repeat: 0 },
      builtinContext(`harbor-user-${process.pid}`, dockerRunner(), "nop", "none"),
    );
    expect({
      error: t.error ?? null,
      users: starts.map((a) => a[a.indexOf("-u") + 1]),
    }).toEqual({
      error: null,
      users: [user],
    });
  },
  LIMIT_MS,
);

describe("agent-eval suite with Harbor tasks", () => {
  test(
    "non-binary rewards are kept, pass at the suite's reward_threshold, and averaged per variant; the agent sees no tests nor solution",
    async () => {
      using dir = tempDir("harbor-partial");
      const f = (n: string) => join(dir.path, n);
      const words = (n: number) =>
        `printf '${["alpha", "beta", "gamma"].slice(0, n).join("\\n")}\\n' > /app/words.txt`;
      writeFileSync(
        f("suite.yaml"),
        [
          "name: partial",
          "tasks: [partial-credit]",
          "reward_threshold: 0.6",
          "variants:",
          `  - {name: one, harness: command, command: ${JSON.stringify(words(1))}}`,
          // Writes only if neither tests/ nor solution/solve.sh is anywhere in its container.
          `  - {name: two, harness: command, command: ${JSON.stringify(`${UNSEEN} && ${words(2)}`)}}`,
          // Solves it when --pass-env gave it the variable, then exits 3: the reward alone decides.
          `  - {name: three, harness: command, command: ${JSON.stringify(`[ "$HARBOR_E2E" = given ] && ${words(3)}; exit 3`)}}`,
          "",
        ].join("\n"),
      );
      const r = await agentEval(
        [
          "suite",
          f("suite.yaml"),
          "--tasks",
          FIXTURES,
          ...(await imageMap()),
          "--scorecard",
          f("sc.json"),
          "--trials",
          f("t.jsonl"),
          "--pass-env",
          "HARBOR_E2E",
        ],
        dir.path,
        { HARBOR_E2E: "given" },
      );
      const sc = loadScorecard(f("sc.json"));
      expect({
        exitCode: r.exitCode,
        variants: sc.variants.map((v) => [v.name, v.pass1, v.meanReward]),
        trials: (sc.trials ?? []).map((t) => [t.variant, t.pass, t.reward, t.rewards, t.error ?? null]),
      }).toEqual({
        exitCode: 0,
        variants: [
          ["one", 0, 0.3333],
          ["two", 1, 0.6667],
          ["three", 1, 1],
        ],
        trials: [
          ["one", false, 0.3333, { reward: 0.3333, words: 1 }, null],
          ["two", true, 0.6667, { reward: 0.6667, words: 2 }, null],
          ["three", true, 1, { reward: 1, words: 3 }, "agent exit 3: "],
        ],
      });
    },
    LIMIT_MS,
  );

  test(
    "real Claude Code fixes a Harbor task in its environment; the scorecard counts it; --resume keeps it",
    async () => {
      await using mock = await startMockModel({ script: fixtureScript() });
      using dir = tempDir("harbor-suite");
      const f = (n: string) => join(dir.path, n);
      writeFileSync(
        f("suite.yaml"),
        [
          "name: harbor-fixture",
          "tasks: [fix-add]",
          "control: control",
          "variants:",
          '  - {name: control, harness: claude, version: "2.1.197", model: mock-nofix}',
          '  - {name: fixer, harness: claude, version: "2.1.197", model: mock-fix}',
          "",
        ].join("\n"),
      );
      agentCli("claude");
      const args = [
        "suite",
        f("suite.yaml"),
        "--tasks",
        FIXTURES,
        ...(await imageMap()),
        "--model-url",
        mock.url,
        "--scorecard",
        f("sc.json"),
        "--trials",
        f("trials.jsonl"),
        "--report",
        f("report.html"),
      ];
      const env = { ANTHROPIC_API_KEY: "harbor-e2e-key" };
      const first = await agentEval(args, dir.path, env);
      const summary = () => {
        const sc = loadScorecard(f("sc.json"));
        return {
          pass1: sc.variants.map((v) => [v.name, v.trials, v.pass1, v.meanReward]),
          trials: loadTrials(f("trials.jsonl"))
            .map((t) => [t.variant, t.pass, t.reward, t.error ?? null])
            // The file is in finishing order.
            .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        };
      };
      const after = summary();
      const html = readFileSync(f("report.html"), "utf8");
      // Each trial links to its transcript's page; its turns are what the bridge counted (the mock's replies).
      const report = ["fix-add", "trials.logs/fix-add/fixer/0.transcript.html"].map((s) => html.includes(s));
      const metered =
        loadTrials(f("trials.jsonl")).reduce((n, t) => n + (t.meter?.turns ?? -100), 0) ===
        mock.requests.filter((r) => r.usage !== undefined).length;
      const requests = mock.requests.length;
      const resumed = await agentEval([...args, "--resume"], dir.path, env);
      expect({
        first: first.exitCode,
        report,
        metered,
        after,
        resumed: resumed.exitCode,
        again: summary(),
        newRequests: mock.requests.length - requests,
        keyInRequests: JSON.stringify(mock.requests).includes("harbor-e2e-key"),
      }).toEqual({
        first: 0,
        report: [true, true],
        metered: true,
        after: SOLVED,
        resumed: 0,
        again: SOLVED,
        newRequests: 0,
        keyInRequests: false,
      });
    },
    LIMIT_MS,
  );

  test(
    "the suite's agent_timeout replaces task.toml's; the verifier still judges what the agent left",
    async () => {
      using dir = tempDir("harbor-timeout");
      const f = (n: string) => join(dir.path, n);
      writeFileSync(
        f("suite.yaml"),
        "name: slow\ntasks: [fix-add]\nagent_timeout: 2s\nvariants:\n  - {name: sleeper, harness: command, command: 'touch /app/started && sleep 60'}\n",
      );
      const r = await agentEval(
        [
          "suite",
          f("suite.yaml"),
          "--tasks",
          FIXTURES,
          ...(await imageMap()),
          "--trials",
          f("t.jsonl"),
          "--output",
          "json",
        ],
        dir.path,
      );
      const log = readFileSync(join(dir.path, "t.logs", "fix-add", "sleeper", "0.log"), "utf8");
      expect({
        exitCode: r.exitCode,
        trials: loadTrials(f("t.jsonl")).map((t) => [t.pass, t.reward, t.error, t.wallMs < 10_000]),
        phases: log
          .split("\n")
          .filter((l) => l.startsWith("== "))
          .map((l) => l.replace(/, \d+ ms$/, "")),
      }).toEqual({
        exitCode: 0,
        trials: [[false, 0, "agent: timed out after 2s", true]],
        phases: ["== agent: timed out", "== verifier: exit 0"],
      });
    },
    LIMIT_MS,
  );

  test(
    "allow_internet: refused under --network none, named in the scorecard under --network bridge",
    async () => {
      using dir = tempDir("harbor-internet");
      const f = (n: string) => join(dir.path, n);
      writeFileSync(
        f("suite.yaml"),
        "name: internet\ntasks: [needs-internet]\nvariants:\n  - {name: nop, harness: nop}\n  - {name: oracle, harness: oracle}\n",
      );
      const run = (network: string) =>
        agentEval(
          [
            "suite",
            f("suite.yaml"),
            "--tasks",
            FIXTURES,
            ...map,
            "--network",
            network,
            "--scorecard",
            f("sc.json"),
            "--trials",
            f(`${network}.jsonl`),
          ],
          dir.path,
        );
      const map = await imageMap();
      const none = await run("none");
      const bridge = await run("bridge");
      const sc = loadScorecard(f("sc.json"));
      expect({
        none,
        bridge: bridge.exitCode,
        internet: sc.internet,
        trials: (sc.trials ?? []).map((t) => [t.variant, t.pass, t.infra ?? null, t.error ?? null]),
      }).toEqual({
        none: {
          exitCode: 1,
          stdout: "",
          stderr:
            "error: suite internet: every task is skipped: needs-internet: task.toml: environment.allow_internet: the task reaches the internet; run with --network bridge to let it\n",
        },
        bridge: 0,
        internet: ["needs-internet"],
        trials: [
          ["nop", false, null, null],
          ["oracle", true, null, null],
        ],
      });
    },
    LIMIT_MS,
  );
});

// Harbor datasets on the Docker engine (issue 22): `agent-eval tasks check` over a dataset folder and
// single tasks goes on past every task it cannot run, each a row with its one line (multi-container,
// a base image not here, the internet, a heredoc without BuildKit) while the others are checked; a
// failed build is one row naming the step and instruction; a task's prebuilt docker_image is used
// when it is here and its Dockerfile built when not; `agent-eval suite` runs a dataset's good tasks.
import { expect, test } from "bun:test";
import { appendFileSync, cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { dockerCli } from "../../../lib/isolation/docker/engine.ts";
import { resolveBaseImage } from "../../../lib/suite/agents/image.ts";
import { TASK_IMAGE_REPO, taskImage } from "../../../lib/suite/harbor/image.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import { loadTrials } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const LIMIT_MS = 600_000;

/** The fixtures say FROM ubuntu:24.04; offline, that is the project's base image. */
async function base(): Promise<string> {
  return resolveBaseImage(dockerCli());
}

async function agentEval(args: string[], cwd: string) {
  const r = await run([process.execPath, ENTRY, ...args], { cwd });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

test(
  "tasks check goes on past every task it cannot run; a failed build is one row naming its step",
  async () => {
    using dir = tempDir("harbor-dataset");
    const fails = join(dir.path, "build-fails");
    cpSync(join(FIXTURES, "fix-add"), fails, { recursive: true });
    // Offline and quick: the step fails on its own, never for want of a network. (The legacy builder
    // counts its --label as one more step.)
    appendFileSync(join(fails, "environment", "Dockerfile"), "RUN test -e /proctor-not-there\n");
    writeFileSync(join(fails, "environment", "marker"), dir.path);
    const buildkit = (await run(["docker", "buildx", "version"])).exitCode === 0;
    const r = await agentEval(
      [
        "tasks",
        "check",
        join(FIXTURES, "tb-dataset"),
        join(FIXTURES, "layouts", "compose-data"),
        ...(buildkit ? [] : [join(FIXTURES, "layouts", "heredoc")]),
        join(FIXTURES, "missing-base"),
        join(FIXTURES, "needs-internet"),
        fails,
        "--offline",
        "--image-map",
        `ubuntu:24.04=${await base()}`,
      ],
      dir.path,
    );
    const row = (task: string, status: string, nop = "-", oracle = "-") =>
      `${task.padEnd(14)}  ${nop.padEnd(6)}  ${oracle.padEnd(6)}  ${status}`;
    expect(r).toEqual({
      exitCode: 1,
      stdout: [
        row("task", "status", "nop", "oracle"),
        row("hello-file", "ok", "fail", "pass"),
        row("sum-numbers", "ok", "fail", "pass"),
        row(
          "web-stack",
          "skipped: environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
        ),
        row("compose-data", "ok", "fail", "pass"),
        ...(buildkit
          ? []
          : [
              row(
                "heredoc",
                "skipped: environment/Dockerfile: line 3: a heredoc (RUN <<EOF) needs BuildKit, and this Docker client has none (docker buildx version fails); install the buildx plugin or write the step without a heredoc",
              ),
            ]),
        row(
          "missing-base",
          'skipped: environment/Dockerfile: FROM image "proctor-no-such-base:1.0" (line 1) is not on this machine; load it (docker pull proctor-no-such-base:1.0) or map it with --image-map proctor-no-such-base:1.0=LOCAL',
        ),
        row(
          "needs-internet",
          "skipped: task.toml: environment.allow_internet: the task reaches the internet; run with --network bridge to let it",
        ),
        row(
          "build-fails",
          `broken: nop: build: Cannot build Harbor task "${fails}/environment/Dockerfile": step 4/${buildkit ? 4 : 5} (RUN test -e /proctor-not-there) exited 1`,
          "infra",
          "infra",
        ),
        `3 of ${buildkit ? 7 : 8} tasks ok, 1 broken, ${buildkit ? 3 : 4} skipped`,
        "",
      ].join("\n"),
      stderr: "",
    });
  },
  LIMIT_MS,
);

test(
  "a prebuilt docker_image is used when it is here (or mapped there); its Dockerfile is built when not",
  async () => {
    const task = loadHarborTask(join(FIXTURES, "layouts", "prebuilt-image"));
    const local = await base();
    const builds = (calls: string[][]) => calls.filter((c) => c[0] === "build").length;
    const mapped: string[][] = [];
    const here = await taskImage(
      dockerCli("docker", (argv) => mapped.push(argv)),
      task,
      new Map([["proctor-fixtures/prebuilt-image:1.0", local]]),
    );
    // Kept: content-hashed images are shared (partial-credit's Dockerfile builds the same one).
    const built = await taskImage(dockerCli(), task, new Map([["ubuntu:24.04", local]]));
    expect({
      here: [here.tag, here.reused, builds(mapped)],
      built: built.tag.split(":")[0],
    }).toEqual({
      here: [local, true, 0],
      built: TASK_IMAGE_REPO,
    });
  },
  LIMIT_MS,
);

test(
  "agent-eval suite runs a dataset's good tasks; what it cannot run is set aside, not the run",
  async () => {
    using dir = tempDir("harbor-dataset-suite");
    const f = (n: string) => join(dir.path, n);
    writeFileSync(
      f("suite.yaml"),
      "name: tb\ntasks: [tb-dataset, needs-internet]\nvariants:\n  - {name: nop, harness: nop}\n  - {name: oracle, harness: oracle}\n",
    );
    const r = await agentEval(
      [
        "suite",
        f("suite.yaml"),
        "--tasks",
        FIXTURES,
        "--offline",
        "--image-map",
        `ubuntu:24.04=${await base()}`,
        "--trials",
        f("t.jsonl"),
        "--output",
        "json",
      ],
      dir.path,
    );
    expect({
      exitCode: r.exitCode,
      trials: loadTrials(f("t.jsonl"))
        .map((t) => `${t.task} ${t.variant} ${t.pass} ${t.error ?? ""}`.trim())
        .sort(),
    }).toEqual({
      exitCode: 0,
      trials: [
        "hello-file nop false",
        "hello-file oracle true",
        "sum-numbers nop false",
        "sum-numbers oracle true",
      ],
    });
  },
  LIMIT_MS,
);

// One graded trial under the Docker runner (the offline proctor-base image, no network): the starting
// state snapshotted in its own container after setup, the stub agent's fix in the next, then the
// after-snapshot, the command grader and the file grader each in a fresh read-only container.
// Kept to one trial: each phase is a container.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { BASE_IMAGE } from "../../../lib/suite/agents/image.ts";
import { beginGrading, type Exec } from "../../../lib/suite/graders/index.ts";
import type { Grade } from "../../../lib/suite/scorecard/schema.ts";
import { loadTask } from "../../../lib/suite/task.ts";
import { runTrial } from "../../../lib/suite/trial.ts";
import { tempDir } from "../../support/tmp.ts";
import { ADD_REPO, evalsTree, stubDriver } from "../_support.ts";

const GRADED = `id: fix-add
repo: repo
prompt: fix add.sh
setup: ["test -f add.sh"]
check: sh test.sh
graders:
  - {type: command, run: "grep -q '1 + ' add.sh"}
  - {type: file, path: add.sh, contains: ["$1 + $2"]}
  - {type: diff, max_files_changed: 1, must_change: [add.sh], must_not_change: [test.sh]}
`;

/** The newest proctor-base:<hash> on the engine; fails (never skips) with the build command when none. */
async function baseImage(): Promise<string> {
  const r = await run(["docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}}", BASE_IMAGE]);
  const tag = r.stdout.split("\n").find((l) => l.startsWith(`${BASE_IMAGE}:`) && !l.endsWith(":<none>"));
  if (!tag) throw new Error("Missing image proctor-base: run `npx bun evals/images/build.ts`");
  return tag;
}

test("a graded trial under Docker: every grader in its own container, all pass on the fix", async () => {
  using dir = tempDir("graded-docker");
  const task = loadTask(evalsTree(dir.path).task("fix-add", GRADED, ADD_REPO));
  // The Docker runner has no host layout: recorded by wrapping runPhase alone.
  const docker = dockerRunner();
  const calls: string[] = [];
  const rec = {
    prepare: docker.prepare.bind(docker),
    dispose: docker.dispose.bind(docker),
    runPhase: (ws: Parameters<typeof docker.runPhase>[0], spec: Parameters<typeof docker.runPhase>[1]) => {
      calls.push(`${spec.phase}:${(spec.commands?.[0] ?? spec.argv).slice(0, 2).join(" ")}`);
      return docker.runPhase(ws, spec);
    },
  };
  const trial = await runTrial(
    { task, variant: { name: "fixer", harness: "claude", model: "fixer" }, repeat: 0 },
    {
      runId: "graded-docker",
      runner: rec,
      driver: stubDriver(),
      image: await baseImage(),
      repoDir: task.repoDir ?? undefined,
      network: "none",
      passEnv: [],
      modelUrl: "",
      agentModelUrl: "",
      apiKeyEnvName: "PROCTOR_STUB_KEY",
      workDir: "/work",
      home: "/tmp/home",
    },
  );
  expect({
    pass: trial.pass,
    error: trial.error,
    grades: trial.grades,
    phases: calls,
  }).toEqual({
    pass: true,
    error: undefined,
    grades: [
      { grader: "command", pass: true },
      { grader: "file:add.sh", pass: true },
      { grader: "diff", pass: true, detail: "1 files changed" },
    ],
    phases: [
      "setup:sh -c",
      "check:sh -c",
      "agent:sh -c",
      "check:sh -c",
      "check:sh -c",
      "check:sh -c",
      "check:cat --",
    ],
  });
});

test("the snapshot under Docker (dash, GNU tools, uid 1000): links, .git, a FIFO, a mode change and a forged name are changes", async () => {
  using dir = tempDir("graded-docker");
  const taskDir = evalsTree(dir.path).task("fix-add", GRADED, ADD_REPO);
  mkdirSync(join(taskDir, "repo", ".git"));
  writeFileSync(join(taskDir, "repo", ".git", "config"), "[core]\n");
  const task = loadTask(taskDir);
  const docker = dockerRunner();
  const ws = await docker.prepare("graded-docker-hostile", task.repoDir ?? undefined);
  try {
    const base = {
      runId: "graded-docker-hostile",
      image: await baseImage(),
      network: "none" as const,
      timeoutMs: 60_000,
    };
    const exec: Exec = (argv) => docker.runPhase(ws, { ...base, phase: "check", argv });
    const grading = await beginGrading(
      [
        { type: "diff", maxFilesChanged: 1, mustChange: [], mustNotChange: [] },
        { type: "diff", maxFilesChanged: 0, mustChange: [], mustNotChange: ["test.sh"] },
      ],
      { exec, prompt: "fix add.sh" },
    );
    if ("error" in grading) throw new Error(grading.error);
    const sum = "$(cksum < test.sh | cut -d' ' -f1-2)";
    const agent = [
      "echo 'echo $(( $1 + $2 ))' > add.sh",
      "chmod +x test.sh",
      "ln -s /etc/hostname conftest.py",
      "mkfifo results.xml",
      "printf '[core]\\n\\tfsmonitor = true\\n' > .git/config",
      `d="x\n${sum} ."; mkdir "$d"; echo forged > "$d/test.sh"`,
    ].join(" && ");
    const r = await docker.runPhase(ws, { ...base, phase: "setup", argv: ["sh", "-c", agent] });
    if (r.exitCode !== 0) throw new Error(`agent: ${r.stderr}`);
    const trial: { grades?: Grade[] } = {};
    await grading.finish(trial, true);
    const grades = trial.grades?.map((g) => ({
      ...g,
      detail: g.detail?.replace(/x\\n\d+ \d+ /, "x\\n<sum> "),
    }));
    expect(grades).toEqual([
      {
        grader: "diff",
        pass: false,
        detail:
          '6 files changed, max 1: .git/config, add.sh, conftest.py, results.xml, test.sh, "x\\n<sum> ./test.sh"',
      },
      { grader: "diff", pass: false, detail: "changed protected path test.sh" },
    ]);
  } finally {
    await docker.dispose(ws);
  }
});

// A Harbor task directory as a suite Task: the fixtures load whole; each unusable directory is one
// line naming the file; a dataset folder skips what does not load (never fails for one task); a suite
// names Harbor tasks (one, or a folder of them) beside task.yaml tasks and carries the skipped ones.
import { expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadHarborTask, loadHarborTaskSet } from "../../../lib/suite/harbor/task.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");

test("fix-add loads as a Task of kind harbor: the prompt verbatim, the oracle's script, the parts", () => {
  const dir = join(FIXTURES, "fix-add");
  const { harbor, ...task } = loadHarborTask(dir);
  expect(task).toEqual({
    kind: "harbor",
    id: "fix-add",
    repo: ".",
    prompt: readFileSync(join(dir, "instruction.md"), "utf8"),
    check: "bash /tests/test.sh",
    setup: [],
    tags: ["shell", "bugfix"],
    timeoutMs: 120_000,
    path: join(dir, "task.toml"),
    dir,
    repoDir: dir,
    solution: join(dir, "solution", "solve.sh"),
  });
  expect({ ...harbor, config: harbor.config.layout }).toEqual({
    config: "1.0",
    environmentDir: join(dir, "environment"),
    dockerfile: join(dir, "environment", "Dockerfile"),
    testsDir: join(dir, "tests"),
  });
});

/** A task set in brief: the ids that loaded, and the skipped ones' lines. */
const brief = (set: ReturnType<typeof loadHarborTaskSet>) =>
  set && { tasks: set.tasks.map((t) => t.id), skipped: set.skipped };

test.each<{ name: string; dir: string; expected: unknown }>([
  {
    name: "a Terminal-Bench style dataset: the multi-container task is skipped, the others load",
    dir: "tb-dataset",
    expected: {
      tasks: ["hello-file", "sum-numbers"],
      skipped: [
        {
          task: "web-stack",
          reason:
            "environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
          broken: false,
        },
      ],
    },
  },
  {
    name: "Harbor's own layouts: compose data, heredoc, helpers, no shebang, prebuilt; [[steps]] skipped",
    dir: "layouts",
    expected: {
      tasks: ["compose-data", "heredoc", "multi-reward", "no-shebang", "prebuilt-image", "solution-helper"],
      skipped: [
        {
          task: "multi-step",
          reason: "task.toml: steps: multi-step tasks ([[steps]]) are not supported here",
          broken: false,
        },
      ],
    },
  },
  { name: "a folder without any task", dir: "fix-add/tests", expected: null },
])("a dataset folder: $name", ({ dir, expected }) => {
  expect(brief(loadHarborTaskSet(join(FIXTURES, dir))) as unknown).toEqual(expected);
});

test("a dataset never fails for one task; a task named directly is skipped, or thrown when strict", () => {
  using tmp = tempDir("harbor-set");
  for (const t of ["a-good", "b-bad"])
    cpSync(join(FIXTURES, "fix-add"), join(tmp.path, t), { recursive: true });
  writeFileSync(join(tmp.path, "b-bad", "task.toml"), "[agent]\ntimeout_sec = -5\n");
  const bad = join(tmp.path, "b-bad");
  let strict = "";
  try {
    loadHarborTaskSet(bad, { strict: true });
  } catch (error) {
    strict = (error as Error).message.replace(tmp.path, "TMP");
  }
  const skip = { task: "b-bad", reason: "task.toml: agent.timeout_sec: expected > 0, got -5", broken: true };
  expect({
    dataset: brief(loadHarborTaskSet(tmp.path)),
    direct: brief(loadHarborTaskSet(bad)),
    strict,
  }).toEqual({
    dataset: { tasks: ["a-good"], skipped: [skip] },
    direct: { tasks: [], skipped: [skip] },
    strict: 'Cannot load Harbor task "TMP/b-bad/task.toml": agent.timeout_sec: expected > 0, got -5',
  });
});

test("Harbor's own layouts load with their parts", () => {
  const at = (n: string) => loadHarborTask(join(FIXTURES, "layouts", n));
  const prebuilt = at("prebuilt-image").harbor;
  expect({
    prebuilt: [prebuilt.config.dockerImage, prebuilt.dockerfile],
    composeData: at("compose-data").harbor.dockerfile,
    helper: at("solution-helper").solution,
  }).toEqual({
    prebuilt: [
      "proctor-fixtures/prebuilt-image:1.0",
      join(FIXTURES, "layouts", "prebuilt-image", "environment", "Dockerfile"),
    ],
    composeData: join(FIXTURES, "layouts", "compose-data", "environment", "Dockerfile"),
    helper: join(FIXTURES, "layouts", "solution-helper", "solution", "solve.sh"),
  });
});

/** A copy of fix-add with `change` applied, loaded; the error's message when it does not load. */
function loadChanged(change: (dir: string) => void): string {
  using tmp = tempDir("harbor-task");
  const dir = join(tmp.path, "t");
  cpSync(join(FIXTURES, "fix-add"), dir, { recursive: true });
  change(dir);
  try {
    loadHarborTask(dir);
    return "loaded";
  } catch (error) {
    return (error as Error).message.replace(tmp.path, "TMP");
  }
}

test.each([
  {
    name: "a docker-compose environment",
    change: (d: string) => writeFileSync(join(d, "environment", "docker-compose.yaml"), "services: {}\n"),
    line: 'Cannot load Harbor task "TMP/t/environment/docker-compose.yaml": multi-container environments (docker compose) are not supported here',
  },
  ...["compose.yaml", "docker-compose.yml", "data/docker-compose.yaml"].map((file) => ({
    name: `environment/${file}: task data (Harbor reads only environment/docker-compose.yaml)`,
    change: (d: string) => {
      mkdirSync(join(d, "environment", "data"), { recursive: true });
      writeFileSync(join(d, "environment", file), "services: {}\n");
    },
    line: "loaded",
  })),
  {
    name: "[[steps]] with no instruction.md (each step has its own): refused by that name",
    change: (d: string) => {
      rmSync(join(d, "instruction.md"));
      writeFileSync(join(d, "task.toml"), '[[steps]]\nname = "one"\n');
    },
    line: 'Cannot load Harbor task "TMP/t/task.toml": steps: multi-step tasks ([[steps]]) are not supported here',
  },
  {
    name: "no instruction.md",
    change: (d: string) => rmSync(join(d, "instruction.md")),
    line: 'Cannot load Harbor task "TMP/t/instruction.md": no such file (the agent\'s prompt)',
  },
  {
    name: "an empty instruction.md",
    change: (d: string) => writeFileSync(join(d, "instruction.md"), "\n  \n"),
    line: 'Cannot load Harbor task "TMP/t/instruction.md": empty (the agent\'s prompt)',
  },
  {
    name: "no tests/test.sh",
    change: (d: string) => rmSync(join(d, "tests", "test.sh")),
    line: 'Cannot load Harbor task "TMP/t/tests/test.sh": no such file (the verifier)',
  },
  {
    name: "no Dockerfile and no docker_image",
    change: (d: string) => rmSync(join(d, "environment", "Dockerfile")),
    line: 'Cannot load Harbor task "TMP/t/environment/Dockerfile": no such file, and task.toml names no environment.docker_image',
  },
  {
    name: "a bad task.toml field",
    change: (d: string) => writeFileSync(join(d, "task.toml"), '[verifier]\ntimeout_sec = "soon"\n'),
    line: 'Cannot load Harbor task "TMP/t/task.toml": verifier.timeout_sec: expected a number, got "soon"',
  },
  {
    name: "no solution (oracle cannot run, the task still loads)",
    change: (d: string) => rmSync(join(d, "solution"), { recursive: true }),
    line: "loaded",
  },
])("$name", ({ change, line }) => {
  expect(loadChanged(change)).toEqual(line);
});

test("a suite names a Harbor task and a folder of them beside a task.yaml task", () => {
  using tmp = tempDir("harbor-suite");
  const tasks = join(tmp.path, "tasks");
  mkdirSync(join(tasks, "dataset"), { recursive: true });
  cpSync(join(FIXTURES, "fix-add"), join(tasks, "fix-add"), { recursive: true });
  for (const t of ["partial-credit", "needs-internet"])
    cpSync(join(FIXTURES, t), join(tasks, "dataset", t), { recursive: true });
  cpSync(join(REPO_ROOT, "evals", "tasks", "fix-add"), join(tasks, "yaml-task"), { recursive: true });
  writeFileSync(
    join(tasks, "yaml-task", "task.yaml"),
    readFileSync(join(tasks, "yaml-task", "task.yaml"), "utf8").replace("id: fix-add", "id: yaml-fix-add"),
  );
  const suite = join(tmp.path, "suite.yaml");
  writeFileSync(
    suite,
    "name: h\ntasks: [fix-add, dataset, yaml-task]\nreward_threshold: 0.5\nagent_timeout: 30m\nverifier_timeout: 90s\nvariants:\n  - {name: a, harness: nop}\n",
  );
  const s = loadSuite(suite, { tasksDir: tasks });
  expect({
    tasks: s.tasks.map((t) => [t.id, (t as { kind?: string }).kind ?? "yaml"]),
    threshold: s.rewardThreshold,
    timeouts: [s.agentTimeoutMs, s.verifierTimeoutMs],
  }).toEqual({
    tasks: [
      ["fix-add", "harbor"],
      ["needs-internet", "harbor"],
      ["partial-credit", "harbor"],
      ["yaml-fix-add", "yaml"],
    ],
    threshold: 0.5,
    timeouts: [1_800_000, 90_000],
  });
  writeFileSync(join(tasks, "fix-add", "environment", "docker-compose.yaml"), "services: {}\n");
  expect(() => loadSuite(suite, { tasksDir: tasks })).toThrow(
    `suite h: Cannot load Harbor task "${join(tasks, "fix-add", "environment", "docker-compose.yaml")}": multi-container environments (docker compose) are not supported here`,
  );
});

test("a suite over a dataset keeps its other tasks and carries the skipped ones; all skipped is refused", () => {
  using tmp = tempDir("harbor-suite-skip");
  const tasks = join(tmp.path, "tasks");
  cpSync(join(FIXTURES, "tb-dataset"), join(tasks, "tb"), { recursive: true });
  const suite = join(tmp.path, "suite.yaml");
  writeFileSync(suite, "name: h\ntasks: [tb]\nvariants:\n  - {name: a, harness: nop}\n");
  const s = loadSuite(suite, { tasksDir: tasks });
  const web = {
    task: "web-stack",
    reason:
      "environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
    broken: false,
  };
  for (const t of ["hello-file", "sum-numbers"]) rmSync(join(tasks, "tb", t, "tests"), { recursive: true });
  let all = "";
  try {
    loadSuite(suite, { tasksDir: tasks });
  } catch (error) {
    all = (error as Error).message;
  }
  expect({ tasks: s.tasks.map((t) => t.id), skipped: s.skipped, all }).toEqual({
    tasks: ["hello-file", "sum-numbers"],
    skipped: [web],
    all: `${suite}:2:8: suite h: tasks: every task is skipped: hello-file: tests/test.sh: no such file (the verifier)`,
  });
});

test.each([
  {
    name: "an agent_timeout that is no duration",
    yaml: "agent_timeout: soon",
    line: ':4:16: suite h: agent_timeout: expected a duration like "10m", "90s" or "1h30m", got "soon"',
  },
  {
    name: "a reward_threshold that is no number",
    yaml: "reward_threshold: high",
    line: ':4:19: suite h: reward_threshold: expected a number, got "high"',
  },
])("a suite refuses $name in one line", ({ yaml, line }) => {
  using tmp = tempDir("harbor-suite-keys");
  mkdirSync(join(tmp.path, "tasks"));
  cpSync(join(FIXTURES, "fix-add"), join(tmp.path, "tasks", "fix-add"), { recursive: true });
  const suite = join(tmp.path, "suite.yaml");
  writeFileSync(suite, `name: h\ntasks: [fix-add]\nvariants: [{name: a, harness: nop}]\n${yaml}\n`);
  expect(() => loadSuite(suite, { tasksDir: join(tmp.path, "tasks") })).toThrow(`${suite}${line}`);
});

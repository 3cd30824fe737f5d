// `agent-eval tasks check`'s bad command lines, and `agent-eval suite --local` over Harbor tasks: one
// `error:` line, exit 1, nothing on stdout, before any engine or container is touched.
import { expect, test } from "bun:test";
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");

test.each([
  { name: "no directory", args: [], line: "missing the task directories: agent-eval tasks check DIR..." },
  {
    name: "a directory without Harbor tasks",
    args: [join(FIXTURES, "fix-add", "tests")],
    line: `Cannot check "${join(FIXTURES, "fix-add", "tests")}": no task.toml in it nor in its folders`,
  },
  {
    name: "a bad --image-map",
    args: [join(FIXTURES, "fix-add"), "--image-map", "ubuntu"],
    line: '--image-map: expected REF=LOCAL (e.g. ubuntu:24.04=mirror/ubuntu:24.04), got "ubuntu"',
  },
  {
    name: "a bad --network",
    args: [join(FIXTURES, "fix-add"), "--network", "host"],
    line: '--network: expected none or bridge, got "host"',
  },
])("tasks check refuses $name", async ({ args, line }) => {
  const r = await run([process.execPath, ENTRY, "tasks", "check", ...args]);
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
    exitCode: 1,
    stdout: "",
    stderr: `error: ${line}\n`,
  });
});

test.each([
  { name: "a Harbor task alone", tasks: "[fix-add]", refused: "fix-add" },
  { name: "the first of two Harbor tasks", tasks: "[partial-credit, fix-add]", refused: "partial-credit" },
])(
  "suite --local refuses $name up front, naming it: Harbor tasks need Docker",
  async ({ tasks, refused }) => {
    using tmp = tempDir("harbor-local");
    const suite = join(tmp.path, "s.yaml");
    writeFileSync(suite, `name: h\ntasks: ${tasks}\nvariants:\n  - {name: nop, harness: nop}\n`);
    const trials = join(tmp.path, "t.jsonl");
    const r = await run([
      process.execPath,
      ENTRY,
      "suite",
      suite,
      "--local",
      "--tasks",
      FIXTURES,
      "--trials",
      trials,
    ]);
    expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, trials: existsSync(trials) }).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: Cannot run Harbor task "${join(FIXTURES, refused, "task.toml")}" with --local: Harbor tasks need Docker (environment image, agent and verifier in one container); run without --local\n`,
      trials: false,
    });
  },
);

test("tasks check lists what it cannot run, row by row, and needs no engine when that is every task", async () => {
  const r = await run([
    process.execPath,
    ENTRY,
    "tasks",
    "check",
    join(FIXTURES, "layouts", "multi-step"),
    join(FIXTURES, "tb-dataset", "web-stack"),
    "--offline",
  ]);
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
    exitCode: 0,
    stdout: [
      "task        nop     oracle  status",
      "multi-step  -       -       skipped: task.toml: steps: multi-step tasks ([[steps]]) are not supported here",
      "web-stack   -       -       skipped: environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
      "0 of 2 tasks ok, 2 skipped",
      "",
    ].join("\n"),
    stderr: "",
  });
});

test("a suite whose every task is skipped is refused in one line, before any engine", async () => {
  using tmp = tempDir("harbor-all-skipped");
  const tasks = join(tmp.path, "tasks", "set");
  cpSync(join(FIXTURES, "tb-dataset", "web-stack"), join(tasks, "web-stack"), { recursive: true });
  cpSync(join(FIXTURES, "layouts", "multi-step"), join(tasks, "multi-step"), { recursive: true });
  const suite = join(tmp.path, "s.yaml");
  writeFileSync(suite, "name: h\ntasks: [set]\nvariants:\n  - {name: nop, harness: nop}\n");
  const r = await run([
    process.execPath,
    ENTRY,
    "suite",
    suite,
    "--tasks",
    join(tmp.path, "tasks"),
    "--offline",
  ]);
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
    exitCode: 1,
    stdout: "",
    stderr: `error: ${suite}:2:8: suite h: tasks: every task is skipped: multi-step: task.toml: steps: multi-step tasks ([[steps]]) are not supported here\n`,
  });
});

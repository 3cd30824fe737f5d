import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { checkRepo, loadTask, parseDuration, TaskFile, taskJsonSchema } from "../../lib/suite/task.ts";
import { tempDir } from "../support/tmp.ts";
import { configOutcome } from "./_support.ts";

const REPO = join(import.meta.dirname, "..", "..");
const TASKS = join(import.meta.dirname, "..", "fixtures", "suite", "evals", "tasks");

const GOOD = "id: t\nrepo: repo\nprompt: p\ncheck: c\n";

test("the spec's example task loads with its defaults applied", () => {
  const dir = join(TASKS, "fix-failing-go-test");
  expect(loadTask(dir)).toEqual({
    id: "fix-failing-go-test",
    repo: "repo",
    prompt:
      "`go test ./...` is failing in this repo. Find the bug in the non-test code\nand fix it. Do not modify the tests.\n",
    check: "go test ./...",
    timeout: "10m",
    budget_usd: 1,
    max_turns: 20,
    setup: [],
    tags: ["go", "bugfix", "smoke"],
    timeoutMs: 600_000,
    path: join(dir, "task.yaml"),
    dir,
    repoDir: join(dir, "repo"),
  });
});

describe("loadTask reads what the original read", () => {
  const cases = [
    {
      name: "minimal: no timeout means 10m, no setup or tags",
      body: GOOD,
      want: { id: "t", setup: [], tags: [], timeoutMs: 600_000 },
    },
    {
      name: "null values count as absent",
      body: `${GOOD}setup: ~\ntags:\ntimeout: null\n`,
      want: { id: "t", setup: [], tags: [], timeoutMs: 600_000 },
    },
    {
      name: "plain scalars in string fields keep their source text",
      body: "id: 123\nrepo: repo\nprompt: true\ncheck: 2.10\nsetup: [0x1F]\ntags: [1, true, 2.10]\n",
      want: { id: "123", setup: ["0x1F"], tags: ["1", "true", "2.10"], timeoutMs: 600_000 },
    },
    {
      name: "timeout 0 means the default",
      body: `${GOOD}timeout: "0"\n`,
      want: { id: "t", setup: [], tags: [], timeoutMs: 600_000 },
    },
    {
      name: "setup, a compound timeout and an explicit version 1",
      body: `version: 1\n${GOOD}setup: [make deps, "echo ok"]\ntimeout: 1h30m\n`,
      want: { id: "t", setup: ["make deps", "echo ok"], tags: [], timeoutMs: 5_400_000 },
    },
    {
      name: "merge keys, as Go's yaml.v3 read them",
      body: "<<: {id: t, repo: repo, tags: [a]}\nprompt: p\ncheck: c\n",
      want: { id: "t", setup: [], tags: ["a"], timeoutMs: 600_000 },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("task");
      mkdirSync(join(tmp.path, "repo"));
      writeFileSync(join(tmp.path, "task.yaml"), c.body);
      const got = (() => {
        try {
          const t = loadTask(tmp.path);
          return { id: t.id, setup: t.setup, tags: t.tags, timeoutMs: t.timeoutMs };
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(got).toEqual(c.want);
    });
  }
});

describe("loadTask refuses a bad task with one line: file, line:column, task, what was expected", () => {
  const cases: { name: string; body: string | null; message: string }[] = [
    {
      name: "task without check",
      body: "id: t\nrepo: repo\nprompt: p\n",
      message: "<T>/task.yaml:1:1: task t: check is required",
    },
    {
      name: "blank check",
      body: 'id: t\nrepo: repo\nprompt: p\ncheck: "  "\n',
      message: "<T>/task.yaml:4:8: task t: check is required",
    },
    {
      name: "empty prompt",
      body: 'id: t\nrepo: repo\nprompt: ""\ncheck: c\n',
      message: "<T>/task.yaml:3:9: task t: prompt is required",
    },
    {
      name: "no id",
      body: "repo: repo\nprompt: p\ncheck: c\n",
      message: "<T>/task.yaml:1:1: task: id is required",
    },
    {
      name: "no repo",
      body: "id: t\nprompt: p\ncheck: c\n",
      message: "<T>/task.yaml:1:1: task t: repo is required",
    },
    { name: "missing task file", body: null, message: 'Cannot read task "<T>/task.yaml": no such file' },
    {
      name: "unknown YAML key",
      body: `${GOOD}bogus: 1\n`,
      message: '<T>/task.yaml:5:1: task t: unknown key "bogus"',
    },
    {
      // issue 26: a misspelt key is named with the closest one, as a misspelt flag or tool is.
      name: "a misspelt key: the closest one",
      body: `${GOOD}timout: 1m\n`,
      message: '<T>/task.yaml:5:1: task t: unknown key "timout": did you mean timeout?',
    },
    {
      name: "a misspelt key inside a grader: the closest one of that grader",
      body: `${GOOD}graders: [{type: file, path: a, exsits: true}]\n`,
      message: '<T>/task.yaml:5:33: task t: graders[0]: unknown key "exsits": did you mean exists?',
    },
    {
      name: "an unknown key inside a grader",
      body: `${GOOD}graders: [{type: file, path: a, bogus: 1}]\n`,
      message: '<T>/task.yaml:5:33: task t: graders[0]: unknown key "bogus"',
    },
    {
      name: "invalid YAML",
      body: "id: [t\nrepo: repo\n",
      message:
        "<T>/task.yaml:2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    },
    {
      name: "duplicate key",
      body: `${GOOD}id: u\n`,
      message: "<T>/task.yaml:5:1: invalid YAML: Map keys must be unique",
    },
    {
      name: "empty file",
      body: "",
      message: "<T>/task.yaml:1:1: task: expected a mapping at the top level, got an empty file",
    },
    {
      name: "a list",
      body: "- id\n",
      message: "<T>/task.yaml:1:1: task: expected a mapping at the top level, got a list",
    },
    {
      name: "timeout in words",
      body: `${GOOD}timeout: 10 minutes\n`,
      message:
        '<T>/task.yaml:5:10: task t: timeout: expected a duration like "10m", "90s" or "1h30m", got "10 minutes"',
    },
    {
      name: "timeout without a unit",
      body: `${GOOD}timeout: 600\n`,
      message:
        '<T>/task.yaml:5:10: task t: timeout: expected a duration like "10m", "90s" or "1h30m", got "600"',
    },
    {
      name: "negative timeout",
      body: `${GOOD}timeout: -5m\n`,
      message:
        '<T>/task.yaml:5:10: task t: timeout: expected a duration like "10m", "90s" or "1h30m", got "-5m"',
    },
    {
      name: "timeout beyond Go's range",
      body: `${GOOD}timeout: 3000000h\n`,
      message: '<T>/task.yaml:5:10: task t: timeout: duration out of range: "3000000h"',
    },
    {
      name: "negative budget",
      body: `${GOOD}budget_usd: -1\n`,
      message: "<T>/task.yaml:5:13: task t: budget_usd: expected >= 0, got -1",
    },
    {
      name: "budget as a string",
      body: `${GOOD}budget_usd: "1.0"\n`,
      message: '<T>/task.yaml:5:13: task t: budget_usd: expected a number, got "1.0"',
    },
    {
      name: "infinite budget",
      body: `${GOOD}budget_usd: .inf\n`,
      message: "<T>/task.yaml:5:13: task t: budget_usd: expected a number, got Infinity",
    },
    {
      name: "negative max_turns",
      body: `${GOOD}max_turns: -1\n`,
      message: "<T>/task.yaml:5:12: task t: max_turns: expected >= 0, got -1",
    },
    {
      name: "fractional max_turns",
      body: `${GOOD}max_turns: 1.5\n`,
      message: "<T>/task.yaml:5:12: task t: max_turns: expected an integer, got 1.5",
    },
    {
      name: "tags not a list",
      body: `${GOOD}tags: go\n`,
      message: '<T>/task.yaml:5:7: task t: tags: expected a list, got "go"',
    },
    {
      name: "a tag that is a list",
      body: `${GOOD}tags: [go, [x]]\n`,
      message: "<T>/task.yaml:5:12: task t: tags[1]: expected a string, got a list",
    },
    {
      name: "setup not a list",
      body: `${GOOD}setup: make\n`,
      message: '<T>/task.yaml:5:8: task t: setup: expected a list, got "make"',
    },
    {
      name: "version 2",
      body: `version: 2\n${GOOD}`,
      message: "<T>/task.yaml:1:10: task t: version: expected one of 1, got 2",
    },
    {
      name: "self-referencing alias",
      body: "a: &x [*x]\n",
      message: "<T>/task.yaml: invalid YAML: an alias refers to itself",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("task");
      mkdirSync(join(tmp.path, "repo"));
      if (c.body !== null) writeFileSync(join(tmp.path, "task.yaml"), c.body);
      expect(configOutcome(() => loadTask(tmp.path), tmp.path)).toEqual(c.message);
    });
  }

  test("not UTF-8", () => {
    using tmp = tempDir("task");
    writeFileSync(join(tmp.path, "task.yaml"), Buffer.from([0x69, 0x64, 0x3a, 0x20, 0xff, 0x0a]));
    expect(configOutcome(() => loadTask(tmp.path), tmp.path)).toEqual(
      'Cannot read task "<T>/task.yaml": not valid UTF-8',
    );
  });
});

test("repo rules: the original's TestCheckRepoAndRepoDir table, through loadTask", () => {
  using tmp = tempDir("task-repo");
  const task = join(tmp.path, "task");
  const outside = join(tmp.path, "secret");
  mkdirSync(join(task, "repo"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(task, "file.txt"), "");
  symlinkSync(outside, join(task, "link"));
  const repos = [
    "repo",
    "https://github.com/a/b.git",
    "git@github.com:a/b.git",
    "../secret",
    "repo/../../secret",
    outside,
    "link",
    "file:///etc",
    "ext::sh -c id",
    "ssh://host/x",
    "-oProxy=x",
    "~/.aws",
    "missing",
    "file.txt",
  ];
  const got = repos.map((repo) => {
    writeFileSync(join(task, "task.yaml"), `id: t\nrepo: ${JSON.stringify(repo)}\nprompt: p\ncheck: c\n`);
    const result = configOutcome(() => loadTask(task).repoDir, tmp.path);
    return { repo: repo.replaceAll(tmp.path, "<T>"), result, syntax: checkRepo(repo) };
  });
  const at = "<T>/task/task.yaml:2:7: task t: repo";
  expect(got).toEqual([
    { repo: "repo", result: "ok", syntax: null },
    { repo: "https://github.com/a/b.git", result: "ok", syntax: null },
    { repo: "git@github.com:a/b.git", result: "ok", syntax: null },
    { repo: "../secret", result: `${at} "../secret": escapes <T>/task`, syntax: null },
    { repo: "repo/../../secret", result: `${at} "repo/../../secret": escapes <T>/task`, syntax: null },
    {
      repo: "<T>/secret",
      result: `${at} "<T>/secret": absolute paths are not allowed`,
      syntax: "absolute paths are not allowed",
    },
    { repo: "link", result: `${at} "link": escapes <T>/task`, syntax: null },
    {
      repo: "file:///etc",
      result: `${at} "file:///etc": only https:// and git@ URLs are allowed`,
      syntax: "only https:// and git@ URLs are allowed",
    },
    {
      repo: "ext::sh -c id",
      result: `${at} "ext::sh -c id": only https:// and git@ URLs are allowed`,
      syntax: "only https:// and git@ URLs are allowed",
    },
    {
      repo: "ssh://host/x",
      result: `${at} "ssh://host/x": only https:// and git@ URLs are allowed`,
      syntax: "only https:// and git@ URLs are allowed",
    },
    {
      repo: "-oProxy=x",
      result: `${at} "-oProxy=x": must not start with '-'`,
      syntax: "must not start with '-'",
    },
    {
      repo: "~/.aws",
      result: `${at} "~/.aws": absolute paths are not allowed`,
      syntax: "absolute paths are not allowed",
    },
    { repo: "missing", result: `${at} "missing": no such file or directory under <T>/task`, syntax: null },
    { repo: "file.txt", result: `${at} "file.txt": not a directory`, syntax: null },
  ]);
});

test("parseDuration: the Go time.ParseDuration forms a task uses", () => {
  const inputs = [
    "10m",
    "90s",
    "1h30m",
    "1.5h",
    "500ms",
    "0",
    "0s",
    ".5s",
    "1h0m0s",
    "10",
    "",
    "-1m",
    "1d",
    "m",
    "1 m",
  ];
  expect(inputs.map((s) => [s, parseDuration(s)])).toEqual([
    ["10m", 600_000],
    ["90s", 90_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["0", 0],
    ["0s", 0],
    [".5s", 500],
    ["1h0m0s", 3_600_000],
    ["10", null],
    ["", null],
    ["-1m", null],
    ["1d", null],
    ["m", null],
    ["1 m", null],
  ]);
});

test("every task fixture parses with the TaskFile schema as plain YAML data", () => {
  const names = ["fix-failing-go-test", "add-cli-flag", "refactor-rename"];
  const got = names.map((name) => {
    const data = parse(readFileSync(join(TASKS, name, "task.yaml"), "utf8"));
    return { name, success: TaskFile.safeParse(data).success };
  });
  expect(got).toEqual(names.map((name) => ({ name, success: true })));
});

test("schemas/task.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO, "schemas", "task.schema.json"), "utf8"));
  expect(committed).toEqual(taskJsonSchema());
});

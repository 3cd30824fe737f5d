import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadSuite, type Suite, SuiteFile, suiteJsonSchema } from "../../lib/suite/suite.ts";
import { loadTask } from "../../lib/suite/task.ts";
import { tempDir } from "../support/tmp.ts";
import { configOutcome } from "./_support.ts";

const REPO = join(import.meta.dirname, "..", "..");
const EVALS = join(import.meta.dirname, "..", "fixtures", "suite", "evals");

/** A temp evals tree: tasks/a (a good task) and suites/, plus any extra files. */
function evalsTree(root: string): { suites: string; write: (name: string, body: string) => string } {
  mkdirSync(join(root, "tasks", "a", "repo"), { recursive: true });
  writeFileSync(join(root, "tasks", "a", "task.yaml"), "id: a\nrepo: repo\nprompt: p\ncheck: c\n");
  const suites = join(root, "suites");
  mkdirSync(suites);
  return {
    suites,
    write: (name, body) => {
      writeFileSync(join(suites, name), body);
      return join(suites, name);
    },
  };
}

test("the spec's example suite loads, with its three tasks", () => {
  const path = join(EVALS, "suites", "model-upgrade.yaml");
  const suite = loadSuite(path);
  const names = ["fix-failing-go-test", "add-cli-flag", "refactor-rename"];
  expect(suite).toEqual({
    name: "model-upgrade",
    control: "sonnet-current",
    repeats: 5,
    variants: [
      { name: "sonnet-current", harness: "claude", version: "2.1.280", model: "sonnet" },
      { name: "sonnet-candidate", harness: "claude", version: "2.1.280", model: "sonnet-next" },
    ],
    taskNames: names,
    tasks: names.map((n) => loadTask(join(EVALS, "tasks", n))),
    path,
    dir: join(EVALS, "suites"),
    tasksDir: join(EVALS, "tasks"),
  });
});

describe("loadSuite defaults and compatibility", () => {
  const cases: { name: string; body: string; want: Pick<Suite, "control" | "repeats" | "variants"> }[] = [
    {
      name: "control defaults to the first variant, repeats to 1",
      body: "name: s\ntasks: [a]\nvariants: [{name: x, harness: codex}, {name: y, harness: gemini}]\n",
      want: {
        control: "x",
        repeats: 1,
        variants: [
          { name: "x", harness: "codex" },
          { name: "y", harness: "gemini" },
        ],
      },
    },
    {
      name: "repeats 0 is 1; an empty control is the default; unquoted versions keep their text",
      body: 'name: s\ntasks: [a]\ncontrol: ""\nrepeats: 0\nvariants:\n- {name: x, harness: claude, version: 2.10, model: 4}\n',
      want: {
        control: "x",
        repeats: 1,
        variants: [{ name: "x", harness: "claude", version: "2.10", model: "4" }],
      },
    },
    {
      name: "an empty settings path means none; version 1 is accepted",
      body: 'version: 1\nname: s\ntasks: [a]\nvariants: [{name: x, harness: claude, settings: ""}]\n',
      want: { control: "x", repeats: 1, variants: [{ name: "x", harness: "claude" }] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("suite");
      const { write } = evalsTree(tmp.path);
      const s = loadSuite(write("s.yaml", c.body));
      expect({ control: s.control, repeats: s.repeats, variants: s.variants }).toEqual(c.want);
    });
  }

  test("tasksDir overrides <suite dir>/../tasks", () => {
    using tmp = tempDir("suite");
    const { write } = evalsTree(tmp.path);
    const path = write("s.yaml", "name: s\ntasks: [a]\nvariants: [{name: x, harness: claude}]\n");
    mkdirSync(join(tmp.path, "other", "a"), { recursive: true });
    writeFileSync(
      join(tmp.path, "other", "a", "task.yaml"),
      "id: other\nrepo: https://x/y.git\nprompt: p\ncheck: c\n",
    );
    const s = loadSuite(path, { tasksDir: join(tmp.path, "other") });
    expect({ tasksDir: s.tasksDir, ids: s.tasks.map((t) => t.id) }).toEqual({
      tasksDir: join(tmp.path, "other"),
      ids: ["other"],
    });
  });
});

describe("loadSuite refuses a bad suite with one line: file, line:column, suite, what was expected", () => {
  const cases = [
    {
      name: "bad control",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: claude}]\ncontrol: zzz\n",
      message: '<T>/suites/s.yaml:4:10: suite x: control "zzz" is not a variant (variants: "a")',
    },
    {
      name: "unknown harness",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: vim}]\n",
      message:
        '<T>/suites/s.yaml:3:31: suite x: variants[0].harness: expected one of "claude", "codex", "gemini", "command", "nop", "oracle", got "vim"',
    },
    {
      name: "duplicate variant names",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: codex},{name: a, harness: codex}]\n",
      message: '<T>/suites/s.yaml:3:45: suite x: variants[1].name: duplicate variant name "a"',
    },
    {
      name: "empty variant name",
      body: 'name: x\ntasks: [a]\nvariants: [{name: "", harness: codex}]\n',
      message: "<T>/suites/s.yaml:3:19: suite x: variants[0].name is required",
    },
    {
      name: "skills for a harness that reads none",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: nop, skills: skills}]\n",
      message: '<T>/suites/s.yaml:3:44: suite x: variant a: harness "nop" reads no skills nor instructions',
    },
    {
      name: "skills that are not there",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: claude, skills: nope}]\n",
      message:
        "<T>/suites/s.yaml:3:47: suite x: variant a: skills: <T>/suites/nope: no such file or directory",
    },
    {
      name: "instructions at a revision outside git",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: codex, instructions: {path: AGENTS.md, ref: main}}]\n",
      message:
        '<T>/suites/s.yaml:3:52: suite x: variant a: instructions: ref "main": the suite\'s directory <T>/suites is not in a git repository',
    },
    {
      name: "a skills key of the wrong shape",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: codex, skills: {dir: x}}]\n",
      message:
        "<T>/suites/s.yaml:3:46: suite x: variants[0].skills: expected a path, or {path, ref} for a git revision, got a mapping",
    },
    {
      name: "unknown YAML key",
      body: "name: x\nbogus: 1\ntasks: [a]\nvariants: [{name: a, harness: codex}]\n",
      message: '<T>/suites/s.yaml:2:1: suite x: unknown key "bogus"',
    },
    {
      name: "unknown variant key",
      body: "name: x\ntasks: [a]\nvariants: [{name: a, harness: codex, provdier: p}]\n",
      message: '<T>/suites/s.yaml:3:38: suite x: variants[0]: unknown key "provdier": did you mean provider?',
    },
    {
      name: "no name",
      body: "tasks: [a]\nvariants: [{name: a, harness: codex}]\n",
      message: "<T>/suites/s.yaml:1:1: suite: name is required",
    },
    {
      name: "no tasks",
      body: "name: x\ntasks: []\nvariants: [{name: a, harness: codex}]\n",
      message: "<T>/suites/s.yaml:2:8: suite x: tasks: expected at least 1 item, got none",
    },
    {
      name: "no variants",
      body: "name: x\ntasks: [a]\n",
      message: "<T>/suites/s.yaml:1:1: suite x: variants is required",
    },
    {
      name: "negative repeats",
      body: "name: x\ntasks: [a]\nrepeats: -1\nvariants: [{name: a, harness: codex}]\n",
      message: "<T>/suites/s.yaml:3:10: suite x: repeats: expected >= 0, got -1",
    },
    {
      name: "a task named twice",
      body: "name: x\ntasks: [a, a]\nvariants: [{name: a, harness: codex}]\n",
      message: `<T>/suites/s.yaml:2:12: suite x: tasks[1]: task id "a" is also tasks[0]'s`,
    },
    {
      name: "missing task file",
      body: "name: x\ntasks: [a, nope]\nvariants: [{name: a, harness: codex}]\n",
      message:
        '<T>/suites/s.yaml:2:12: suite x: tasks[1]: no task "nope": <T>/tasks/nope/task.yaml does not exist',
    },
    {
      name: "a task name leaving the tasks root",
      body: "name: x\ntasks: [../suites]\nvariants: [{name: a, harness: codex}]\n",
      message:
        '<T>/suites/s.yaml:2:9: suite x: tasks[0]: "../suites" is not a directory name under <T>/tasks',
    },
    {
      name: "invalid YAML",
      body: "name: x\n  tasks: [a]\n",
      message: "<T>/suites/s.yaml:1:7: invalid YAML: Nested mappings are not allowed in compact mappings",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("suite");
      const { write } = evalsTree(tmp.path);
      expect(configOutcome(() => loadSuite(write("s.yaml", c.body)), tmp.path)).toEqual(c.message);
    });
  }

  test("a task that does not load fails the suite, naming both", () => {
    using tmp = tempDir("suite");
    const { write } = evalsTree(tmp.path);
    mkdirSync(join(tmp.path, "tasks", "b"));
    writeFileSync(join(tmp.path, "tasks", "b", "task.yaml"), "id: b\nrepo: repo\nprompt: p\n");
    const path = write("s.yaml", "name: x\ntasks: [a, b]\nvariants: [{name: a, harness: codex}]\n");
    expect(configOutcome(() => loadSuite(path), tmp.path)).toEqual(
      "suite x: <T>/tasks/b/task.yaml:1:1: task b: check is required",
    );
  });
});

test("variant settings stay inside the suite's directory (TestLoadSuiteSettingsContainment)", () => {
  using tmp = tempDir("suite-settings");
  const { suites, write } = evalsTree(tmp.path);
  writeFileSync(join(tmp.path, "secret.json"), "{}");
  writeFileSync(join(suites, "ok.json"), "{}");
  mkdirSync(join(suites, "rendered"));
  writeFileSync(join(suites, "rendered", "v.json"), "{}");
  symlinkSync(join(tmp.path, "secret.json"), join(suites, "link.json"));
  const settings = [
    "ok.json",
    "rendered/v.json",
    "../secret.json",
    join(tmp.path, "secret.json"),
    "link.json",
    "missing.json",
  ];
  const got = settings.map((s) => {
    const path = write(
      "s.yaml",
      `name: s\ntasks: [a]\nvariants:\n- {name: v, harness: claude, settings: ${s}}\n`,
    );
    let result: unknown;
    try {
      result = loadSuite(path).variants[0]!.settings!.replaceAll(tmp.path, "<T>");
    } catch (error) {
      result = configOutcome(() => {
        throw error;
      }, tmp.path);
    }
    return { settings: s.replaceAll(tmp.path, "<T>"), result };
  });
  const at = "<T>/suites/s.yaml:4:40: suite s: variant v: settings";
  expect(got).toEqual([
    { settings: "ok.json", result: "<T>/suites/ok.json" },
    { settings: "rendered/v.json", result: "<T>/suites/rendered/v.json" },
    { settings: "../secret.json", result: `${at} "../secret.json": escapes <T>/suites` },
    { settings: "<T>/secret.json", result: `${at} "<T>/secret.json": absolute paths are not allowed` },
    { settings: "link.json", result: `${at} "link.json": escapes <T>/suites` },
    { settings: "missing.json", result: `${at} "missing.json": no such file or directory under <T>/suites` },
  ]);
});

test("the example suite parses with the SuiteFile schema as plain YAML data", () => {
  const data = parse(readFileSync(join(EVALS, "suites", "model-upgrade.yaml"), "utf8"));
  expect(SuiteFile.safeParse(data).success).toEqual(true);
});

test("schemas/suite.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO, "schemas", "suite.schema.json"), "utf8"));
  expect(committed).toEqual(suiteJsonSchema());
});

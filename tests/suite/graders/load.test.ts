// The newer original's suite and task files load unchanged (tests/fixtures/suite/halos/, copied from
// dshakes/halos at 9cf472a and d5d3aa8): its matrix fixture, its graded task, upgrade-gate.yaml with
// k, seed, gate, judge, graders and matrix; and every bad grader or rich key is refused with one line
// naming the file, line:column and the field.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyGrader } from "../../../lib/suite/graders/index.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { loadTask } from "../../../lib/suite/task.ts";
import { tempDir } from "../../support/tmp.ts";
import { configOutcome } from "../_support.ts";

const HALOS = join(import.meta.dirname, "..", "..", "fixtures", "suite", "halos");
const TESTDATA = join(HALOS, "testdata");
const EVALS = join(HALOS, "evals");

const outcome = configOutcome;

describe("the original's fixtures load unchanged", () => {
  test("testdata/tasks/fix-add-graded: four graders and no check", () => {
    const task = loadTask(join(TESTDATA, "tasks", "fix-add-graded"));
    expect({ check: task.check, graders: task.graders }).toEqual({
      check: undefined,
      graders: [
        { type: "command", run: "go test ./..." },
        { type: "file", path: "add.go", exists: true, contains: ["a + b"], notContains: ["a - b"] },
        { type: "diff", maxFilesChanged: 2, mustChange: ["add.go"], mustNotChange: ["*_test.go"] },
        { type: "judge", rubric: "code-quality@1", rubricPath: join(TESTDATA, "rubrics", "quality.yaml") },
      ],
    });
  });

  test("testdata/suites/matrix.yaml: a matrix-only suite with k, seed and gate", () => {
    const s = loadSuite(join(TESTDATA, "suites", "matrix.yaml"));
    expect({
      variants: s.variants,
      control: s.control,
      repeats: s.repeats,
      k: s.k,
      seed: s.seed,
      gate: s.gate,
      harnesses: s.matrix?.harnesses.map((h) => h.harness),
      baseline: s.matrix?.baseline,
      tasks: s.tasks.map((t) => t.id),
    }).toEqual({
      variants: [],
      control: "",
      repeats: 3,
      k: 2,
      seed: 42,
      gate: { max_pass_drop: 0.1, max_cost_increase: 0.25 },
      harnesses: ["claude", "codex", "gemini"],
      baseline: "claude@2.1.312/sonnet/anthropic",
      tasks: ["fix-add"],
    });
  });

  test("evals/suites/upgrade-gate.yaml: every rich key; the suite's graders end each task's", () => {
    const s = loadSuite(join(EVALS, "suites", "upgrade-gate.yaml"));
    const rubricPath = join(EVALS, "rubrics", "code-change-quality.yaml");
    const suiteGraders: AnyGrader[] = [
      { type: "diff", maxFilesChanged: 4, mustChange: [], mustNotChange: ["*_test.go"] },
      { type: "judge", rubric: "code-change-quality@1", rubricPath },
    ];
    expect({
      k: s.k,
      seed: s.seed,
      gate: s.gate,
      judge: s.judge,
      graders: s.graders,
      taskGraders: s.tasks.map((t) => t.graders),
      variants: s.variants.map((v) => `${v.name}=${v.harness}@${v.version}/${v.model}`),
    }).toEqual({
      k: 3,
      seed: 20260930,
      gate: {
        max_pass_drop: 0.05,
        task_regression: 0.5,
        max_regressed_tasks: 0,
        max_cost_increase: 0.2,
        max_wall_increase: 0.3,
        max_tool_calls_increase: 0.5,
        min_tasks: 2,
      },
      judge: {
        url: "https://ai.acme.example",
        wire: "anthropic-messages",
        model: "claude-sonnet-5-5",
        api_key_env: "HALO_EVAL_GATEWAY_TOKEN",
        cache: ".judge-cache",
      },
      graders: suiteGraders,
      taskGraders: [suiteGraders, suiteGraders, suiteGraders],
      variants: ["current=claude@2.1.312/sonnet", "candidate=claude@2.1.330/sonnet"],
    });
  });

  test("the older generation's suites load as before: no rich key appears", () => {
    const got = ["cli-upgrade.yaml", "model-upgrade.yaml"].map((f) => {
      const s = loadSuite(join(EVALS, "suites", f));
      return { k: s.k, seed: s.seed, graders: s.graders, taskGraders: s.tasks.map((t) => t.graders) };
    });
    const none = {
      k: undefined,
      seed: undefined,
      graders: undefined,
      taskGraders: [undefined, undefined, undefined],
    };
    expect(got).toEqual([none, none]);
  });

  test("a variant's provider is kept", () => {
    using tmp = tempDir("rich-load");
    const root = evalsTree(tmp.path);
    const s = loadSuite(
      root.suite(
        "name: s\ntasks: [a]\nvariants: [{name: x, harness: claude, model: m, provider: bedrock}]\n",
      ),
    );
    expect(s.variants).toEqual([{ name: "x", harness: "claude", model: "m", provider: "bedrock" }]);
  });
});

/** A temp evals tree: tasks/a (a good task), rubrics/ok.yaml, and writers for a task and a suite. */
function evalsTree(root: string) {
  mkdirSync(join(root, "tasks", "a", "repo"), { recursive: true });
  writeFileSync(join(root, "tasks", "a", "task.yaml"), "id: a\nrepo: repo\nprompt: p\ncheck: c\n");
  mkdirSync(join(root, "rubrics"));
  writeFileSync(join(root, "rubrics", "ok.yaml"), 'id: ok\nversion: "2"\ncriteria: [{name: c}]\n');
  symlinkSync("/etc/hostname", join(root, "rubrics", "link.yaml"));
  mkdirSync(join(root, "suites"));
  return {
    task(body: string): string {
      mkdirSync(join(root, "tasks", "t", "repo"), { recursive: true });
      writeFileSync(join(root, "tasks", "t", "task.yaml"), body);
      return join(root, "tasks", "t");
    },
    suite(body: string): string {
      writeFileSync(join(root, "suites", "s.yaml"), body);
      return join(root, "suites", "s.yaml");
    },
  };
}

const TASK = "id: t\nrepo: repo\nprompt: p\n";

describe("a bad grader in task.yaml is refused: file, line:column, task, field", () => {
  const cases = [
    {
      name: "no check and no graders",
      body: TASK,
      message: "<T>/tasks/t/task.yaml:1:1: task t: check is required",
    },
    {
      name: "unknown grader type",
      body: `${TASK}graders: [{type: lint}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:18: task t: graders[0].type: expected one of "command", "file", "diff", "judge", got "lint"',
    },
    {
      name: "command without run",
      body: `${TASK}graders: [{type: command}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:11: task t: graders[0]: a command grader needs "run" (a shell command)',
    },
    {
      name: "command with a blank run",
      body: `${TASK}graders: [{type: command, run: "  "}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:11: task t: graders[0]: a command grader needs "run" (a shell command)',
    },
    {
      name: "file without path",
      body: `${TASK}graders: [{type: file, contains: [x]}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:11: task t: graders[0]: a file grader needs a relative path inside the repo",
    },
    {
      name: "file with an absolute path",
      body: `${TASK}graders: [{type: file, path: /etc/passwd}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:30: task t: graders[0].path: a file grader needs a relative path inside the repo",
    },
    {
      name: "file leaving the repo",
      body: `${TASK}graders: [{type: file, path: a/../../x}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:30: task t: graders[0].path: a file grader needs a relative path inside the repo",
    },
    {
      name: "file with a bad regular expression",
      body: `${TASK}graders: [{type: file, path: a, matches: "("}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:42: task t: graders[0].matches: not a regular expression: Invalid regular expression: missing )",
    },
    {
      name: "file with exists not a boolean",
      body: `${TASK}graders: [{type: file, path: a, exists: "no"}]\n`,
      message: '<T>/tasks/t/task.yaml:4:41: task t: graders[0].exists: expected true or false, got "no"',
    },
    {
      name: "diff with an unclosed class",
      body: `${TASK}graders: [{type: diff, must_change: ["a", "[ab"]}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:43: task t: graders[0].must_change[1]: glob "[ab": unclosed character class',
    },
    {
      name: "diff with a trailing backslash",
      body: `${TASK}graders: [{type: diff, must_not_change: ["x\\\\"]}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:42: task t: graders[0].must_not_change[0]: glob "x\\\\": trailing backslash',
    },
    {
      name: "diff with a negative max_files_changed",
      body: `${TASK}graders: [{type: diff, max_files_changed: -1}]\n`,
      message: "<T>/tasks/t/task.yaml:4:43: task t: graders[0].max_files_changed: expected >= 0, got -1",
    },
    {
      name: "judge without rubric",
      body: `${TASK}graders: [{type: judge}]\n`,
      message:
        '<T>/tasks/t/task.yaml:4:11: task t: graders[0]: a judge grader needs "rubric" (a rubric file)',
    },
    {
      name: "judge rubric outside the evals root",
      body: `${TASK}graders: [{type: judge, rubric: ../../rubrics/link.yaml}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:33: task t: graders[0].rubric: rubric must be a file under the evals root <T>: escapes <T>",
    },
    {
      name: "judge rubric missing",
      body: `${TASK}graders: [{type: judge, rubric: ../../rubrics/nope.yaml}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:33: task t: graders[0].rubric: rubric must be a file under the evals root <T>: no such file or directory under <T>",
    },
    {
      name: "judge rubric that is a directory",
      body: `${TASK}graders: [{type: judge, rubric: ../../rubrics}]\n`,
      message:
        "<T>/tasks/t/task.yaml:4:33: task t: graders[0].rubric: rubric must be a file under the evals root <T>: not a file",
    },
    {
      name: "graders not a list",
      body: `${TASK}graders: {type: command}\n`,
      message: "<T>/tasks/t/task.yaml:4:10: task t: graders: expected a list, got a mapping",
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      using tmp = tempDir("rich-load");
      const root = evalsTree(tmp.path);
      expect(outcome(() => loadTask(root.task(c.body)), tmp.path)).toEqual(c.message);
    });

  test("a bad rubric is refused naming the rubric file", () => {
    using tmp = tempDir("rich-load");
    const root = evalsTree(tmp.path);
    writeFileSync(join(tmp.path, "rubrics", "bad.yaml"), 'id: bad\nversion: "1"\ncriteria: []\n');
    expect(
      outcome(
        () => loadTask(root.task(`${TASK}graders: [{type: judge, rubric: ../../rubrics/bad.yaml}]\n`)),
        tmp.path,
      ),
    ).toEqual("<T>/rubrics/bad.yaml:3:11: rubric bad: criteria: expected at least 1 item, got none");
  });
});

describe("a bad rich key in suite.yaml is refused: file, line:column, suite, field", () => {
  const V = "variants: [{name: a, harness: claude}]\n";
  const cases = [
    {
      name: "k above repeats",
      body: `name: s\ntasks: [a]\nrepeats: 2\nk: 3\n${V}`,
      message: "<T>/suites/s.yaml:4:4: suite s: k: expected between 1 and repeats (2), got 3",
    },
    {
      name: "negative k",
      body: `name: s\ntasks: [a]\nk: -1\n${V}`,
      message: "<T>/suites/s.yaml:3:4: suite s: k: expected >= 0, got -1",
    },
    {
      name: "seed not an integer",
      body: `name: s\ntasks: [a]\nseed: 1.5\n${V}`,
      message: "<T>/suites/s.yaml:3:7: suite s: seed: expected an integer, got 1.5",
    },
    {
      name: "unknown gate key",
      body: `name: s\ntasks: [a]\ngate: {max_pass_dorp: 0.1}\n${V}`,
      message:
        '<T>/suites/s.yaml:3:8: suite s: gate: unknown key "max_pass_dorp": did you mean max_pass_drop?',
    },
    {
      name: "judge over plain http to another host",
      body: `name: s\ntasks: [a]\njudge: {url: "http://judge.example", wire: anthropic-messages, model: m}\n${V}`,
      message:
        '<T>/suites/s.yaml:3:14: suite s: judge.url: expected an absolute https URL (plain http only to 127.0.0.1, ::1 or localhost), got "http://judge.example"',
    },
    {
      name: "matrix harness unknown",
      body: "name: s\ntasks: [a]\nmatrix: {harnesses: [{harness: vim, models: [m]}]}\n",
      message:
        '<T>/suites/s.yaml:3:32: suite s: matrix.harnesses[0].harness: expected one of "claude", "codex", "gemini", "command", "nop", "oracle", got "vim"',
    },
    {
      name: "matrix settings outside the suite's directory",
      body: "name: s\ntasks: [a]\nmatrix: {harnesses: [{harness: claude, models: [m], settings: ../x.json}]}\n",
      message:
        '<T>/suites/s.yaml:3:63: suite s: matrix harness claude: settings "../x.json": no such file or directory under <T>/suites',
    },
    {
      name: "a suite grader without run",
      body: `name: s\ntasks: [a]\ngraders: [{type: command, run: ""}]\n${V}`,
      message: '<T>/suites/s.yaml:3:11: suite s: graders[0]: a command grader needs "run" (a shell command)',
    },
    {
      name: "a suite judge grader with no judge configured",
      body: `name: s\ntasks: [a]\ngraders: [{type: judge, rubric: ../rubrics/ok.yaml}]\n${V}`,
      message:
        "<T>/suites/s.yaml:2:9: suite s: tasks[0]: task a has a judge grader but the suite configures no judge",
    },
    {
      name: "neither variants nor matrix",
      body: "name: s\ntasks: [a]\nk: 1\n",
      message: "<T>/suites/s.yaml:1:1: suite s: variants is required",
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      using tmp = tempDir("rich-load");
      const root = evalsTree(tmp.path);
      expect(outcome(() => loadSuite(root.suite(c.body)), tmp.path)).toEqual(c.message);
    });

  test("a suite judge grader's rubric resolves from the suite's directory", () => {
    using tmp = tempDir("rich-load");
    const root = evalsTree(tmp.path);
    const s = loadSuite(
      root.suite(
        `name: s\ntasks: [a]\njudge: {url: "http://127.0.0.1:9", wire: openai-responses, model: m-1}\ngraders: [{type: judge, rubric: ../rubrics/ok.yaml}]\n${V}`,
      ),
    );
    expect(s.tasks[0]!.graders).toEqual([
      { type: "judge", rubric: "ok@2", rubricPath: join(tmp.path, "rubrics", "ok.yaml") },
    ]);
  });
});

import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import {
  loadAgentConfig,
  loadLock,
  loadPromotionTask,
  loadRubric,
  passEnvRefusal,
  promotionJsonSchemas,
} from "../../lib/promotion/formats.ts";
import { tempDir } from "../support/tmp.ts";

const FIX = join(import.meta.dirname, "..", "fixtures", "promotion");
const SCHEMAS = join(import.meta.dirname, "..", "..", "schemas");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const TASK = readJson(join(FIX, "store", "tasks", "demo", "task.json"));
const RUBRIC = readJson(join(FIX, "store", "rubrics", "demo.json"));
const AGENT = readJson(join(FIX, "agent.json"));
const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);

/** The ConfigError message `fn` throws (fails the test when it throws anything else or nothing). */
function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toEqual(3);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

/** A copy of the fixture store in `root`. */
function copyStore(root: string): string {
  const store = join(root, "store");
  cpSync(join(FIX, "store"), store, { recursive: true });
  return store;
}

describe("the fixtures load", () => {
  test("task.json with min_runs defaulted", () => {
    const store = join(FIX, "store");
    expect(loadPromotionTask(store, "demo")).toEqual({
      ...TASK,
      min_runs: 3,
      dir: join(store, "tasks", "demo"),
      path: join(store, "tasks", "demo", "task.json"),
    });
  });
  test("rubric", () => {
    const store = join(FIX, "store");
    expect(loadRubric(store, "demo")).toEqual({ ...RUBRIC, path: join(store, "rubrics", "demo.json") });
  });
  test("rubric defaults: checks [], pass_threshold 1, min_pass_rate 0.5", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const { checks: _c, pass_threshold: _p, min_pass_rate: _m, ...bare } = RUBRIC;
    const path = join(store, "rubrics", "demo.json");
    writeFileSync(path, JSON.stringify(bare));
    expect(loadRubric(store, "demo")).toEqual({
      ...bare,
      checks: [],
      pass_threshold: 1,
      min_pass_rate: 0.5,
      path,
    });
  });
  test("agent config", () => {
    expect(loadAgentConfig(join(FIX, "agent.json"))).toEqual(AGENT);
  });
  test("an agent config without pass_env passes nothing, as the original", () => {
    using tmp = tempDir("promotion");
    const { pass_env: _p, ...bare } = AGENT;
    const path = join(tmp.path, "agent.json");
    writeFileSync(path, JSON.stringify(bare));
    expect(loadAgentConfig(path)).toEqual({ ...bare, pass_env: [] });
  });
  test("lock", () => {
    using tmp = tempDir("promotion");
    const path = join(tmp.path, "lock.json");
    const lock = { tasks: { demo: { rubric_sha256: SHA_A, task_sha256: SHA_B } }, version: 1 as const };
    writeFileSync(path, JSON.stringify(lock));
    expect(loadLock(path)).toEqual(lock);
  });
});

type Row = { name: string; data?: unknown; text?: string; message: string };

describe("task.json refusals", () => {
  const rows: Row[] = [
    {
      name: "malformed JSON",
      text: "{",
      message: 'Cannot parse task "P": Expecting property name enclosed in double quotes at line 1 column 2',
    },
    {
      name: "not an object",
      data: [],
      message: 'Cannot load task "P": expected an object at top level, got []',
    },
    {
      name: "version 2",
      data: { ...TASK, version: 2 },
      message: 'Cannot load task "P": expected 1 at version, got 2',
    },
    {
      name: "version missing",
      data: { ...TASK, version: undefined },
      message: 'Cannot load task "P": expected 1 at version, got nothing',
    },
    {
      name: "unknown field",
      data: { ...TASK, extra: 1 },
      message: 'Cannot load task "P": unknown field "extra" at top level',
    },
    {
      name: "skill empty",
      data: { ...TASK, skill: "" },
      message: 'Cannot load task "P": expected at least 1 characters at skill, got ""',
    },
    {
      name: "prompt not a string",
      data: { ...TASK, prompt: 5 },
      message: 'Cannot load task "P": expected a string at prompt, got 5',
    },
    {
      name: "min_runs 0",
      data: { ...TASK, min_runs: 0 },
      message: 'Cannot load task "P": expected >= 1 at min_runs, got 0',
    },
    {
      name: "min_runs 1.5",
      data: { ...TASK, min_runs: 1.5 },
      message: 'Cannot load task "P": expected an integer at min_runs, got 1.5',
    },
    {
      name: "min_runs bool",
      data: { ...TASK, min_runs: true },
      message: 'Cannot load task "P": expected a number at min_runs, got true',
    },
    {
      name: "id differs from dir",
      data: { ...TASK, id: "other" },
      message: 'Cannot load task "P": expected "demo" at id, got "other"',
    },
    {
      name: "id not an id",
      data: { ...TASK, id: "Demo_1" },
      message: 'Cannot load task "P": expected a task id like demo-task at id, got "Demo_1"',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      using tmp = tempDir("promotion");
      const store = copyStore(tmp.path);
      const path = join(store, "tasks", "demo", "task.json");
      writeFileSync(path, row.text ?? JSON.stringify(row.data));
      expect(configError(() => loadPromotionTask(store, "demo"))).toEqual(row.message.replace("P", path));
    });
  }
  test("a missing task, a bad id and a symlinked task dir", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    symlinkSync(join(store, "tasks", "demo"), join(store, "tasks", "linked"));
    expect([
      configError(() => loadPromotionTask(store, "nope")),
      configError(() => loadPromotionTask(store, "../demo")),
      configError(() => loadPromotionTask(store, "linked")),
    ]).toEqual([
      `task not found: ${join(store, "tasks", "nope")}`,
      'invalid task id "../demo": expected ^[a-z0-9]+(?:-[a-z0-9]+)*$',
      `task directory is not a real directory: ${join(store, "tasks", "linked")}`,
    ]);
  });
  test("no task.json; not UTF-8", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    mkdirSync(join(store, "tasks", "empty"));
    const path = join(store, "tasks", "demo", "task.json");
    writeFileSync(path, Buffer.from([0x7b, 0xff, 0x7d]));
    expect([
      configError(() => loadPromotionTask(store, "empty")),
      configError(() => loadPromotionTask(store, "demo")),
    ]).toEqual([
      `Cannot read task "${join(store, "tasks", "empty", "task.json")}": no such file`,
      `Cannot read task "${path}": not valid UTF-8`,
    ]);
  });
});

describe("rubric refusals", () => {
  const crit = RUBRIC.criteria;
  const rows: Row[] = [
    {
      name: "malformed JSON",
      text: '{"version": 1,}',
      message:
        'Cannot parse rubric "P": Expecting property name enclosed in double quotes at line 1 column 15',
    },
    {
      name: "unknown field",
      data: { ...RUBRIC, secret: "x" },
      message: 'Cannot load rubric "P": unknown field "secret" at top level',
    },
    {
      name: "short canary",
      data: { ...RUBRIC, canary: "fifteen-chars!!" },
      message: 'Cannot load rubric "P": expected at least 16 characters at canary, got "fifteen-chars!!"',
    },
    {
      name: "canary missing",
      data: { ...RUBRIC, canary: undefined },
      message: 'Cannot load rubric "P": expected a string at canary, got nothing',
    },
    {
      name: "task_id differs",
      data: { ...RUBRIC, task_id: "other" },
      message: 'Cannot load rubric "P": expected "demo" at task_id, got "other"',
    },
    {
      name: "no criteria",
      data: { ...RUBRIC, criteria: [] },
      message: 'Cannot load rubric "P": expected at least 1 item(s) at criteria, got []',
    },
    {
      name: "criterion id bad",
      data: { ...RUBRIC, criteria: [{ id: "Opens PR", text: "t" }] },
      message:
        'Cannot load rubric "P": expected lowercase letters, digits and - at criteria[0].id, got "Opens PR"',
    },
    {
      name: "a check a rubric cannot run (command)",
      data: { ...RUBRIC, checks: [{ tool: "command", run: "true", label: "runs" }] },
      message:
        'Cannot load rubric "P": expected a tool a rubric can run (command needs a case folder and a sandbox: use file-contains or json-path) at checks[0].tool, got "command"',
    },
    {
      name: "criterion id repeated",
      data: { ...RUBRIC, criteria: [crit[0], crit[0]] },
      message: 'Cannot load rubric "P": expected a unique id at criteria[1].id, got "opens-pr"',
    },
    {
      name: "criterion text empty",
      data: { ...RUBRIC, criteria: [{ id: "a", text: "" }] },
      message: 'Cannot load rubric "P": expected at least 1 characters at criteria[0].text, got ""',
    },
    {
      name: "criterion extra field",
      data: { ...RUBRIC, criteria: [{ ...crit[0], weight: 2 }] },
      message: 'Cannot load rubric "P": unknown field "weight" at criteria[0]',
    },
    {
      name: "pass_threshold > 1",
      data: { ...RUBRIC, pass_threshold: 1.5 },
      message: 'Cannot load rubric "P": expected <= 1 at pass_threshold, got 1.5',
    },
    {
      name: "min_pass_rate < 0",
      data: { ...RUBRIC, min_pass_rate: -0.1 },
      message: 'Cannot load rubric "P": expected >= 0 at min_pass_rate, got -0.1',
    },
    {
      name: "pass_threshold bool",
      data: { ...RUBRIC, pass_threshold: true },
      message: 'Cannot load rubric "P": expected a number at pass_threshold, got true',
    },
    {
      name: "check with unknown tool",
      data: { ...RUBRIC, checks: [{ tool: "nope", label: "x" }] },
      message:
        'Cannot load rubric "P": expected one of idd-lint, gi-runlog-echo, file-exists, red-green, shell, gh-calls, file-contains, file-not-contains, file-equals, json-path, command at checks[0].tool, got "nope"',
    },
    {
      name: "check without label",
      data: { ...RUBRIC, checks: [{ tool: "red-green", file: "OUT/x" }] },
      message: 'Cannot load rubric "P": expected a string at checks[0].label, got nothing',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      using tmp = tempDir("promotion");
      const store = copyStore(tmp.path);
      const path = join(store, "rubrics", "demo.json");
      writeFileSync(path, row.text ?? JSON.stringify(row.data));
      expect(configError(() => loadRubric(store, "demo"))).toEqual(row.message.replace("P", path));
    });
  }
  test("a missing rubric", () => {
    const path = join(FIX, "store", "rubrics", "nope.json");
    expect(configError(() => loadRubric(join(FIX, "store"), "nope"))).toEqual(
      `Cannot read rubric "${path}": no such file`,
    );
  });
});

describe("agent config refusals (7.3 T3 and the rest of 5.2)", () => {
  const rows: Row[] = [
    ...["GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "EVAL_RECORD"].map(
      (name) => ({
        name: `pass_env ${name}`,
        data: { ...AGENT, pass_env: ["OK", name] },
        message: `Cannot load agent config "P": expected a name that is not a GitHub token or EVAL_RECORD at pass_env[1], got "${name}"`,
      }),
    ),
    ...["EVAL_OUT", "IDD_EVAL_AGENT"].map((name) => ({
      name: `pass_env ${name}`,
      data: { ...AGENT, pass_env: [name] },
      message: `Cannot load agent config "P": expected a name that is not an EVAL_*/IDD_* variable at pass_env[0], got "${name}"`,
    })),
    ...[
      "TMPDIR",
      "HOME",
      "PATH",
      "LANG",
      "GH_CONFIG_DIR",
      "GH_PROMPT_DISABLED",
      "XDG_CACHE_HOME",
      "XDG_CONFIG_HOME",
    ].map((name) => ({
      name: `pass_env ${name}`,
      data: { ...AGENT, pass_env: [name] },
      message: `Cannot load agent config "P": expected a name that is not a variable the driver sets at pass_env[0], got "${name}"`,
    })),
    {
      name: "pass_env not a name",
      data: { ...AGENT, pass_env: ["1BAD"] },
      message:
        'Cannot load agent config "P": expected an environment variable name at pass_env[0], got "1BAD"',
    },
    {
      name: "pass_env null",
      data: { ...AGENT, pass_env: null },
      message: 'Cannot load agent config "P": expected a list at pass_env, got null',
    },
    {
      name: "missing model",
      data: { ...AGENT, model: undefined },
      message: 'Cannot load agent config "P": expected a string at model, got nothing',
    },
    {
      name: "empty model",
      data: { ...AGENT, model: "" },
      message: 'Cannot load agent config "P": expected at least 1 characters at model, got ""',
    },
    {
      name: "empty tools",
      data: { ...AGENT, tools: [] },
      message: 'Cannot load agent config "P": expected at least 1 item(s) at tools, got []',
    },
    {
      name: "blank tool",
      data: { ...AGENT, tools: ["Bash", ""] },
      message: 'Cannot load agent config "P": expected at least 1 characters at tools[1], got ""',
    },
    {
      name: "empty command",
      data: { ...AGENT, command: [] },
      message: 'Cannot load agent config "P": expected at least 1 item(s) at command, got []',
    },
    {
      name: "unknown placeholder",
      data: { ...AGENT, command: ["a", "{repo}"] },
      message:
        'Cannot load agent config "P": expected only the placeholders {prompt_file} {workspace} {skills_dir} {out_dir} at command[1], got "{repo}"',
    },
    {
      name: "cli_version a number",
      data: { ...AGENT, cli_version: 1 },
      message: 'Cannot load agent config "P": expected a string at cli_version, got 1',
    },
    {
      name: "unknown field",
      data: { ...AGENT, env: {} },
      message: 'Cannot load agent config "P": unknown field "env" at top level',
    },
    {
      name: "malformed JSON",
      text: "",
      message: 'Cannot parse agent config "P": Expecting value at line 1 column 1',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      using tmp = tempDir("promotion");
      const path = join(tmp.path, "agent.json");
      writeFileSync(path, row.text ?? JSON.stringify(row.data));
      expect(configError(() => loadAgentConfig(path))).toEqual(row.message.replace("P", path));
    });
  }
  test("passEnvRefusal accepts ordinary names", () => {
    expect(["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "EVALUATE", "IDDX", "_X"].map(passEnvRefusal)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe("lock.json refusals", () => {
  const entry = { rubric_sha256: SHA_A, task_sha256: SHA_B };
  const rows: Row[] = [
    {
      name: "malformed JSON",
      text: "{tasks",
      message: 'Cannot parse lock "P": Expecting property name enclosed in double quotes at line 1 column 2',
    },
    {
      name: "no tasks",
      data: { version: 1 },
      message: 'Cannot load lock "P": expected an object at tasks, got nothing',
    },
    {
      name: "tasks a list",
      data: { tasks: [], version: 1 },
      message: 'Cannot load lock "P": expected an object at tasks, got []',
    },
    {
      name: "version 2",
      data: { tasks: {}, version: 2 },
      message: 'Cannot load lock "P": expected 1 at version, got 2',
    },
    {
      name: "unknown top field",
      data: { tasks: {}, version: 1, x: 1 },
      message: 'Cannot load lock "P": unknown field "x" at top level',
    },
    {
      name: "entry extra field",
      data: { tasks: { demo: { ...entry, at: "now" } }, version: 1 },
      message: 'Cannot load lock "P": unknown field "at" at tasks.demo',
    },
    {
      name: "digest not hex",
      data: { tasks: { demo: { ...entry, task_sha256: "xyz" } }, version: 1 },
      message: 'Cannot load lock "P": expected a sha256 hex digest at tasks.demo.task_sha256, got "xyz"',
    },
    {
      name: "digest missing",
      data: { tasks: { demo: { task_sha256: SHA_B } }, version: 1 },
      message: 'Cannot load lock "P": expected a string at tasks.demo.rubric_sha256, got nothing',
    },
    {
      name: "bad task id key",
      data: { tasks: { Demo: entry }, version: 1 },
      message: 'Cannot load lock "P": expected a task id as key at tasks, got "Demo"',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      using tmp = tempDir("promotion");
      const path = join(tmp.path, "lock.json");
      writeFileSync(path, row.text ?? JSON.stringify(row.data));
      expect(configError(() => loadLock(path))).toEqual(row.message.replace("P", path));
    });
  }
});

describe("schemas/promotion-*.schema.json are the generated schemas", () => {
  for (const [name, schema] of Object.entries(promotionJsonSchemas())) {
    test(name, () => {
      expect(readJson(join(SCHEMAS, `promotion-${name}.schema.json`))).toEqual(schema);
    });
  }
});

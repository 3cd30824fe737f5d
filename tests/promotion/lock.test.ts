import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { loadLock } from "../../lib/promotion/formats.ts";
import {
  checkLocked,
  type LockCheck,
  lockTask,
  lockText,
  rubricDigest,
  taskDigest,
} from "../../lib/promotion/lock.ts";
import { tempDir } from "../support/tmp.ts";
import { agentEval, makeLane } from "./_lane.ts";

const FIX = join(import.meta.dirname, "..", "fixtures", "promotion");
// Computed for the fixture by a Python transcription of the original (os.walk, sorted
// `f"{rel}\0{sha256}\n"` lines, UTF-8, sha256) and of its rubric digest (sha256 of the bytes).
const DEMO_TASK_SHA = "a9d2434154fe971c2137b4ad703a4fe5a452e43df87e428119126b99dc1aaf04";
const DEMO_RUBRIC_SHA = "236229a61b523e6640b242884ab2cd46532da9c9ba52eb65db3dfa9cf7fefee5";

function copyStore(root: string): string {
  const store = join(root, "store");
  cpSync(join(FIX, "store"), store, { recursive: true });
  return store;
}

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("digests", () => {
  test("the fixture's digests equal the original algorithm's", () => {
    expect({
      task: taskDigest(join(FIX, "store", "tasks", "demo")),
      rubric: rubricDigest(join(FIX, "store", "rubrics", "demo.json")),
    }).toEqual({ task: DEMO_TASK_SHA, rubric: DEMO_RUBRIC_SHA });
  });

  // Each edit runs on a fresh copy of tasks/demo; `same` says whether the digest must stay the same.
  const edits: { name: string; same: boolean; edit: (dir: string) => void }[] = [
    { name: "nothing (same tree twice)", same: true, edit: () => {} },
    { name: "mtimes changed", same: true, edit: (d) => utimesSync(join(d, "task.json"), 1, 1) },
    {
      name: "file mode changed (the original hashes content only)",
      same: true,
      edit: (d) => chmodSync(join(d, "fixture_repo", "README.md"), 0o755),
    },
    {
      name: "an empty directory added",
      same: true,
      edit: (d) => mkdirSync(join(d, "fixture_repo", "empty")),
    },
    {
      name: "content changed",
      same: false,
      edit: (d) => writeFileSync(join(d, "fixture_repo", "README.md"), "# demo\nedited\n"),
    },
    {
      name: "a file added",
      same: false,
      edit: (d) => writeFileSync(join(d, "fixture_repo", "new.txt"), ""),
    },
    {
      name: "a file renamed",
      same: false,
      edit: (d) => renameSync(join(d, "cassettes.json"), join(d, "cassettes2.json")),
    },
  ];
  for (const e of edits) {
    test(e.name, () => {
      using tmp = tempDir("promotion");
      const dir = join(copyStore(tmp.path), "tasks", "demo");
      e.edit(dir);
      expect(taskDigest(dir) === DEMO_TASK_SHA).toEqual(e.same);
    });
  }

  test("symlinks and special files anywhere in the tree are refused", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const dir = join(store, "tasks", "demo");
    symlinkSync("README.md", join(dir, "fixture_repo", "link.md"));
    const linkedDir = join(store, "tasks", "linked");
    symlinkSync(dir, linkedDir);
    const other = join(tmp.path, "other");
    mkdirSync(other);
    execFileSync("mkfifo", [join(other, "pipe")]);
    expect([
      configError(() => taskDigest(dir)),
      configError(() => taskDigest(linkedDir)),
      configError(() => taskDigest(other)),
      configError(() => taskDigest(join(store, "tasks", "nope"))),
    ]).toEqual([
      `task tree has a symlink: ${join(dir, "fixture_repo", "link.md")}`,
      `task directory is not a real directory: ${linkedDir}`,
      `task tree has a non-regular file: ${join(other, "pipe")}`,
      `task not found: ${join(store, "tasks", "nope")}`,
    ]);
  });
});

describe("lockTask", () => {
  test("writes the original's bytes: sorted keys, indent 2, trailing newline", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const lockPath = join(tmp.path, "lock.json");
    expect(lockTask(store, "demo", lockPath)).toEqual({
      locked: true,
      task_id: "demo",
      task_sha256: DEMO_TASK_SHA,
      rubric_sha256: DEMO_RUBRIC_SHA,
      lock: lockPath,
    });
    expect(readFileSync(lockPath, "utf8")).toEqual(
      `{\n  "tasks": {\n    "demo": {\n      "rubric_sha256": "${DEMO_RUBRIC_SHA}",\n      "task_sha256": "${DEMO_TASK_SHA}"\n    }\n  },\n  "version": 1\n}\n`,
    );
  });

  test("`agent-eval lock` creates the lock file's folder when missing, as the original", async () => {
    using tmp = tempDir("promotion");
    const lane = makeLane(tmp.path);
    const lockPath = join(tmp.path, "fresh", "evals", "lock.json");
    const r = await agentEval(["lock", "--task-id", "demo", "--lock", lockPath], lane.repo);
    const { task_sha256, rubric_sha256 } = r.out as Record<string, string>;
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: `{"lock": "${lockPath}", "locked": true, "rubric_sha256": "${rubric_sha256}", "task_id": "demo", "task_sha256": "${task_sha256}"}\n`,
      stderr: `✓ locked demo: commit ${lockPath}\n`,
    });
    expect(readFileSync(lockPath, "utf8")).toEqual(
      `{\n  "tasks": {\n    "demo": {\n      "rubric_sha256": "${rubric_sha256}",\n      "task_sha256": "${task_sha256}"\n    }\n  },\n  "version": 1\n}\n`,
    );
  });

  test("the committed empty lock is written as the original writes it", () => {
    expect(lockText({ tasks: {}, version: 1 })).toEqual('{\n  "tasks": {},\n  "version": 1\n}\n');
  });

  test("keeps other tasks, sorts them, and relocking is byte-stable", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    cpSync(join(store, "tasks", "demo"), join(store, "tasks", "a-first"), { recursive: true });
    const task = JSON.parse(readFileSync(join(store, "tasks", "a-first", "task.json"), "utf8"));
    writeFileSync(join(store, "tasks", "a-first", "task.json"), JSON.stringify({ ...task, id: "a-first" }));
    const rubric = JSON.parse(readFileSync(join(store, "rubrics", "demo.json"), "utf8"));
    writeFileSync(join(store, "rubrics", "a-first.json"), JSON.stringify({ ...rubric, task_id: "a-first" }));
    const lockPath = join(tmp.path, "lock.json");
    writeFileSync(lockPath, lockText({ tasks: {}, version: 1 }));
    lockTask(store, "demo", lockPath);
    const first = lockTask(store, "a-first", lockPath);
    const bytes = readFileSync(lockPath, "utf8");
    lockTask(store, "demo", lockPath);
    expect(readFileSync(lockPath, "utf8")).toEqual(bytes);
    expect(Object.keys(JSON.parse(bytes).tasks)).toEqual(["a-first", "demo"]);
    expect(loadLock(lockPath)).toEqual({
      tasks: {
        "a-first": { rubric_sha256: first.rubric_sha256, task_sha256: first.task_sha256 },
        demo: { rubric_sha256: DEMO_RUBRIC_SHA, task_sha256: DEMO_TASK_SHA },
      },
      version: 1,
    });
  });

  test("an existing lock's mode is kept; no temp file is left", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const lockPath = join(tmp.path, "lock.json");
    writeFileSync(lockPath, lockText({ tasks: {}, version: 1 }));
    chmodSync(lockPath, 0o600);
    lockTask(store, "demo", lockPath);
    expect(statSync(lockPath).mode & 0o777).toEqual(0o600);
    expect(execFileSync("ls", ["-A", tmp.path], { encoding: "utf8" })).toEqual("lock.json\nstore\n");
  });

  test("refuses an invalid lock, task or rubric and leaves the lock alone", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const lockPath = join(tmp.path, "lock.json");
    writeFileSync(lockPath, '{"tasks": [], "version": 1}');
    const badRubric = join(store, "rubrics", "demo.json");
    expect(configError(() => lockTask(store, "demo", lockPath))).toEqual(
      `Cannot load lock "${lockPath}": expected an object at tasks, got []`,
    );
    writeFileSync(badRubric, JSON.stringify({ version: 1 }));
    expect(configError(() => lockTask(store, "demo", lockPath))).toEqual(
      `Cannot load rubric "${badRubric}": expected a string at task_id, got nothing`,
    );
    expect(configError(() => lockTask(store, "missing", lockPath))).toEqual(
      `task not found: ${join(store, "tasks", "missing")}`,
    );
    expect(readFileSync(lockPath, "utf8")).toEqual('{"tasks": [], "version": 1}');
  });
});

describe("checkLocked (7.3 T4)", () => {
  const cases: { name: string; lockFirst: boolean; edit: (store: string) => void; expected: LockCheck }[] = [
    {
      name: "unchanged",
      lockFirst: true,
      edit: () => {},
      expected: { ok: true, task_sha256: DEMO_TASK_SHA, rubric_sha256: DEMO_RUBRIC_SHA },
    },
    {
      name: "not locked",
      lockFirst: false,
      edit: () => {},
      expected: {
        ok: false,
        reason: "not locked",
        message: "task not locked: demo — run `lock` and commit the lock",
      },
    },
    {
      name: "rubric edited after lock",
      lockFirst: true,
      edit: (s) => {
        const path = join(s, "rubrics", "demo.json");
        writeFileSync(path, readFileSync(path, "utf8").replace("opens a pull request", "opens a PR"));
      },
      expected: { ok: false, reason: "rubric changed", message: "rubric changed since it was locked: demo" },
    },
    {
      name: "rubric reformatted only (bytes differ)",
      lockFirst: true,
      edit: (s) => {
        const path = join(s, "rubrics", "demo.json");
        writeFileSync(path, JSON.stringify(JSON.parse(readFileSync(path, "utf8"))));
      },
      expected: { ok: false, reason: "rubric changed", message: "rubric changed since it was locked: demo" },
    },
    {
      name: "fixture edited after lock",
      lockFirst: true,
      edit: (s) => writeFileSync(join(s, "tasks", "demo", "fixture_repo", "leak.txt"), "x"),
      expected: { ok: false, reason: "task changed", message: "task changed since it was locked: demo" },
    },
    {
      name: "task and rubric both edited: the task is reported",
      lockFirst: true,
      edit: (s) => {
        writeFileSync(join(s, "tasks", "demo", "cassettes.json"), '{"version": 1, "calls": [] }');
        writeFileSync(
          join(s, "rubrics", "demo.json"),
          `${readFileSync(join(s, "rubrics", "demo.json"), "utf8")} `,
        );
      },
      expected: { ok: false, reason: "task changed", message: "task changed since it was locked: demo" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("promotion");
      const store = copyStore(tmp.path);
      const lockPath = join(tmp.path, "lock.json");
      writeFileSync(lockPath, lockText({ tasks: {}, version: 1 }));
      if (c.lockFirst) lockTask(store, "demo", lockPath);
      c.edit(store);
      expect(checkLocked(store, "demo", loadLock(lockPath))).toEqual(c.expected);
    });
  }

  test("an inherited property name (constructor) is not a locked task", () => {
    using tmp = tempDir("promotion");
    const store = copyStore(tmp.path);
    const dir = join(store, "tasks", "constructor");
    cpSync(join(store, "tasks", "demo"), dir, { recursive: true });
    const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
    writeFileSync(join(dir, "task.json"), JSON.stringify({ ...task, id: "constructor" }));
    const rubric = JSON.parse(readFileSync(join(store, "rubrics", "demo.json"), "utf8"));
    writeFileSync(
      join(store, "rubrics", "constructor.json"),
      JSON.stringify({ ...rubric, task_id: "constructor" }),
    );
    expect(checkLocked(store, "constructor", { tasks: {}, version: 1 })).toEqual({
      ok: false,
      reason: "not locked",
      message: "task not locked: constructor — run `lock` and commit the lock",
    });
  });
});

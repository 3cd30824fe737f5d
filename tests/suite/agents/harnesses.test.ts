// The any-agent keys of suite.yaml and task.yaml: a `command` variant's template, `image`, and a
// task's reference `solution` (the oracle's script), each refused with one line when wrong.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { loadTask } from "../../../lib/suite/task.ts";
import { tempDir } from "../../support/tmp.ts";

function outcome(fn: () => unknown, root: string): unknown {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.replaceAll(root, "<T>");
  }
}

/** tasks/a (a good task, with solve.sh beside it) and a suite file written from `body`. */
function tree(root: string, task: string, body: string): string {
  mkdirSync(join(root, "tasks", "a", "repo"), { recursive: true });
  mkdirSync(join(root, "suites"));
  writeFileSync(join(root, "tasks", "a", "task.yaml"), `id: a\nrepo: repo\nprompt: p\ncheck: c\n${task}`);
  writeFileSync(join(root, "tasks", "a", "solve.sh"), "#!/bin/sh\necho solved > done\n");
  writeFileSync(join(root, "suites", "s.yaml"), `name: x\ntasks: [a]\n${body}`);
  return join(root, "suites", "s.yaml");
}

describe("suite.yaml: the command, nop and oracle harnesses", () => {
  test.each([
    {
      name: "a command variant with an image, nop and oracle",
      body: 'variants:\n  - {name: mine, harness: command, command: "my-agent --in {prompt_file}", image: my:1}\n  - {name: n, harness: nop}\n  - {name: o, harness: oracle}\n',
      want: [
        { name: "mine", harness: "command", command: "my-agent --in {prompt_file}", image: "my:1" },
        { name: "n", harness: "nop" },
        { name: "o", harness: "oracle" },
      ],
    },
    {
      name: "harness command without a template",
      body: "variants: [{name: mine, harness: command}]\n",
      want: '<T>/suites/s.yaml:3:34: suite x: variant mine: harness "command" needs a command template (key "command")',
    },
    {
      name: "a template on another harness",
      body: "variants: [{name: c, harness: claude, command: x}]\n",
      want: '<T>/suites/s.yaml:3:48: suite x: variant c: key "command" is only for harness "command" (harness is "claude")',
    },
    {
      name: "settings on a harness that reads none",
      body: "variants: [{name: n, harness: nop, settings: s.json}]\n",
      want: '<T>/suites/s.yaml:3:46: suite x: variant n: key "settings" is for the agent CLIs (claude, codex, gemini), not harness "nop"',
    },
    {
      name: "an empty template",
      body: 'variants: [{name: mine, harness: command, command: ""}]\n',
      want: "<T>/suites/s.yaml:3:52: suite x: variants[0].command is required",
    },
    {
      name: "an unknown harness names the six",
      body: "variants: [{name: v, harness: vim}]\n",
      want: '<T>/suites/s.yaml:3:31: suite x: variants[0].harness: expected one of "claude", "codex", "gemini", "command", "nop", "oracle", got "vim"',
    },
  ])("$name", ({ body, want }) => {
    using tmp = tempDir("harness");
    const got = outcome(() => loadSuite(tree(tmp.path, "", body)).variants, tmp.path);
    expect(got).toEqual(want);
  });
});

describe("task.yaml: solution, the reference solution the oracle runs", () => {
  test("an old task has none; a solution is the script's absolute host path", () => {
    using tmp = tempDir("harness");
    tree(tmp.path, "solution: solve.sh\n", "variants: [{name: o, harness: oracle}]\n");
    const dir = join(tmp.path, "tasks", "a");
    expect(loadTask(dir).solution).toEqual(join(realpathSync(dir), "solve.sh"));
    writeFileSync(join(dir, "task.yaml"), "id: a\nrepo: repo\nprompt: p\ncheck: c\n");
    expect("solution" in loadTask(dir)).toEqual(false);
  });

  test.each([
    { name: "outside the task", line: "solution: ../../outside.sh\n", want: "escapes <T>/tasks/a" },
    { name: "a directory", line: "solution: repo\n", want: "not a file" },
    { name: "missing", line: "solution: nope.sh\n", want: "no such file or directory under <T>/tasks/a" },
  ])("solution $name -> one line naming the file, the key and why", ({ line, want }) => {
    using tmp = tempDir("harness");
    tree(tmp.path, line, "variants: [{name: o, harness: oracle}]\n");
    writeFileSync(join(tmp.path, "outside.sh"), "true\n");
    const value = line.slice("solution: ".length, -1);
    expect(outcome(() => loadTask(join(tmp.path, "tasks", "a")), tmp.path)).toEqual(
      `<T>/tasks/a/task.yaml:5:11: task a: solution "${value}": ${want}`,
    );
  });
});

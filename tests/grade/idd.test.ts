import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { iddLintTool, shellShapeProblem, shellTool, translateShell } from "../../lib/grade/idd.ts";
import type { GradeContext } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const branch = (f: string) => `python3 scripts/idd-lint.py branch "$(tr -d '\\n' < OUT/${f})"`;
const commit = (f: string) => `python3 scripts/idd-lint.py commit "$(tr -d '\\n' < OUT/${f})"`;
const pr = (body: string, title: string) =>
  `python3 scripts/idd-lint.py pr OUT/${body} --title "$(tr -d '\\n' < OUT/${title})"`;

function outDir(root: string): string {
  const out = join(root, "out");
  mkdirSync(join(out, "d"), { recursive: true });
  writeFileSync(join(out, "branch.txt"), "fix/1-a\n");
  writeFileSync(join(out, "commit.txt"), "fix(x): y (#1)\n");
  writeFileSync(join(out, "body.md"), "Closes #1\n");
  writeFileSync(join(out, "title.txt"), "fix(x): y (#1)\n");
  writeFileSync(join(root, "outside.txt"), "fix/1-outside\n");
  symlinkSync(join(root, "outside.txt"), join(out, "escape.txt"));
  return out;
}

describe("translateShell", () => {
  const tmp = tempDir("grade-shell");
  afterAll(() => tmp[Symbol.dispose]());
  const out = outDir(tmp.path);
  const cases: { name: string; args: unknown; want: unknown }[] = [
    { name: "branch", args: [branch("branch.txt")], want: { ok: true, argv: ["branch", "fix/1-a"] } },
    { name: "commit", args: [commit("commit.txt")], want: { ok: true, argv: ["commit", "fix(x): y (#1)"] } },
    {
      name: "pr",
      args: [pr("body.md", "title.txt")],
      want: { ok: true, argv: ["pr", join(out, "body.md"), "--title", "fix(x): y (#1)"] },
    },
    {
      name: "not a list",
      args: branch("branch.txt"),
      want: { ok: false, reason: "shell requires exactly one command string" },
    },
    {
      name: "two strings",
      args: ["a", "b"],
      want: { ok: false, reason: "shell requires exactly one command string" },
    },
    { name: "a number", args: [1], want: { ok: false, reason: "shell requires exactly one command string" } },
    {
      name: "touch",
      args: ["touch OUT/executed"],
      want: { ok: false, reason: "command is not in the shell assertion allowlist" },
    },
    {
      name: "other subcommand",
      args: [branch("branch.txt").replace("branch", "issue")],
      want: { ok: false, reason: "command is not in the shell assertion allowlist" },
    },
    {
      name: "python instead of python3",
      args: [branch("branch.txt").replace("python3", "python")],
      want: { ok: false, reason: "command is not in the shell assertion allowlist" },
    },
    {
      name: "extra token",
      args: [`${branch("branch.txt")} x`],
      want: { ok: false, reason: "command is not in the shell assertion allowlist" },
    },
    {
      name: "plain OUT path as branch",
      args: ["python3 scripts/idd-lint.py branch OUT/branch.txt"],
      want: { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" },
    },
    {
      name: "traversal",
      args: [branch("../outside.txt")],
      want: { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" },
    },
    {
      name: "symlink out of OUT",
      args: [branch("escape.txt")],
      want: { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" },
    },
    {
      name: "missing artifact",
      args: [branch("nope.txt")],
      want: { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" },
    },
    {
      name: "a directory",
      args: [branch("d")],
      want: { ok: false, reason: "branch/commit assertion requires a readable OUT artifact" },
    },
    {
      name: "pr body escapes",
      args: [pr("../outside.txt", "title.txt")],
      want: { ok: false, reason: "PR assertion requires readable body and title OUT artifacts" },
    },
    {
      name: "pr title missing",
      args: [pr("body.md", "nope.txt")],
      want: { ok: false, reason: "PR assertion requires readable body and title OUT artifacts" },
    },
    {
      name: "unbalanced quote",
      args: ['python3 "x'],
      want: { ok: false, reason: "invalid shell assertion: No closing quotation" },
    },
  ];
  for (const c of cases)
    test(c.name, () =>
      expect(translateShell(c.args, out)).toEqual(c.want as ReturnType<typeof translateShell>),
    );
});

describe("shell tool (T21, T22)", () => {
  test("a non-allowlisted command is rejected and never runs", async () => {
    using tmp = tempDir("grade-shell");
    const out = outDir(tmp.path);
    const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };
    const got = await shellTool({ tool: "shell", args: ["touch OUT/executed"] }, ctx);
    expect({ got, executed: existsSync(join(out, "executed")) }).toEqual({
      got: {
        got: null,
        reason: "rejected before execution: command is not in the shell assertion allowlist",
        output: [],
      },
      executed: false,
    });
  });

  test("NUL, non-UTF-8 and oversize artifacts are rejected; a valid one is linted", async () => {
    using tmp = tempDir("grade-shell");
    const out = outDir(tmp.path);
    writeFileSync(join(out, "nul.txt"), "fix/1-a\0b");
    writeFileSync(join(out, "latin1.txt"), new Uint8Array([0x66, 0x69, 0x78, 0xe9]));
    writeFileSync(join(out, "big.txt"), "f".repeat(64 * 1024 + 1));
    const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };
    const run = (f: string) => shellTool({ args: [branch(f)] }, ctx);
    expect(await Promise.all(["nul.txt", "latin1.txt", "big.txt", "branch.txt"].map(run))).toEqual([
      { got: null, reason: "rejected before execution: OUT artifact contains a NUL byte", output: [] },
      { got: null, reason: "rejected before execution: OUT artifact is not valid UTF-8", output: [] },
      {
        got: null,
        reason: "rejected before execution: OUT artifact exceeds the 64 KiB argv limit",
        output: [],
      },
      { got: 0, output: [] },
    ]);
  });
});

describe("idd-lint tool", () => {
  test("OUT-substitutes args and reports the linter's exit", async () => {
    using tmp = tempDir("grade-idd");
    const out = outDir(tmp.path);
    const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };
    const ok = await iddLintTool({ args: ["branch", "fix/1-a"] }, ctx);
    const bad = await iddLintTool({ args: ["branch", "Bad/Branch_Name"] }, ctx);
    const notList = await iddLintTool({ args: "branch x" }, ctx);
    const viaOut = await iddLintTool({ args: ["commit", "--range", "OUT"] }, ctx);
    expect({ ok, bad: { got: bad.got, lines: bad.output.length > 0 }, notList, viaOut: viaOut.got }).toEqual({
      ok: { got: 0, output: [] },
      bad: { got: 1, lines: true },
      notList: { got: null, reason: "args must be a list", output: [] },
      viaOut: 2,
    });
  });
});

test("shellShapeProblem (lint view)", () => {
  expect([
    shellShapeProblem(branch("x")),
    shellShapeProblem(commit("x")),
    shellShapeProblem(pr("b", "t")),
    shellShapeProblem("touch OUT/x"),
    shellShapeProblem('"x'),
  ]).toEqual([
    null,
    null,
    null,
    "command is not in the shell assertion allowlist",
    "invalid shell assertion: No closing quotation",
  ]);
});

import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { runIddLint } from "../../../lib/grade/idd/cli.ts";
import { tempDir } from "../../support/tmp.ts";
import { FIXTURES, fixture } from "./_fixtures.ts";

const io = { cwd: FIXTURES };
const RULE = "┄".repeat(59);
const exitOf = async (argv: string[], stdin?: string) => (await runIddLint(argv, { ...io, stdin })).exitCode;

describe("runIddLint exit codes (the hermetic cases)", () => {
  const cases = [
    { name: "issue-creator/basic issue", argv: ["issue", "issue-basic.md"], exit: 0 },
    { name: "issue-creator/negative-empty issue", argv: ["issue", "issue-negative-empty.md"], exit: 1 },
    { name: "issue-creator/basic branch", argv: ["branch", "fix/1-mobile-login-redirect"], exit: 0 },
    { name: "T14 bad branch", argv: ["branch", "Bad/Branch_Name"], exit: 1 },
    {
      name: "trivial-bug commit",
      argv: ["commit", "fix(auth): return true when credentials match (#1)"],
      exit: 0,
    },
    {
      name: "trivial-bug PR",
      argv: ["pr", "pr-trivial-bug.md", "--title", "fix(auth): return true when credentials match (#1)"],
      exit: 0,
    },
    { name: "missing-closes PR", argv: ["pr", "pr-missing-closes.md"], exit: 1 },
    {
      name: "intentional-refs PR",
      argv: ["pr", "pr-intentional-refs.md", "--title", "feat(plugin): ship the claude code plugin (#42)"],
      exit: 0,
    },
    {
      name: "all-deferred PR",
      argv: ["pr", "pr-all-deferred.md", "--title", "feat(plugin): ship the claude code plugin (#42)"],
      exit: 1,
    },
    { name: "PR title given with =", argv: ["pr", "--title=fix: x (#1)", "pr-trivial-bug.md"], exit: 0 },
    { name: "L2 skips the Decision Record", argv: ["--level", "L2", "pr", "pr-trivial-bug.md"], exit: 0 },
    { name: "several commits, one bad", argv: ["commit", "fix: a (#1)", "Fix: B."], exit: 1 },
    { name: "warnings only are conformant", argv: ["branch", `feat/1-${"a".repeat(50)}`], exit: 0 },
  ];
  for (const c of cases) test(c.name, async () => expect(await exitOf(c.argv)).toEqual(c.exit));
});

describe("runIddLint output", () => {
  test("branch report at the default level, with a level label of L3", async () => {
    expect(await runIddLint(["branch", "fix/1-mobile-login-redirect"], io)).toEqual({
      exitCode: 0,
      stderr: "",
      stdout: [
        "◆ idd-lint — branch fix/1-mobile-login-redirect (IDD Spec v1.1, level L3)",
        RULE,
        "  ✓ [B01] 'fix/1-mobile-login-redirect' matches <type>/<issue>-<description> (§3.1)",
        RULE,
        "  Passed: 1   Warnings: 0   Errors: 0",
        "  ✓ conformant at L3 (spec v1.1)",
        "",
      ].join("\n"),
    });
  });

  test("level labels: issue L1, branch L1→L2, commit L2, pr --level", async () => {
    const first = async (argv: string[]) =>
      (await runIddLint(argv, { ...io, stdin: "" })).stdout.split("\n")[0];
    expect([
      await first(["--level", "L3", "issue", "-"]),
      await first(["--level", "L1", "branch", "fix/1-a"]),
      await first(["--level", "L3", "commit", "fix: a (#1)"]),
      await first(["--level", "L1", "pr", "-"]),
    ]).toEqual([
      "◆ idd-lint — issue body (IDD Spec v1.1, level L1)",
      "◆ idd-lint — branch fix/1-a (IDD Spec v1.1, level L2)",
      "◆ idd-lint — 1 commit(s) (IDD Spec v1.1, level L2)",
      "◆ idd-lint — pull request (IDD Spec v1.1, level L1)",
    ]);
  });

  test("--quiet / -q hide ok and info lines but keep the summary", async () => {
    const quiet = await runIddLint(["-q", "commit", "docs: Notes. (#2)"], io);
    expect(quiet).toEqual({
      exitCode: 1,
      stderr: "",
      stdout: [
        "◆ idd-lint — 1 commit(s) (IDD Spec v1.1, level L2)",
        RULE,
        "  ✗ [C02] 'docs: Notes. (#2)' — description must be lowercase (§3.2)",
        "  ✗ [C03] 'docs: Notes. (#2)' — description must not end with a period (§3.2)",
        RULE,
        "  Passed: 1   Warnings: 0   Errors: 2",
        "  ✗ not conformant — see https://github.com/luongnv89/idd/blob/main/SPEC.md",
        "",
      ].join("\n"),
    });
    expect((await runIddLint(["--quiet", "commit", "docs: Notes. (#2)"], io)).stdout).toEqual(quiet.stdout);
  });

  test("stdin is read for '-' and for an omitted FILE", async () => {
    const body = fixture("issue-basic.md");
    expect([
      await exitOf(["issue", "-"], body),
      await exitOf(["issue"], body),
      await exitOf(["issue"], ""),
    ]).toEqual([0, 0, 1]);
  });

  test("CRLF files read like Python text mode", async () => {
    using dir = tempDir("idd-cli");
    writeFileSync(join(dir.path, "issue.md"), fixture("issue-basic.md").replace(/\n/g, "\r\n"));
    expect((await runIddLint(["issue", "issue.md"], { cwd: dir.path })).exitCode).toEqual(0);
  });
});

describe("runIddLint refusals (exit 2)", () => {
  const cases = [
    { name: "no subcommand", argv: [], stderr: "✗ idd-lint: the following arguments are required: kind\n" },
    {
      name: "unknown subcommand",
      argv: ["lint"],
      stderr:
        "✗ idd-lint: argument kind: invalid choice: 'lint' (choose from issue, branch, commit, pr, repo, stats)\n",
    },
    {
      name: "bad --level",
      argv: ["--level", "L4", "issue"],
      stderr: "✗ idd-lint: argument --level: invalid choice: 'L4' (choose from L1, L2, L3)\n",
    },
    {
      name: "--level after the subcommand",
      argv: ["issue", "--level", "L1"],
      stderr: "✗ idd-lint: unrecognized arguments: --level\n",
    },
    {
      name: "branch without NAME",
      argv: ["branch"],
      stderr: "✗ idd-lint: the following arguments are required: name\n",
    },
    {
      name: "two files",
      argv: ["issue", "a.md", "b.md"],
      stderr: "✗ idd-lint: unrecognized arguments: b.md\n",
    },
    {
      name: "--title without a value",
      argv: ["pr", "x.md", "--title"],
      stderr: "✗ idd-lint: argument --title: expected one argument\n",
    },
    {
      name: "--quiet with a value",
      argv: ["--quiet=yes", "issue"],
      stderr: "✗ idd-lint: argument --quiet: ignored explicit argument 'yes'\n",
    },
    {
      name: "no commit messages",
      argv: ["commit"],
      stderr: "✗ no commit messages given (pass MSG arguments or --range)\n",
    },
    {
      name: "nonexistent FILE",
      argv: ["issue", "nope.md"],
      stderr: '✗ Cannot read file "nope.md": no such file\n',
    },
    {
      name: "nonexistent PR FILE",
      argv: ["pr", "missing/pr.md"],
      stderr: '✗ Cannot read file "missing/pr.md": no such file\n',
    },
    {
      name: "FILE is a directory",
      argv: ["issue", "."],
      stderr: '✗ Cannot read file ".": a directory, not a file\n',
    },
  ];
  for (const c of cases) {
    test(c.name, async () =>
      expect(await runIddLint(c.argv, io)).toEqual({ exitCode: 2, stdout: "", stderr: c.stderr }),
    );
  }

  test("non-UTF-8 FILE", async () => {
    using dir = tempDir("idd-cli");
    writeFileSync(join(dir.path, "bad.md"), new Uint8Array([0x23, 0xff, 0xfe]));
    expect(await runIddLint(["issue", "bad.md"], { cwd: dir.path })).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: '✗ Cannot read file "bad.md": not valid UTF-8\n',
    });
  });

  test("--help prints usage and exits 0", async () => {
    const r = await runIddLint(["--help"], io);
    expect({ exitCode: r.exitCode, usage: r.stdout.startsWith("usage: idd-lint"), stderr: r.stderr }).toEqual(
      {
        exitCode: 0,
        usage: true,
        stderr: "",
      },
    );
  });

  test("option abbreviations work like argparse", async () => {
    expect(await exitOf(["--lev", "L2", "pr", "pr-trivial-bug.md", "--ti", "fix: x (#1)"])).toEqual(0);
  });
});

describe("runIddLint with git (repo, commit --range)", () => {
  async function repo(dir: string, branch: string, subjects: string[]): Promise<void> {
    const git = (...args: string[]) =>
      run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
        cwd: dir,
      });
    await git("init", "-q", "-b", "main");
    await git("commit", "-q", "--allow-empty", "-m", "chore: init (#1)");
    await git("checkout", "-q", "-b", branch);
    for (const s of subjects) await git("commit", "-q", "--allow-empty", "-m", s);
  }

  test("repo lints the branch and every commit in base..HEAD", async () => {
    using dir = tempDir("idd-repo");
    await repo(dir.path, "fix/1-login", ["fix(auth): a (#1)", "Fix: B"]);
    const r = await runIddLint(["-q", "repo"], { cwd: dir.path });
    expect(r).toEqual({
      exitCode: 1,
      stderr: "",
      stdout: [
        "◆ idd-lint — repo @ fix/1-login (IDD Spec v1.1, level L2)",
        RULE,
        "  ✗ [C01] 'Fix: B' does not match <type>(<scope>): <description> (#N) with type in feat/fix/refactor/docs/test/chore/style/perf (§3.2)",
        RULE,
        "  Passed: 2   Warnings: 0   Errors: 1",
        "  ✗ not conformant — see https://github.com/luongnv89/idd/blob/main/SPEC.md",
        "",
      ].join("\n"),
    });
  });

  test("repo on main skips the branch check and reports no commits", async () => {
    using dir = tempDir("idd-repo");
    await repo(dir.path, "main2", []);
    await run(["git", "checkout", "-q", "main"], { cwd: dir.path });
    const r = await runIddLint(["repo"], { cwd: dir.path });
    expect(r.stdout.split("\n").slice(2, 4)).toEqual([
      "  ○ [B01] on 'main' — branch name check skipped (§3.1)",
      "  ○ [C01] no commits in main..HEAD",
    ]);
    expect(r.exitCode).toEqual(0);
  });

  test("commit --range adds the range's subjects after the MSG arguments", async () => {
    using dir = tempDir("idd-repo");
    await repo(dir.path, "feat/2-x", ["feat: one (#2)", "feat: two (#2)"]);
    const r = await runIddLint(["commit", "docs: zero (#2)", "--range", "main..HEAD"], { cwd: dir.path });
    expect({ exitCode: r.exitCode, label: r.stdout.split("\n")[0] }).toEqual({
      exitCode: 0,
      label: "◆ idd-lint — 3 commit(s) (IDD Spec v1.1, level L2)",
    });
  });

  test("a failing git call is exit 2 with git's stderr", async () => {
    using dir = tempDir("idd-repo");
    await repo(dir.path, "fix/1-a", []);
    const r = await runIddLint(["commit", "--range", "nope..HEAD"], { cwd: dir.path });
    expect({
      exitCode: r.exitCode,
      stdout: r.stdout,
      prefix: r.stderr.startsWith("✗ git log --no-merges --format=%s nope..HEAD: fatal:"),
    }).toEqual({
      exitCode: 2,
      stdout: "",
      prefix: true,
    });
  });

  test("repo outside a git repository is exit 2", async () => {
    using dir = tempDir("idd-repo");
    const r = await runIddLint(["repo", "--base", "origin/main"], { cwd: dir.path });
    expect({
      exitCode: r.exitCode,
      prefix: r.stderr.startsWith("✗ git rev-parse --abbrev-ref HEAD: "),
    }).toEqual({
      exitCode: 2,
      prefix: true,
    });
  });
});

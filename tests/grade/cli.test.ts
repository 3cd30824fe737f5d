// scripts/grade.ts end to end: {stdout, stderr, exitCode} of real runs over the fixture scenarios
// (reference 7.1 T8, T9, T14, T21; 7.5 cases), unusable cases, `grade lint`, the rule-pack runners,
// --json, and never a stack trace.
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GradeResult, LintReport } from "../../lib/grade/result.ts";
import { FIXTURES, hasStack, REPO, runGradeCli, writeCase } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const scenarios = [
  { name: "lint-fails-expect-0", exitCode: 1, ref: "T8: lint fails but expect 0 -> 1" },
  { name: "lint-fails-expect-1", exitCode: 0, ref: "T9: lint fails and expect 1 -> 0" },
  { name: "shell-bad-branch", exitCode: 1, ref: "T14: Bad/Branch_Name via shell -> 1" },
  {
    name: "shell-not-allowlisted",
    exitCode: 1,
    ref: "T21: non-allowlisted shell rejected, nothing executed",
  },
  { name: "trivial-bug", exitCode: 0, ref: "7.5 issue-resolver/trivial-bug" },
  { name: "merge-gating", exitCode: 1, ref: "7.5 auto-pilot/merge-gating (gi-runlog-echo 0 and 3)" },
  { name: "gh-call-counter", exitCode: 0, ref: "7.5 issue-resolver/gh-call-counter" },
  { name: "lenient", exitCode: 1, ref: "grade.py's lenient assertion handling" },
];

describe("grade --case --out over fixture scenarios", () => {
  for (const s of scenarios) {
    test.concurrent(`${s.name} (${s.ref})`, async () => {
      const dir = join(FIXTURES, s.name);
      const expected = readFileSync(join(dir, "expected.txt"), "utf8").replaceAll("{OUT}", join(dir, "out"));
      const got = await runGradeCli(["--case", join(dir, "case"), "--out", join(dir, "out")]);
      expect(got).toEqual({ stdout: expected, stderr: "", exitCode: s.exitCode });
    });
  }

  // grade.py printed what a tool printed as it ran, then the verdict: each assertion's `│` lines come
  // right before its own verdict line, never after it. Read from --json, so it holds whatever the
  // expected.txt files say.
  for (const s of scenarios) {
    test.concurrent(`${s.name}: each tool's output, then the verdict it leads to (grade.py's order)`, async () => {
      const dir = join(FIXTURES, s.name);
      const args = ["--case", join(dir, "case"), "--out", join(dir, "out")];
      const [text, json] = await Promise.all([runGradeCli(args), runGradeCli([...args, "--json"])]);
      const rule = "┄".repeat(40);
      const lines = text.stdout.split("\n");
      const body = lines
        .slice(lines.indexOf(rule) + 1, lines.lastIndexOf(rule))
        .map((l) => (/^ {2}[✓✗] /.test(l) ? "<verdict>" : l));
      const result = GradeResult.parse(JSON.parse(json.stdout));
      expect(body).toEqual(
        result.assertions.flatMap((a) => [...a.output.map((o) => `    │ ${o}`), "<verdict>"]),
      );
    });
  }

  test("T21: the refused command left no file behind", () => {
    expect(existsSync(join(FIXTURES, "shell-not-allowlisted", "out", "executed"))).toBe(false);
  });
});

describe("T22: bad artifacts fail with their messages, a valid one still passes, no traceback", () => {
  test.concurrent("NUL, non-UTF-8, oversize", async () => {
    using tmp = tempDir("grade-cli");
    const sh = (f: string) => `python3 scripts/idd-lint.py branch "$(tr -d '\\n' < OUT/${f})"`;
    const { caseDir, outDir } = writeCase(
      tmp.path,
      {
        name: "t/t22",
        grade: ["nul", "latin1", "big", "ok"].map((f) => ({
          tool: "shell",
          args: [sh(`${f}.txt`)],
          label: f,
        })),
      },
      {
        "nul.txt": "fix/1-a\0b\n",
        "latin1.txt": new Uint8Array([0x66, 0x69, 0x78, 0x2f, 0xe9, 0x0a]),
        "big.txt": "f".repeat(64 * 1024 + 1),
        "ok.txt": "fix/1-login-redirect\n",
      },
    );
    const rule = "┄".repeat(40);
    expect(await runGradeCli(["--case", caseDir, "--out", outDir])).toEqual({
      stdout: [
        "◆ grade t/t22",
        rule,
        "  ✗ nul — rejected before execution: OUT artifact contains a NUL byte",
        "  ✗ latin1 — rejected before execution: OUT artifact is not valid UTF-8",
        "  ✗ big — rejected before execution: OUT artifact exceeds the 64 KiB argv limit",
        "  ✓ ok",
        rule,
        "✗ grade failed: 1 passed, 3 failed",
        "",
      ].join("\n"),
      stderr: "",
      exitCode: 1,
    });
  });
});

describe("an unusable case exits 2 with one line on stderr", () => {
  const U = join(FIXTURES, "unusable");
  const out = join(U, "out");
  const cases = [
    { dir: "no-case-json", stderr: `✗ missing case.json: ${U}/no-case-json/case.json\n` },
    {
      dir: "malformed",
      stderr: `✗ Cannot parse case "${U}/malformed/case.json": Expecting property name enclosed in double quotes at line 3 column 28\n`,
    },
    {
      dir: "not-an-object",
      stderr: `✗ Cannot load case "${U}/not-an-object/case.json": expected an object at the top level\n`,
    },
    { dir: "not-utf8", stderr: `✗ Cannot read case "${U}/not-utf8/case.json": not valid UTF-8\n` },
    { dir: "grade-empty", stderr: "✗ case u/grade-empty: grade section missing or empty\n" },
    { dir: "grade-missing", stderr: "✗ case u/grade-missing: grade section missing or empty\n" },
    { dir: "grade-not-list", stderr: "✗ case u/grade-not-list: grade section missing or empty\n" },
    {
      dir: "version-2",
      stderr: `✗ Cannot load case "${U}/version-2/case.json": expected 1 at version, got 2\n`,
    },
  ];
  for (const c of cases) {
    test.concurrent(c.dir, async () => {
      const got = await runGradeCli(["--case", join(U, c.dir), "--out", out]);
      expect({ ...got, stack: hasStack(got.stderr) }).toEqual({
        stdout: "",
        stderr: c.stderr,
        exitCode: 2,
        stack: false,
      });
    });
  }

  test.concurrent("a missing flag is a usage error (exit 2)", async () => {
    expect(await runGradeCli(["--case", join(U, "grade-empty")])).toEqual({
      stdout: "",
      stderr: "✗ Missing required argument: --out\n",
      exitCode: 2,
    });
  });

  test.concurrent("an unknown subcommand is a usage error (exit 2)", async () => {
    const got = await runGradeCli(["frobnicate"]);
    expect({ exitCode: got.exitCode, stack: hasStack(got.stderr), stdout: got.stdout }).toEqual({
      exitCode: 2,
      stack: false,
      stdout: "",
    });
  });
});

describe("grade --json", () => {
  test.concurrent("prints a GradeResult", async () => {
    const dir = join(FIXTURES, "gh-call-counter");
    const got = await runGradeCli(["--case", join(dir, "case"), "--out", join(dir, "out"), "--json"]);
    const result = GradeResult.parse(JSON.parse(got.stdout));
    expect({
      stderr: got.stderr,
      exitCode: got.exitCode,
      passed: result.passed,
      counts: result.counts,
      name: result.name,
    }).toEqual({
      stderr: "",
      exitCode: 0,
      passed: true,
      counts: { passed: 4, failed: 0 },
      name: "issue-resolver/gh-call-counter",
    });
  });
});

describe("grade lint", () => {
  test.concurrent("findings: one line each naming file, field and expectation; exit 1", async () => {
    using tmp = tempDir("grade-cli");
    const { caseDir } = writeCase(tmp.path, {
      name: "x/case",
      grade: [{ tool: "file-exists", file: "OUT/../a", expect_exit: "1", label: "a" }],
    });
    const file = join(caseDir, "case.json");
    const parent = tmp.path.split("/").at(-1);
    writeFileSync(join(caseDir, "subject.sh"), "#!/usr/bin/env bash\n");
    // ✗ what run-eval refuses the case for, ⚠ an authoring rule it does not hold a case to (issue 26).
    expect(await runGradeCli(["lint", caseDir])).toEqual({
      stdout: [
        `✗ ${file}: grade[0].expect_exit: expected an integer, got '1'`,
        `⚠ ${file}: name: expected "${parent}/case" (<parent dir>/<dir>), got "x/case" (an authoring rule: run-eval runs the case)`,
        `✗ ${file}: grade[0].file: expected OUT paths matching OUT/[A-Za-z0-9._/-]+ without "..", got 'OUT/../a'`,
        `✗ lint failed: 3 finding(s) in ${file}: 2 run-eval refuses the case for, 1 authoring rule(s)`,
        "",
      ].join("\n"),
      stderr: "",
      exitCode: 1,
    });
  });

  test.concurrent("a clean case exits 0; --json prints a LintReport", async () => {
    using tmp = tempDir("grade-cli");
    const dir = join(tmp.path, "issue-resolver", "gh-call-counter");
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(FIXTURES, "gh-call-counter", "case", "case.json"), join(dir, "case.json"));
    writeFileSync(join(dir, "subject.sh"), "#!/usr/bin/env bash\n");
    const text = await runGradeCli(["lint", dir]);
    const json = await runGradeCli(["lint", dir, "--json"]);
    expect([text, LintReport.parse(JSON.parse(json.stdout)), json.exitCode]).toEqual([
      { stdout: `✓ lint passed: ${dir}/case.json\n`, stderr: "", exitCode: 0 },
      { version: 1, file: `${dir}/case.json`, ok: true, findings: [] },
      0,
    ]);
  });

  test.concurrent("an unusable case exits 2 without a stack", async () => {
    const dir = join(FIXTURES, "unusable", "malformed");
    const got = await runGradeCli(["lint", dir]);
    expect({ ...got, stack: hasStack(got.stderr) }).toEqual({
      stdout: "",
      stderr: `✗ Cannot parse case "${dir}/case.json": Expecting property name enclosed in double quotes at line 3 column 28\n`,
      exitCode: 2,
      stack: false,
    });
  });
});

describe("rule-pack runners keep the originals' exit codes", () => {
  const issue = join(FIXTURES, "lint-fails-expect-0", "out", "issue.md");
  const cases: {
    name: string;
    args: string[];
    input?: string;
    exitCode: number;
    stdoutStarts?: string;
    stderr?: string;
  }[] = [
    {
      name: "lint-branch ok",
      args: ["lint-branch", "fix/1-login-redirect"],
      exitCode: 0,
      stdoutStarts: "◆ idd-lint — branch fix/1-login-redirect",
    },
    {
      name: "lint-branch bad",
      args: ["lint-branch", "Bad/Branch_Name"],
      exitCode: 1,
      stdoutStarts: "◆ idd-lint — branch Bad/Branch_Name",
    },
    {
      name: "lint-commit ok",
      args: ["lint-commit", "fix(auth): return true when credentials match (#1)"],
      exitCode: 0,
      stdoutStarts: "◆ idd-lint — 1 commit(s)",
    },
    {
      name: "lint-commit none",
      args: ["lint-commit"],
      exitCode: 2,
      stderr: "✗ no commit messages given (pass MSG arguments or --range)\n",
    },
    {
      name: "lint-issue file",
      args: ["lint-issue", issue],
      exitCode: 1,
      stdoutStarts: "◆ idd-lint — issue body",
    },
    {
      name: "lint-issue stdin",
      args: ["lint-issue"],
      input: "login broken pls fix\n",
      exitCode: 1,
      stdoutStarts: "◆ idd-lint — issue body",
    },
    {
      name: "lint-pr",
      args: [
        "lint-pr",
        join(FIXTURES, "trivial-bug", "out", "pr-body.md"),
        "--title",
        "fix(auth): return true when credentials match (#1)",
        "--level",
        "L3",
      ],
      exitCode: 0,
      stdoutStarts: "◆ idd-lint — pull request",
    },
    {
      name: "runlog --echo valid",
      args: ["runlog", "--echo"],
      input: readFileSync(join(FIXTURES, "trivial-bug", "out", "run-record.json"), "utf8"),
      exitCode: 0,
      stdoutStarts: '{"ts":"2026-01-01T00:00:00Z","issue":1',
    },
    { name: "runlog --echo invalid", args: ["runlog", "--echo"], input: "{}", exitCode: 3 },
    { name: "runlog not JSON", args: ["runlog", "--echo"], input: "nope", exitCode: 3 },
  ];
  for (const c of cases) {
    test.concurrent(c.name, async () => {
      const got = await runGradeCli(c.args, { input: c.input ?? "" });
      const view = {
        exitCode: got.exitCode,
        stdoutStarts: c.stdoutStarts === undefined ? undefined : got.stdout.startsWith(c.stdoutStarts),
        stderr: c.stderr === undefined ? undefined : got.stderr,
        stack: hasStack(got.stderr),
      };
      expect(view).toEqual({
        exitCode: c.exitCode,
        stdoutStarts: c.stdoutStarts === undefined ? undefined : true,
        stderr: c.stderr,
        stack: false,
      });
    });
  }
});

test.concurrent("runs from any directory (REPO_ROOT unset: cwd is the repo root)", async () => {
  const dir = join(FIXTURES, "trivial-bug");
  const got = await runGradeCli(["--case", join(dir, "case"), "--out", join(dir, "out")], { cwd: "/" });
  expect(got.exitCode).toEqual(0);
  expect(REPO.length > 0).toBe(true);
});

describe("grade --max-file-bytes: the cap on each file an assertion reads", () => {
  const rows = [
    { name: "default cap: passes", flag: [], code: 0, line: "  ✓ rg\n" },
    {
      name: "a lower cap refuses the file with one line",
      flag: ["--max-file-bytes", "10"],
      code: 1,
      line: '  ✗ rg — invalid red-green JSON: Refused "<OUT>/rg.json": larger than the size cap (33 bytes, cap 10)\n',
    },
    {
      name: "not a number is a usage error",
      flag: ["--max-file-bytes", "lots"],
      code: 2,
      line: '✗ --max-file-bytes must be an integer of at least 1, got "lots"\n',
    },
  ];
  for (const row of rows) {
    test.concurrent(row.name, async () => {
      using tmp = tempDir("grade-cap");
      const grade = [{ tool: "red-green", file: "OUT/rg.json", label: "rg" }];
      const { caseDir, outDir } = writeCase(
        tmp.path,
        { name: "cap", grade },
        { "rg.json": '{"red_exit": 1, "green_exit": 0}\n' },
      );
      const got = await runGradeCli(["--case", caseDir, "--out", outDir, ...row.flag]);
      const text = (got.stdout + got.stderr).replaceAll(outDir, "<OUT>");
      expect({
        code: got.exitCode,
        line: text.split("\n").find((l) => l.includes("rg") || l.includes("--max")),
      }).toEqual({
        code: row.code,
        line: row.line.replace(/\n$/, ""),
      });
    });
  }
});

import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { findingLine, formatPath, lintCase } from "../../lib/grade/lint.ts";
import { tempDir } from "../support/tmp.ts";

const branch = (f: string) => `python3 scripts/idd-lint.py branch "$(tr -d '\\n' < OUT/${f})"`;
const GOOD = {
  name: "issue-creator/basic",
  skill: "issue-creator",
  prompt: "Create an issue for: login redirects to / on mobile",
  grade: [
    { tool: "idd-lint", args: ["issue", "OUT/issue.md"], expect_exit: 0, label: "issue passes idd-lint" },
    { tool: "shell", args: [branch("branch.txt")], expect_exit: 0, label: "branch is conventional" },
    { tool: "file-exists", file: "OUT/issue-url.txt", label: "issue url written" },
    { tool: "file-exists", file: "OUT/missing.txt", expect_exit: 1, label: "grader is not vacuous" },
    { tool: "gh-calls", expect_by_command: { "issue create": 1 }, label: "one issue create" },
  ],
};

/** Writes `<tmp>/issue-creator/basic/case.json` (raw text, or an edit of GOOD) and lints it. */
function lint(root: string, edit: (c: typeof GOOD & Record<string, unknown>) => unknown) {
  const dir = join(root, "issue-creator", "basic");
  mkdirSync(dir, { recursive: true });
  const data = edit(structuredClone(GOOD));
  writeFileSync(join(dir, "case.json"), typeof data === "string" ? data : JSON.stringify(data));
  writeFileSync(join(dir, "subject.sh"), "#!/usr/bin/env bash\n");
  const report = lintCase(dir);
  return { ok: report.ok, findings: report.findings.map((f) => `${f.path}: ${f.message}`) };
}

/** The general tools: one good assertion of each, then each malformed form (appended as grade[5]). */
const withAssertion = (a: Record<string, unknown>) => (c: typeof GOOD & Record<string, unknown>) => ({
  ...c,
  grade: [...c.grade, { label: "general", ...a }],
});
const GENERAL_ROWS: {
  name: string;
  edit: (c: typeof GOOD & Record<string, unknown>) => unknown;
  want: string[];
}[] = [
  ...[
    { tool: "file-contains", file: "OUT/report.md", text: "status: ok", count: 1 },
    { tool: "file-contains", file: "report.md", regex: "^TODO", min_count: 2 },
    { tool: "file-not-contains", file: "OUT/report.md", regex: "FIXME|XXX" },
    { tool: "file-equals", file: "OUT/report.md", golden: "expected/report.md" },
    { tool: "json-path", file: "OUT/result.json", path: "items[0].id", equals: "a-1" },
    { tool: "json-path", file: "OUT/result.json", path: "$.status", matches: "^ok$" },
    { tool: "command", run: "test -s report.md", stdout_contains: "", stderr_matches: "^$" },
  ].map((a) => ({
    name: `good: ${a.tool} ${Object.keys(a).slice(2).join(" ")}`,
    edit: withAssertion(a),
    want: [],
  })),
  {
    name: "a misspelt tool: did you mean",
    edit: withAssertion({ tool: "file-contain", file: "OUT/a", text: "x" }),
    want: [
      `grade[5].tool: expected one of idd-lint, gi-runlog-echo, file-exists, red-green, shell, gh-calls, file-contains, file-not-contains, file-equals, json-path, command, got 'file-contain' (did you mean "file-contains"?)`,
    ],
  },
  {
    name: "file-contains: a key it does not take",
    edit: withAssertion({ tool: "file-contains", file: "OUT/a", text: "x", pattern: "x" }),
    want: ["grade[5].pattern: unknown field"],
  },
  {
    name: "file-contains: count of the wrong type",
    edit: withAssertion({ tool: "file-contains", file: "OUT/a", text: "x", count: "2" }),
    want: ["grade[5].count: expected an integer, got '2'"],
  },
  {
    name: "file-contains: a bad regex",
    edit: withAssertion({ tool: "file-contains", file: "OUT/a", regex: "a(" }),
    want: ["grade[5].regex: expected a valid regular expression: Invalid regular expression: missing )"],
  },
  {
    name: "file-contains: both text and regex",
    edit: withAssertion({ tool: "file-contains", file: "OUT/a", regex: "a", text: "a" }),
    want: ["grade[5].text: expected exactly one of text, regex"],
  },
  {
    name: "file-not-contains: no file",
    edit: withAssertion({ tool: "file-not-contains", text: "a" }),
    want: ["grade[5].file: expected a string, got nothing"],
  },
  {
    name: "file-equals: a golden outside the case",
    edit: withAssertion({ tool: "file-equals", file: "OUT/a", golden: "/etc/passwd" }),
    want: [`grade[5].golden: expected a path under the case directory without "..", got '/etc/passwd'`],
  },
  {
    name: "json-path: neither equals nor matches",
    edit: withAssertion({ tool: "json-path", file: "OUT/a.json", path: "a" }),
    want: ["grade[5].equals: expected exactly one of equals, matches"],
  },
  {
    name: "json-path: a path that does not parse",
    edit: withAssertion({ tool: "json-path", file: "OUT/a.json", path: "a..b", equals: 1 }),
    want: [`grade[5].path: expected a path like "a.b[0].c", got 'a..b'`],
  },
  {
    name: "command: run of the wrong type",
    edit: withAssertion({ tool: "command", run: ["ls"] }),
    want: ["grade[5].run: expected a string, got ['ls']"],
  },
  {
    name: "command: a bad stdout_matches",
    edit: withAssertion({ tool: "command", run: "ls", stdout_matches: "*" }),
    want: [
      "grade[5].stdout_matches: expected a valid regular expression: Invalid regular expression: nothing to repeat",
    ],
  },
];

describe("grade lint (test-357 T1 and the acceptance rules)", () => {
  const cases: {
    name: string;
    edit: (c: typeof GOOD & Record<string, unknown>) => unknown;
    want: string[];
  }[] = [
    { name: "a good case", edit: (c) => c, want: [] },
    { name: "a good case with version 1", edit: (c) => ({ version: 1, ...c }), want: [] },
    {
      name: "human_review and repo_scripts are allowed",
      edit: (c) => ({
        ...c,
        human_review: { criteria: ["x"], scope: "s" },
        repo_scripts: ["src/shared/scripts/gi-gh.py"],
      }),
      want: [],
    },
    {
      name: "name must be <parent>/<dir>",
      edit: (c) => ({ ...c, name: "issue-creator/other" }),
      want: ['name: expected "issue-creator/basic" (<parent dir>/<dir>), got "issue-creator/other"'],
    },
    {
      name: "skill must be the parent dir",
      edit: (c) => ({ ...c, skill: "creator" }),
      want: ['skill: expected "issue-creator" (the parent dir), got "creator"'],
    },
    {
      name: "prompt must be non-empty",
      edit: (c) => ({ ...c, prompt: "" }),
      want: ["prompt: expected a non-empty string"],
    },
    { name: "unknown top-level field", edit: (c) => ({ ...c, extra: 1 }), want: ["extra: unknown field"] },
    { name: "version 2", edit: (c) => ({ ...c, version: 2 }), want: ["version: expected 1, got 2"] },
    {
      name: "unknown tool",
      edit: (c) => ({ ...c, grade: [...c.grade, { tool: "bash", label: "b" }] }),
      want: [
        "grade[5].tool: expected one of idd-lint, gi-runlog-echo, file-exists, red-green, shell, gh-calls, file-contains, file-not-contains, file-equals, json-path, command, got 'bash'",
      ],
    },
    {
      name: "expect_exit must be an integer",
      edit: (c) => ({
        ...c,
        grade: [...c.grade, { tool: "file-exists", file: "OUT/a", expect_exit: "1", label: "s" }],
      }),
      want: ["grade[5].expect_exit: expected an integer, got '1'"],
    },
    {
      name: "expect_exit 1.0 is a float",
      edit: () => JSON.stringify(GOOD).replace('"expect_exit":1', '"expect_exit":1.0'),
      want: ["grade[3].expect_exit: expected an integer, got 1.0 (a float)"],
    },
    {
      name: "labels must be unique",
      edit: (c) => ({
        ...c,
        grade: [...c.grade, { tool: "file-exists", file: "OUT/a", label: "issue url written" }],
      }),
      want: ['grade[5].label: expected a unique label, "issue url written" is also grade[2].label'],
    },
    {
      name: "labels must be present and non-empty",
      edit: (c) => ({
        ...c,
        grade: [
          ...c.grade,
          { tool: "file-exists", file: "OUT/a" },
          { tool: "file-exists", file: "OUT/b", label: "" },
        ],
      }),
      want: ["grade[5].label: expected a string, got nothing", "grade[6].label: expected a non-empty string"],
    },
    {
      name: "OUT paths must stay inside OUT",
      edit: (c) => ({
        ...c,
        grade: [
          ...c.grade,
          { tool: "file-exists", file: "OUT/../x", label: "a" },
          { tool: "idd-lint", args: ["issue", "OUT/a b", "OUT"], label: "b" },
          { tool: "shell", args: [branch("../../etc/passwd")], label: "c" },
        ],
      }),
      want: [
        `grade[5].file: expected OUT paths matching OUT/[A-Za-z0-9._/-]+ without "..", got 'OUT/../x'`,
        `grade[6].args[2]: expected OUT paths matching OUT/[A-Za-z0-9._/-]+ without "..", got 'OUT'`,
        `grade[7].args[0]: expected OUT paths matching OUT/[A-Za-z0-9._/-]+ without "..", got 'OUT/../../etc/passwd'`,
      ],
    },
    {
      name: "shell must be an allowlisted shape",
      edit: (c) => ({ ...c, grade: [...c.grade, { tool: "shell", args: ["touch OUT/x"], label: "t" }] }),
      want: [
        "grade[5].args[0]: expected an allowlisted idd-lint command: command is not in the shell assertion allowlist",
      ],
    },
    {
      name: "shell must be one string",
      edit: (c) => ({ ...c, grade: [...c.grade, { tool: "shell", args: ["a", "b"], label: "t" }] }),
      want: ["grade[5].args: expected exactly one command string"],
    },
    {
      name: "gh-calls needs an expectation",
      edit: (c) => ({ ...c, grade: [...c.grade, { tool: "gh-calls", label: "g" }] }),
      want: ["grade[5]: expected at least one of expect_count, expect_by_command, expect_argv"],
    },
    {
      name: "a field the tool does not take",
      edit: (c) => ({
        ...c,
        grade: [...c.grade, { tool: "file-exists", file: "OUT/a", expect_count: 1, label: "x" }],
      }),
      want: ["grade[5].expect_count: unknown field: did you mean expect_exit?"],
    },
    {
      name: "a non-object assertion",
      edit: (c) => ({ ...c, grade: [...c.grade, "x"] }),
      want: ["grade[5]: expected an object, got 'x'"],
    },
    {
      name: "a case that can only pass is not an eval",
      edit: (c) => ({ ...c, grade: c.grade.filter((a) => a.expect_exit !== 1) }),
      want: [
        "grade: expected at least one assertion with expect_exit != 0 (a case that can only pass is not an eval)",
      ],
    },
    {
      name: "grade missing",
      edit: ({ grade: _, ...rest }) => rest,
      want: ["grade: expected a list, got nothing"],
    },
    { name: "grade empty", edit: (c) => ({ ...c, grade: [] }), want: ["grade: expected a non-empty list"] },
    ...GENERAL_ROWS,
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("grade-lint");
      expect(lint(tmp.path, c.edit)).toEqual({ ok: c.want.length === 0, findings: c.want });
    });
  }

  test("an unreadable case is a ConfigError (exit 2), not findings", () => {
    using tmp = tempDir("grade-lint");
    expect(() => lint(tmp.path, () => "[1]")).toThrow(ConfigError);
    expect(() => lint(tmp.path, () => "{")).toThrow(ConfigError);
    expect(() => lintCase(join(tmp.path, "none"))).toThrow(
      new ConfigError(`missing case.json: ${join(tmp.path, "none", "case.json")}`),
    );
  });
});

test("formatPath and findingLine", () => {
  expect([
    formatPath(["grade", 2, "expect_exit"]),
    formatPath(["grade", 0, "expect_by_command", "issue view"]),
    formatPath([]),
  ]).toEqual(["grade[2].expect_exit", 'grade[0].expect_by_command["issue view"]', ""]);
  expect(findingLine({ file: "/c/case.json", path: "name", message: "m", runEval: "runs" })).toEqual(
    "/c/case.json: name: m",
  );
});

// issue 26: grade lint and run-eval agree on what a case needs. Each finding says whether run-eval
// refuses the case for it, and lint checks what run-eval needs beside case.json: subject.sh, and
// repo_scripts entries of the rule run-eval holds them to (its --scripts-root given as lint's).
test.each<{
  name: string;
  edit: (c: Record<string, unknown>) => unknown;
  subject: boolean;
  scriptsRoot: string | undefined;
  want: string[][];
}>([
  {
    name: "what run-eval refuses, and the authoring rules it does not hold a case to",
    edit: (c: Record<string, unknown>) => ({
      ...c,
      name: "other/name",
      descripton: "x",
      repo_scripts: ["tools/check.sh", "src/shared/scripts/gi-gh.py"],
      grade: [{ tool: "file-exists", file: "OUT/a", colour: 1 }],
    }),
    subject: false,
    scriptsRoot: undefined,
    want: [
      ["runs", "grade[0].label: expected a string, got nothing"],
      ["refuses", "grade[0].colour: unknown field"],
      ["runs", "descripton: unknown field"],
      ["runs", 'name: expected "issue-creator/basic" (<parent dir>/<dir>), got "other/name"'],
      [
        "runs",
        "grade: expected at least one assertion with expect_exit != 0 (a case that can only pass is not an eval)",
      ],
      ["refuses", ": expected subject.sh beside case.json (the subject run-eval runs)"],
      [
        "refuses",
        "repo_scripts[0]: expected src/shared/scripts/<name>.py (lowercase words joined by -; --scripts-root DIR, as run-eval is given it, takes others), got 'tools/check.sh'",
      ],
    ],
  },
  {
    name: "with run-eval's --scripts-root",
    edit: (c: Record<string, unknown>) => ({
      ...c,
      repo_scripts: ["tools/check.sh", "../x.sh", "src/shared/scripts/gi-gh.py"],
    }),
    subject: true,
    scriptsRoot: "tools",
    want: [
      ["refuses", `repo_scripts[1]: expected a path under tools/ without "..", got '../x.sh'`],
      [
        "refuses",
        `repo_scripts[2]: expected a path under tools/ without "..", got 'src/shared/scripts/gi-gh.py'`,
      ],
    ],
  },
])("$name", ({ edit, subject, scriptsRoot, want }) => {
  using tmp = tempDir("grade-lint-needs");
  const dir = join(tmp.path, "issue-creator", "basic");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "case.json"), JSON.stringify(edit(structuredClone(GOOD))));
  if (subject) writeFileSync(join(dir, "subject.sh"), "#!/usr/bin/env bash\n");
  const report = lintCase(dir, scriptsRoot === undefined ? {} : { scriptsRoot });
  expect(report.findings.map((f) => [f.runEval, `${f.path}: ${f.message}`])).toEqual(want);
});

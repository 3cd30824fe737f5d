// The pure parts of run-eval: repo_scripts checking, case discovery, the pool, exit aggregation, the
// summary table, JUnit escaping, the --keep name and the committed JSON Schema.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pool } from "../../lib/core/pool.ts";
import { renderJunit, xmlEscape } from "../../lib/hermetic/junit.ts";
import { keepName } from "../../lib/hermetic/keep.ts";
import { subjectEnv, workPaths } from "../../lib/hermetic/layout.ts";
import { aggregateExit, findCases } from "../../lib/hermetic/many.ts";
import { type RunResult, runResultJsonSchema } from "../../lib/hermetic/result.ts";
import { checkRepoScripts, REPO_SCRIPT_RE } from "../../lib/hermetic/scripts.ts";
import { renderMarkdown, renderSummary } from "../../lib/hermetic/summary.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

describe("repo_scripts", () => {
  test.each([
    ["src/shared/scripts/gi-issue.py", true],
    ["src/shared/scripts/a1-b2-c3.py", true],
    ["src/shared/scripts/Gi-issue.py", false],
    ["src/shared/scripts/gi--issue.py", false],
    ["src/shared/scripts/gi_issue.py", false],
    ["src/shared/scripts/gi-issue.py\n", false],
    ["src/shared/scripts/sub/gi.py", false],
    ["./src/shared/scripts/gi.py", false],
    ["src/shared/scripts/.py", false],
  ])("pattern %p -> %p", (entry, ok) => {
    expect(REPO_SCRIPT_RE.test(entry)).toBe(ok);
  });

  test("checked against the repository: regular files only, no link on the path", () => {
    using dir = tempDir("repo-scripts");
    const scripts = join(dir.path, "src", "shared", "scripts");
    mkdirSync(scripts, { recursive: true });
    writeFileSync(join(scripts, "gi-issue.py"), "");
    writeFileSync(join(scripts, "gi-gh.py"), "");
    mkdirSync(join(scripts, "dir-py.py"));
    symlinkSync("gi-gh.py", join(scripts, "link.py"));
    mkdirSync(join(dir.path, "alt", "shared"), { recursive: true });
    const rows: [unknown, ReturnType<typeof checkRepoScripts>][] = [
      [{}, { ok: true, sources: [] }],
      ["not a dict", { ok: true, sources: [] }],
      [
        { repo_scripts: ["src/shared/scripts/gi-issue.py", "src/shared/scripts/gi-gh.py"] },
        { ok: true, sources: ["src/shared/scripts/gi-issue.py", "src/shared/scripts/gi-gh.py"] },
      ],
      [{ repo_scripts: null }, { ok: false, problems: ["  repo_scripts must be a list"] }],
      [
        { repo_scripts: ["src/shared/scripts/dir-py.py", "src/shared/scripts/link.py", "x"] },
        {
          ok: false,
          problems: [
            "  repo_scripts entry is not a regular file: src/shared/scripts/dir-py.py",
            "  repo_scripts entry is not a regular file: src/shared/scripts/link.py",
            "  repo_scripts entry not allowed: 'x'",
          ],
        },
      ],
    ];
    expect(rows.map(([data]) => checkRepoScripts(data, dir.path))).toEqual(rows.map(([, want]) => want));
  });

  // issue 26: a repository laid out otherwise names its scripts under --scripts-root (`.`: anywhere).
  test("--scripts-root: any file under it, confined: relative, no .., no link, each name once", () => {
    using dir = tempDir("repo-scripts-root");
    mkdirSync(join(dir.path, "tools", "ci"), { recursive: true });
    mkdirSync(join(dir.path, "outside"));
    writeFileSync(join(dir.path, "tools", "check.sh"), "");
    writeFileSync(join(dir.path, "tools", "ci", "check.sh"), "");
    writeFileSync(join(dir.path, "tools", "Lint_It.PY"), "");
    writeFileSync(join(dir.path, "outside", "secret.txt"), "");
    writeFileSync(join(dir.path, "top.sh"), "");
    symlinkSync(join(dir.path, "outside", "secret.txt"), join(dir.path, "tools", "out.sh"));
    symlinkSync(join(dir.path, "outside"), join(dir.path, "tools", "via"));
    const rows: Array<{ root: string; scripts: unknown; want: ReturnType<typeof checkRepoScripts> }> = [
      {
        root: "tools",
        scripts: ["tools/check.sh", "tools/Lint_It.PY", "tools/check.sh"],
        want: { ok: true, sources: ["tools/check.sh", "tools/Lint_It.PY"] },
      },
      {
        root: "./tools/",
        scripts: ["tools/ci/check.sh"],
        want: { ok: true, sources: ["tools/ci/check.sh"] },
      },
      {
        root: ".",
        scripts: ["top.sh", "tools/check.sh"],
        want: { ok: true, sources: ["top.sh", "tools/check.sh"] },
      },
      {
        root: "tools",
        scripts: ["top.sh", "tools/../top.sh", "/etc/passwd", "tools/./check.sh", "src/shared/scripts/gi.py"],
        want: {
          ok: false,
          problems: [
            "  repo_scripts entry not allowed: 'top.sh'",
            "  repo_scripts entry not allowed: 'tools/../top.sh'",
            "  repo_scripts entry not allowed: '/etc/passwd'",
            "  repo_scripts entry not allowed: 'tools/./check.sh'",
            "  repo_scripts entry not allowed: 'src/shared/scripts/gi.py'",
          ],
        },
      },
      {
        root: "tools",
        scripts: ["tools/out.sh", "tools/via/secret.txt", "tools/ci", "tools/none.sh"],
        want: {
          ok: false,
          problems: [
            "  repo_scripts entry is not a regular file: tools/out.sh",
            "  repo_scripts entry is not a regular file: tools/via/secret.txt",
            "  repo_scripts entry is not a regular file: tools/ci",
            "  repo_scripts entry is not a regular file: tools/none.sh",
          ],
        },
      },
      {
        root: "tools",
        scripts: ["tools/check.sh", "tools/ci/check.sh"],
        want: {
          ok: false,
          problems: ["  repo_scripts entries tools/check.sh and tools/ci/check.sh share the name check.sh"],
        },
      },
    ];
    expect(rows.map((r) => checkRepoScripts({ repo_scripts: r.scripts }, dir.path, r.root))).toEqual(
      rows.map((r) => r.want),
    );
  });

  test("a linked directory on the way is refused", () => {
    using dir = tempDir("repo-scripts-link");
    mkdirSync(join(dir.path, "elsewhere", "scripts"), { recursive: true });
    writeFileSync(join(dir.path, "elsewhere", "scripts", "x.py"), "");
    mkdirSync(join(dir.path, "src"));
    symlinkSync(join(dir.path, "elsewhere"), join(dir.path, "src", "shared"));
    expect(checkRepoScripts({ repo_scripts: ["src/shared/scripts/x.py"] }, dir.path)).toEqual({
      ok: false,
      problems: ["  repo_scripts entry is not a regular file: src/shared/scripts/x.py"],
    });
  });
});

describe("layout", () => {
  test("the subject's environment holds the work paths and nothing else", () => {
    expect(subjectEnv(workPaths("/w", false))).toEqual({
      HOME: "/w/home",
      GH_CONFIG_DIR: "/w/gh-config",
      PATH: "/w/bin:/usr/bin:/bin",
      EVAL_CASSETTES: "/w/empty-cassettes.json",
      EVAL_STATE_DIR: "/w/state",
      EVAL_OUT: "/w/out",
      EVAL_CASE_DIR: "/w/case",
      EVAL_WORK: "/w",
      EVAL_SCRIPTS_DIR: "/w/scripts",
      EVAL_GH_CALL_LOG: "/w/gh-calls.jsonl",
    });
  });
});

describe("many cases", () => {
  test("findCases: folders are searched and sorted, a case dir is itself", () => {
    using dir = tempDir("find-cases");
    for (const p of ["b/two", "a/one", "a/zero", "c/deep/three"]) {
      mkdirSync(join(dir.path, p), { recursive: true });
      writeFileSync(join(dir.path, p, "case.json"), "{}");
    }
    mkdirSync(join(dir.path, "empty"));
    const rel = (xs: string[]) => xs.map((x) => x.slice(dir.path.length + 1));
    expect(rel(findCases([dir.path]))).toEqual(["a/one", "a/zero", "b/two", "c/deep/three"]);
    expect(rel(findCases([join(dir.path, "b/two"), join(dir.path, "a")]))).toEqual([
      "b/two",
      "a/one",
      "a/zero",
    ]);
    expect(rel(findCases([join(dir.path, "empty")]))).toEqual(["empty"]);
    expect(() => findCases([join(dir.path, "nope")])).toThrow(/Cannot read case directory/);
  });

  test("pool keeps order and never runs more than N at once", async () => {
    let live = 0;
    let peak = 0;
    const got = await pool([5, 1, 4, 2, 3], 2, async (x) => {
      live++;
      peak = Math.max(peak, live);
      for (let i = 0; i < x; i++) await Promise.resolve();
      live--;
      return x * 10;
    });
    expect({ got, peak }).toEqual({ got: [50, 10, 40, 20, 30], peak: 2 });
  });

  test.each([
    [[], 0],
    [[0, 0], 0],
    [[0, 1, 0], 1],
    [[1, 2, 1], 2],
    [[2, 1, 7], 7],
    [[0, 137], 137],
  ])("aggregateExit(%p) = %p", (codes, want) => {
    expect(aggregateExit(codes)).toBe(want);
  });
});

const SAMPLE: RunResult = {
  version: 1,
  ok: false,
  exitCode: 2,
  jobs: 2,
  mechanism: "bwrap",
  durationMs: 1500,
  counts: { passed: 1, failed: 1, errors: 1 },
  cases: [
    ["skill/a", 0, "pass", "done", null, { passed: 3, total: 3 }],
    ["skill/b|x", 1, "fail", "grade", "eval failed: skill/b|x", { passed: 1, total: 2 }],
    ["c", 2, "error", "refused", "invalid repo_scripts in /c/case.json", null],
  ].map(([name, exitCode, result, stage, message, assertions]) => ({
    name: name as string,
    caseDir: `/cases/${name}`,
    result: result as "pass",
    exitCode: exitCode as number,
    stage: stage as "done",
    message: message as string | null,
    assertions: assertions as { passed: number; total: number } | null,
    durationMs: 250,
    subjectMs: null,
    kept: null,
    grade: null,
    sandbox: null,
    output: `out of ${name} <&> \u0001\n`,
  })),
};

describe("reports", () => {
  test("summary table", () => {
    expect(renderSummary(SAMPLE)).toBe(
      [
        "◆ run-eval summary (bwrap, -j 2)",
        "┄".repeat(20),
        "case       result   assertions  time",
        "skill/a    pass     3/3         0.25s",
        "skill/b|x  fail     1/2         0.25s",
        "c          error 2  -           0.25s",
        "┄".repeat(20),
        "✗ 1 passed, 1 failed, 1 error (3 cases, 1.50s, exit 2)",
        "",
      ].join("\n"),
    );
  });

  test("Markdown summary escapes pipes", () => {
    expect(renderMarkdown(SAMPLE).split("\n").slice(2, 7)).toEqual([
      "| case | result | assertions | time |",
      "|---|---|---:|---:|",
      "| skill/a | ✅ pass | 3/3 | 0.25s |",
      "| skill/b\\|x | ❌ fail | 1/2 | 0.25s |",
      "| c | ❌ error 2 | - | 0.25s |",
    ]);
  });

  test("JUnit document", () => {
    expect(renderJunit(SAMPLE)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="run-eval" tests="3" failures="1" errors="1" time="1.500">',
        '  <testsuite name="run-eval" tests="3" failures="1" errors="1" time="1.500">',
        '    <testcase classname="run-eval.skill" name="skill/a" time="0.250"/>',
        '    <testcase classname="run-eval.skill" name="skill/b|x" time="0.250">',
        '      <failure message="eval failed: skill/b|x" type="exit 1">out of skill/b|x &lt;&amp;&gt; \n</failure>',
        "    </testcase>",
        '    <testcase classname="run-eval" name="c" time="0.250">',
        '      <error message="invalid repo_scripts in /c/case.json" type="exit 2">out of c &lt;&amp;&gt; \n</error>',
        "    </testcase>",
        "  </testsuite>",
        "</testsuites>",
        "",
      ].join("\n"),
    );
    expect(xmlEscape(`a"b'c\u0000d\uFFFEe😀`)).toBe("a&quot;b&apos;cde😀");
  });

  test.each([
    ["issue-creator/basic", "/x/basic", "issue-creator%2Fbasic"],
    ["grp", "/x/grp", "grp"],
    ["../escape", "/x/basic", "..%2Fescape"],
    ["/abs", "/x/basic", "%2Fabs"],
    ["a/./b", "/x/basic", "a%2F.%2Fb"],
    ["has space~2", "/x/basic", "has%20space%7E2"],
    ["..", "/x/basic", "%2E%2E"],
    ["", "/x/basic", "basic"],
    ["é", "/x/basic", "%C3%A9"],
    ["x".repeat(300), "/x/basic", `${"x".repeat(180)}~0d4e2ca9e9cbced7`],
  ])("keepName(%p) = %p", (name, dir, want) => {
    expect(keepName(name, dir)).toBe(want);
  });
});

test("schemas/run-result.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "run-result.schema.json"), "utf8"));
  expect(committed).toEqual(runResultJsonSchema());
});

// `run-eval compare BASE HEAD`: each case's change (worse, flaky, better, still failing, added,
// removed, passing), the Markdown a pull request gets, the HTML report, and the exit codes (0 nothing
// worse, 1 worse or a new case failing, 2 unusable input).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareRuns, renderCompareMarkdown } from "../../lib/hermetic/compare.ts";
import { renderCompareHtml } from "../../lib/hermetic/compare-report.ts";
import { type CaseRunResult, type RunResult, resultOfCases } from "../../lib/hermetic/result.ts";
import { tempDir } from "../support/tmp.ts";
import { runEval } from "./support.ts";

/** A case record: exit 0 passes, 1 fails grading, others stop in the subject. */
function kase(name: string, exitCode: number, assertions: [number, number] | null = [1, 1]): CaseRunResult {
  return {
    name,
    caseDir: `/cases/${name}`,
    result: exitCode === 0 ? "pass" : exitCode === 1 ? "fail" : "error",
    exitCode,
    stage: exitCode === 0 ? "done" : exitCode === 1 ? "grade" : "subject",
    message: exitCode === 0 ? null : `✗ ${name}`,
    assertions: assertions && { passed: assertions[0], total: assertions[1] },
    durationMs: 10,
    subjectMs: 5,
    kept: null,
    grade: null,
    sandbox: null,
    output: "",
  };
}
const run = (...cases: CaseRunResult[]): RunResult =>
  resultOfCases(cases, {
    jobs: 1,
    mechanism: "bwrap",
    durationMs: 1,
    exitCode: Math.max(0, ...cases.map((c) => c.exitCode)),
  });

describe("compareRuns", () => {
  test.each([
    { name: "pass -> pass", base: [kase("a", 0)], head: [kase("a", 0)], change: "passing", exit: 0 },
    { name: "pass -> fail", base: [kase("a", 0)], head: [kase("a", 1, [0, 1])], change: "worse", exit: 1 },
    {
      name: "pass -> subject exit 7",
      base: [kase("a", 0)],
      head: [kase("a", 7, null)],
      change: "worse",
      exit: 1,
    },
    { name: "fail -> pass", base: [kase("a", 1)], head: [kase("a", 0)], change: "better", exit: 0 },
    { name: "fail -> error", base: [kase("a", 1)], head: [kase("a", 2)], change: "still failing", exit: 0 },
    { name: "new and passing", base: [], head: [kase("a", 0)], change: "added", exit: 0 },
    { name: "new and failing", base: [], head: [kase("a", 1)], change: "added", exit: 1 },
    { name: "gone", base: [kase("a", 1)], head: [], change: "removed", exit: 0 },
    {
      name: "flaky in a rerun",
      base: [kase("a", 0)],
      head: [kase("a", 1)],
      rerun: [kase("a", 0)],
      change: "flaky",
      exit: 0,
    },
    {
      name: "a rerun agreeing",
      base: [kase("a", 0)],
      head: [kase("a", 1)],
      rerun: [kase("a", 1)],
      change: "worse",
      exit: 1,
    },
  ])("$name", ({ base, head, rerun, change, exit }) => {
    const cmp = compareRuns(run(...base), run(...head), rerun ? [run(...rerun)] : []);
    expect({ changes: cmp.cases.map((c) => [c.name, c.change]), exit: cmp.exitCode }).toEqual({
      changes: [["a", change]],
      exit,
    });
  });

  const base = run(
    kase("ok", 0),
    kase("fixed", 1, [2, 3]),
    kase("broke", 0, [3, 3]),
    kase("old", 0),
    kase("stuck", 1),
  );
  const head = run(
    kase("ok", 0),
    kase("fixed", 0, [3, 3]),
    kase("broke", 1, [1, 3]),
    kase("stuck", 7, null),
    kase("new|one", 0),
  );

  test("the Markdown: worse first, every case that did not pass in both, the rest counted", () => {
    expect(renderCompareMarkdown(compareRuns(base, head))).toBe(
      [
        "### run-eval compare: 1 worse, 1 better, 1 still failing, 1 added, 1 removed, 1 passing",
        "",
        "| change | case | base | head | assertions |",
        "|---|---|---|---|---:|",
        "| ❌ worse | broke | pass | fail | 3/3 → 1/3 |",
        "| ✅ better | fixed | fail | pass | 2/3 → 3/3 |",
        "| 🔴 still failing | stuck | fail | exit 7 | 1/1 → - |",
        "| 🆕 added | new\\|one | – | pass | – → 1/1 |",
        "| ➖ removed | old | pass | – | 1/1 → – |",
        "",
        "1 case(s) pass in both runs.",
        "",
      ].join("\n"),
    );
  });

  test("a repeated name is kept apart (#2), never folded into the first", () => {
    const cmp = compareRuns(run(kase("a", 0), kase("a", 0)), run(kase("a", 0), kase("a", 1)));
    expect(cmp.cases.map((c) => [c.name, c.change])).toEqual([
      ["a#2", "worse"],
      ["a", "passing"],
    ]);
  });

  test("the HTML: a card per change and a row per changed case", () => {
    const doc = renderCompareHtml(compareRuns(base, head), { base: "b.json", head: "h.json" });
    const rows = [...doc.matchAll(/data-case="([^"]+)" data-change="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    expect({
      kind: doc.includes('data-report="run-eval-compare"'),
      rows,
      cards: Object.fromEntries(
        [...doc.matchAll(/data-metric="([^"]+)" data-value="(\d+)"/g)].map((m) => [m[1], Number(m[2])]),
      ),
    }).toEqual({
      kind: true,
      rows: [
        ["broke", "worse"],
        ["fixed", "better"],
        ["stuck", "still failing"],
        ["new|one", "added"],
        ["old", "removed"],
        ["ok", "passing"],
      ],
      cards: { worse: 1, flaky: 0, better: 1, "still failing": 1, added: 1, removed: 1, passing: 1 },
    });
  });
});

describe("the command", () => {
  const b = run(kase("a", 0), kase("b", 1));
  const worse = run(kase("a", 1), kase("b", 1));
  const better = run(kase("a", 0), kase("b", 0));

  test.each([
    {
      name: "nothing worse: exit 0",
      head: better,
      exit: 0,
      first: "### run-eval compare: 1 better, 1 passing",
    },
    {
      name: "a case got worse: exit 1",
      head: worse,
      exit: 1,
      first: "### run-eval compare: 1 worse, 1 still failing",
    },
  ])("$name", async ({ head, exit, first }) => {
    using dir = tempDir("run-eval-compare");
    const [bp, hp, html] = ["base.json", "head.json", "cmp.html"].map((n) => join(dir.path, n)) as [
      string,
      string,
      string,
    ];
    writeFileSync(bp, JSON.stringify(b));
    writeFileSync(hp, JSON.stringify(head));
    const r = await runEval(["compare", bp, hp, "--report", html]);
    expect({
      exit: r.exitCode,
      first: r.stdout.split("\n")[0],
      stderr: r.stderr,
      html: readFileSync(html, "utf8"),
    }).toEqual({
      exit,
      first,
      stderr: "",
      html: renderCompareHtml(compareRuns(b, head), { base: bp, head: hp }),
    });
  });

  test.each([
    {
      name: "one file",
      argv: ["x.json"],
      stderr: "✗ run-eval compare takes BASE.json HEAD.json, got 1 file(s)\n",
    },
    {
      name: "three files",
      argv: ["x", "y", "z"],
      stderr: "✗ run-eval compare takes BASE.json HEAD.json, got 3 file(s)\n",
    },
    {
      name: "a missing file",
      argv: ["/nonexistent/b.json", "/nonexistent/h.json"],
      // One style for a missing input across tools (issue 26).
      stderr: '✗ Cannot read run result "/nonexistent/b.json": no such file\n',
    },
  ])("refused: $name (exit 2)", async ({ argv, stderr }) => {
    const r = await runEval(["compare", ...argv]);
    expect({ exit: r.exitCode, stdout: r.stdout }).toEqual({ exit: 2, stdout: "" });
    if (typeof stderr === "string") expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });
});

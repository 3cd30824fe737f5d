// `agent-eval compare BASE.json HEAD.json`: per variant (better/worse by the exact sign-flip test over
// the tasks both sides scored, added, removed) and per variant x task (better, worse, flaky, same,
// added, removed) from two scorecards built from known trials; the Markdown whole, the HTML read back
// through its data attributes, and the command as a process (exit 0, 2 for a bad command line, 3 for
// a bad file or, with --fail-on worse, a variant that got worse).
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { compareScorecards, renderComparisonMarkdown } from "../../lib/suite/compare.ts";
import { renderComparisonHtml } from "../../lib/suite/compare-report.ts";
import {
  buildScorecard,
  type Scorecard,
  scorecardJson,
  type Trial,
} from "../../lib/suite/scorecard/index.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

/** Trials from `{variant: {task: "PF."}}`: P passed, F failed, I an infrastructure failure. */
function trials(spec: Record<string, Record<string, string>>): Trial[] {
  const out: Trial[] = [];
  for (const [variant, tasks] of Object.entries(spec))
    for (const [task, runs] of Object.entries(tasks))
      for (const [repeat, r] of [...runs].entries())
        out.push({
          task,
          variant,
          repeat,
          pass: r === "P",
          costUSD: 0.01,
          turns: 2,
          wallMs: 1000,
          tokens: 10,
          toolErrors: 0,
          ...(r === "I" ? { infra: "start" as const, error: "engine" } : {}),
        });
  return out;
}

function scorecard(spec: Record<string, Record<string, string>>): Scorecard {
  return buildScorecard("s", "control", Object.keys(spec), trials(spec), { seed: 1 });
}

const ALL_FAIL = { a: "FF", b: "FF", c: "FF", d: "FF", e: "FF", f: "FF", g: "FF" };
const ALL_PASS = { a: "PP", b: "PP", c: "PP", d: "PP", e: "PP", f: "PP", g: "PP" };
const BASE = scorecard({
  control: { a: "FF", b: "FP" },
  fixer: { a: "PP", b: "PP", c: "PF", d: "FF", e: "PI" },
  tuned: ALL_FAIL,
  old: { a: "PF" },
});
const HEAD = scorecard({
  control: { a: "FF", b: "PF" },
  fixer: { a: "PP", b: "FF", c: "FP", d: "PP", f: "PP" },
  tuned: ALL_PASS,
  extra: { a: "PP" },
});

describe("compareScorecards", () => {
  test("variants and tasks, whole", () => {
    const c = compareScorecards(BASE, HEAD);
    const v = (name: string, sc: Scorecard) => {
      const s = sc.variants.find((x) => x.name === name)!;
      return { trials: s.trials, pass1: s.pass1, lo: s.pass1CILo, hi: s.pass1CIHi };
    };
    const side = (passes: number, scored: number) => ({ passes, scored });
    const same = (task: string, variant: string, s: { passes: number; scored: number }) => ({
      variant,
      task,
      base: s,
      head: s,
      change: "same" as const,
    });
    expect(c).toEqual({
      base: { suite: "s", trials: 30 },
      head: { suite: "s", trials: 30 },
      variants: [
        {
          variant: "control",
          base: v("control", BASE),
          head: v("control", HEAD),
          change: "same",
          test: { tasks: 2, p: 1 },
        },
        {
          variant: "fixer",
          base: v("fixer", BASE),
          head: v("fixer", HEAD),
          change: "same",
          test: { tasks: 4, p: 1 },
        },
        {
          variant: "tuned",
          base: v("tuned", BASE),
          head: v("tuned", HEAD),
          change: "better",
          test: { tasks: 7, p: 2 / 128 },
        },
        { variant: "old", base: v("old", BASE), change: "removed" },
        { variant: "extra", head: v("extra", HEAD), change: "added" },
      ],
      tasks: [
        same("a", "control", side(0, 2)),
        { variant: "control", task: "b", base: side(1, 2), head: side(1, 2), change: "flaky" },
        { variant: "extra", task: "a", head: side(2, 2), change: "added" },
        same("a", "fixer", side(2, 2)),
        { variant: "fixer", task: "b", base: side(2, 2), head: side(0, 2), change: "worse" },
        { variant: "fixer", task: "c", base: side(1, 2), head: side(1, 2), change: "flaky" },
        { variant: "fixer", task: "d", base: side(0, 2), head: side(2, 2), change: "better" },
        { variant: "fixer", task: "e", base: side(1, 1), change: "removed" },
        { variant: "fixer", task: "f", head: side(2, 2), change: "added" },
        { variant: "old", task: "a", base: side(1, 2), change: "removed" },
        ...["a", "b", "c", "d", "e", "f", "g"].map((t) => ({
          variant: "tuned",
          task: t,
          base: side(0, 2),
          head: side(2, 2),
          change: "better" as const,
        })),
      ],
    });
  });

  test("a regression the overlapping intervals hid: 10 tasks each 2/4 -> 1/4 are worse (p 2/1024)", () => {
    const tasks = (runs: string) => Object.fromEntries("abcdefghij".split("").map((t) => [t, runs]));
    const base = scorecard({ control: tasks("PPFF") });
    const head = scorecard({ control: tasks("PFFF") });
    const [c] = compareScorecards(base, head).variants;
    const overlap = head.variants[0]!.pass1CIHi >= base.variants[0]!.pass1CILo;
    expect({ change: c!.change, test: c!.test, overlap }).toEqual({
      change: "worse",
      test: { tasks: 10, p: 2 / 1024 },
      overlap: true,
    });
  });

  test("a scorecard without trials (the original may write null) compares variants only", () => {
    const c = compareScorecards({ ...BASE, trials: null }, HEAD);
    expect({ tasks: c.tasks, base: c.base, md: renderComparisonMarkdown(c).split("\n").slice(-2) }).toEqual({
      tasks: [],
      base: { suite: "s", trials: null },
      md: ["No per-task comparison: the base scorecard carries no trials.", ""],
    });
  });
});

describe("renderComparisonMarkdown", () => {
  test("the variant table, then worse, better, flaky, new and gone, then the count unchanged", () => {
    expect(renderComparisonMarkdown(compareScorecards(BASE, HEAD))).toMatchInlineSnapshot(`
      "# Suite comparison: s

      | Variant | Base pass@1 (95% CI) | Head pass@1 (95% CI) | Delta | Change |
      |---|---|---|---|---|
      | control | 25.0% (0.0-75.0) | 25.0% (0.0-75.0) | +0.0 pp | same (p 1.000, 2 tasks) |
      | fixer | 66.7% (33.3-100.0) | 70.0% (40.0-100.0) | +3.3 pp | same (p 1.000, 4 tasks) |
      | tuned | 0.0% (0.0-0.0) | 100.0% (100.0-100.0) | +100.0 pp | better (p 0.016, 7 tasks) |
      | old | 50.0% (0.0-100.0) | - | - | removed |
      | extra | - | 100.0% (100.0-100.0) | - | added |

      ## Worse (1)

      | Variant | Task | Base passed | Head passed |
      |---|---|---|---|
      | fixer | b | 2/2 | 0/2 |

      ## Better (8)

      | Variant | Task | Base passed | Head passed |
      |---|---|---|---|
      | fixer | d | 0/2 | 2/2 |
      | tuned | a | 0/2 | 2/2 |
      | tuned | b | 0/2 | 2/2 |
      | tuned | c | 0/2 | 2/2 |
      | tuned | d | 0/2 | 2/2 |
      | tuned | e | 0/2 | 2/2 |
      | tuned | f | 0/2 | 2/2 |
      | tuned | g | 0/2 | 2/2 |

      ## Flaky (2)

      | Variant | Task | Base passed | Head passed |
      |---|---|---|---|
      | control | b | 1/2 | 1/2 |
      | fixer | c | 1/2 | 1/2 |

      ## New (2)

      | Variant | Task | Base passed | Head passed |
      |---|---|---|---|
      | extra | a | - | 2/2 |
      | fixer | f | - | 2/2 |

      ## Gone (2)

      | Variant | Task | Base passed | Head passed |
      |---|---|---|---|
      | fixer | e | 1/1 | - |
      | old | a | 1/2 | - |

      2 of 17 variant x task pairs unchanged.
      "
    `);
  });
});

describe("renderComparisonHtml", () => {
  const page = renderComparisonHtml(compareScorecards(BASE, HEAD));
  test("every shown number and badge carries its source; sections by change", () => {
    const attrs = (tag: string) =>
      [...page.matchAll(new RegExp(`<span ([^>]*class="${tag}[^"]*"[^>]*)>([^<]*)<`, "g"))].map((m) => {
        const a = Object.fromEntries(
          [...m[1]!.matchAll(/data-([a-z]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]),
        );
        return [a.metric, a.variant, a.task ?? "", a.row ?? "", a.value ?? "", m[2]].join(" ");
      });
    expect({
      sections: [...page.matchAll(/data-section="([^"]+)"/g)].map((m) => m[1]),
      badges: attrs("badge"),
      fixerB: attrs("num").filter((s) => s.startsWith("passes fixer b ")),
      deltas: attrs("num").filter((s) => s.startsWith("delta ")),
      kind: /data-report="suite-compare"/.test(page),
      scripts: /<script/i.test(page),
    }).toEqual({
      sections: ["variants", "tasks-worse", "tasks-better", "tasks-flaky", "tasks-added", "tasks-removed"],
      badges: [
        "change control    same",
        "change fixer    same",
        "change tuned    better",
        "change old    removed",
        "change extra    added",
      ],
      fixerB: ["passes fixer b base 2 2/2", "passes fixer b head 0 0/2"],
      deltas: [
        "delta control   0 +0.0 pp",
        `delta fixer   ${HEAD.variants[1]!.pass1 - BASE.variants[1]!.pass1} ${renderDelta(BASE, HEAD, 1)}`,
        "delta tuned   1 +100.0 pp",
      ],
      kind: true,
      scripts: false,
    });
  });
});

function renderDelta(b: Scorecard, h: Scorecard, i: number): string {
  const d = 100 * (h.variants[i]!.pass1 - b.variants[i]!.pass1);
  return `${d >= 0 ? "+" : ""}${d.toFixed(1)} pp`;
}

describe("agent-eval compare", () => {
  const dir = tempDir("suite-compare");
  afterAll(() => dir[Symbol.dispose]());
  const base = join(dir.path, "base.json");
  const head = join(dir.path, "head.json");
  writeFileSync(base, scorecardJson(BASE));
  writeFileSync(head, scorecardJson(HEAD));
  writeFileSync(join(dir.path, "bad.json"), '{"suite": "s"}');

  async function cli(args: string[]) {
    const env = { ...(process.env as Record<string, string>) };
    delete env.CI;
    const r = await run([process.execPath, join(REPO_ROOT, "scripts", "agent-eval.ts"), "compare", ...args], {
      env,
    });
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  }

  test("Markdown on stdout, the HTML page with --report", async () => {
    const report = join(dir.path, "cmp.html");
    const r = await cli([base, head, "--report", report]);
    const c = compareScorecards(BASE, HEAD);
    expect({ ...r, html: readFileSync(report, "utf8") === renderComparisonHtml(c) }).toEqual({
      exitCode: 0,
      stdout: renderComparisonMarkdown(c),
      stderr: "",
      html: true,
    });
  });

  const bad: { name: string; args: () => string[]; exitCode: number; stderr: () => string }[] = [
    {
      name: "one scorecard",
      args: () => [base],
      exitCode: 2,
      stderr: () => "missing a scorecard: agent-eval compare BASE.json HEAD.json",
    },
    {
      name: "not a scorecard",
      args: () => [base, join(dir.path, "bad.json")],
      exitCode: 3,
      stderr: () =>
        `Cannot load scorecard "${join(dir.path, "bad.json")}": Invalid input: expected string, received undefined at control`,
    },
    {
      name: "no such file",
      args: () => [join(dir.path, "none.json"), head],
      exitCode: 3,
      stderr: () => `Cannot read scorecard "${join(dir.path, "none.json")}": no such file`,
    },
    {
      name: "a report in no directory",
      args: () => [base, head, "--report", join(dir.path, "no", "x.html")],
      exitCode: 2,
      stderr: () =>
        `--report "${join(dir.path, "no", "x.html")}": directory "${join(dir.path, "no")}" does not exist`,
    },
  ];
  bad.push({
    name: "--fail-on something else",
    args: () => [base, head, "--fail-on", "flaky"],
    exitCode: 2,
    stderr: () => '--fail-on: expected none or worse, got "flaky"',
  });
  for (const c of bad)
    test(`refused: ${c.name}`, async () => {
      expect(await cli(c.args())).toEqual({ exitCode: c.exitCode, stdout: "", stderr: `✗ ${c.stderr()}\n` });
    });

  test("--fail-on worse: exit 3 on a regression, the outputs written first; 0 when none got worse", async () => {
    const report = join(dir.path, "worse.html");
    const [worse, fine] = await Promise.all([
      cli([head, base, "--fail-on", "worse", "--report", report]),
      cli([base, head, "--fail-on", "worse"]),
    ]);
    expect({
      worse: { ...worse, stdout: worse.stdout === renderComparisonMarkdown(compareScorecards(HEAD, BASE)) },
      report: readFileSync(report, "utf8").includes('data-report="suite-compare"'),
      fine: fine.exitCode,
    }).toEqual({
      worse: { exitCode: 3, stdout: true, stderr: "compare: worse: tuned (--fail-on worse)\n" },
      report: true,
      fine: 0,
    });
  });
});

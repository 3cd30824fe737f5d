// The graders beside `check` (the newer original's grade.go): Go path.Match globs, the file and diff
// verdicts in its wording, the snapshot's parsing, and gradeTrial over a real /work on this host:
// for each type a pass, a failure (`detail`) and an error (no verdict: `error`, never a pass).
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { changedPaths, diffGrade, showPath } from "../../../lib/suite/graders/diff.ts";
import { judgeFile } from "../../../lib/suite/graders/file.ts";
import { anyGlobMatches, globProblem } from "../../../lib/suite/graders/glob.ts";
import {
  type AnyGrader,
  beginGrading,
  type Exec,
  firstGraderError,
  gradeTrial,
  JUDGE_MAX_FILES,
  type JudgeInput,
  snapshot,
  type TrialJudge,
} from "../../../lib/suite/graders/index.ts";
import { type Entry, parseListing, type Snapshot } from "../../../lib/suite/graders/snapshot.ts";
import type { Grade } from "../../../lib/suite/scorecard/schema.ts";
import { tempDir } from "../../support/tmp.ts";
import { hostExec } from "./_host.ts";

test("globs match as Go's path.Match, a slash-free glob also against the last element", () => {
  const rows: [string[], string, boolean][] = [
    [["*_test.go"], "a_test.go", true],
    [["*_test.go"], "pkg/deep/a_test.go", true],
    [["pkg/*.go"], "pkg/a.go", true],
    [["pkg/*.go"], "pkg/sub/a.go", false],
    [["*"], "pkg/a.go", true],
    [["pkg/*"], "pkg/sub/a.go", false],
    [["?.go"], "a.go", true],
    [["?.go"], "ab.go", false],
    [["[a-c].go"], "b.go", true],
    [["[^a-c].go"], "b.go", false],
    [["[^a-c].go"], "d.go", true],
    [["\\*.go"], "*.go", true],
    [["\\*.go"], "a.go", false],
    [["a.go"], "xa.go", false],
    [["docs/**"], "docs/a/b.md", false],
    [[], "a.go", false],
    [["x", "add.go"], "add.go", true],
  ];
  expect(rows.map(([globs, path]) => anyGlobMatches(globs, path))).toEqual(rows.map((r) => r[2]));
});

test("a malformed glob is named, a good one is not", () => {
  const rows = ["[", "[ab", "[]", "a\\", "[a-", "[z-a]", "*.go", "[\\]]", "a[b]c"];
  expect(rows.map(globProblem)).toEqual([
    "unclosed character class",
    "unclosed character class",
    "bad character range",
    "trailing backslash",
    "unclosed character class",
    "bad character range",
    null,
    null,
    null,
  ]);
});

describe("file verdicts, in the original's words", () => {
  const g = {
    type: "file" as const,
    path: "add.go",
    exists: true,
    contains: ["a + b"],
    notContains: ["a - b"],
  };
  const rows: {
    name: string;
    grader?: Partial<typeof g> & { matches?: string };
    body: string | null;
    want: { pass: boolean; detail?: string };
  }[] = [
    { name: "all met", body: "return a + b", want: { pass: true } },
    { name: "missing", body: null, want: { pass: false, detail: "add.go exists=false, want true" } },
    {
      name: "a string missing",
      body: "return b",
      want: { pass: false, detail: 'add.go does not contain "a + b"' },
    },
    {
      name: "a forbidden string",
      body: "a + b; a - b",
      want: { pass: false, detail: 'add.go contains "a - b"' },
    },
    {
      name: "must not exist, and does not",
      grader: { exists: false, contains: [] },
      body: null,
      want: { pass: true },
    },
    {
      name: "must not exist, but does",
      grader: { exists: false },
      body: "x",
      want: { pass: false, detail: "add.go exists=true, want false" },
    },
    {
      name: "matches",
      grader: { contains: [], notContains: [], matches: "^func Add" },
      body: "func Add(a, b int) int",
      want: { pass: true },
    },
    {
      name: "does not match",
      grader: { contains: [], notContains: [], matches: "^func Add$" },
      body: "func Add(a, b int) int",
      want: { pass: false, detail: "add.go does not match /^func Add$/" },
    },
  ];
  for (const r of rows) test(r.name, () => expect(judgeFile({ ...g, ...r.grader }, r.body)).toEqual(r.want));
});

describe("diff verdicts: max_files_changed, then must_not_change, then must_change", () => {
  const g = {
    type: "diff" as const,
    maxFilesChanged: 2,
    mustChange: ["add.go"],
    mustNotChange: ["*_test.go"],
  };
  const rows: { name: string; changed: string[]; grader?: Partial<typeof g>; want: Grade }[] = [
    { name: "ok", changed: ["add.go"], want: { grader: "diff", pass: true, detail: "1 files changed" } },
    {
      name: "too many",
      changed: ["a", "add.go", "b"],
      want: { grader: "diff", pass: false, detail: "3 files changed, max 2: a, add.go, b" },
    },
    {
      name: "no limit when 0",
      changed: ["a", "add.go", "b"],
      grader: { maxFilesChanged: 0 },
      want: { grader: "diff", pass: true, detail: "3 files changed" },
    },
    {
      name: "a protected path",
      changed: ["add.go", "pkg/add_test.go"],
      want: { grader: "diff", pass: false, detail: "changed protected path pkg/add_test.go" },
    },
    {
      name: "nothing required changed",
      changed: ["other.go"],
      want: { grader: "diff", pass: false, detail: "nothing matching add.go changed" },
    },
  ];
  for (const r of rows)
    test(r.name, () => expect(diffGrade({ ...g, ...r.grader }, r.changed)).toEqual(r.want));
});

const SUM = "ab".repeat(32);
const SUM2 = "cd".repeat(32);
const file = (sha256: string, size: number, exec = false) => ({ kind: "file" as const, sha256, size, exec });

describe("the snapshot listing: NUL-separated records a file name cannot forge", () => {
  const rows: {
    name: string;
    listing: string;
    want: { files: [string, Entry][]; status: number } | { error: string };
  }[] = [
    {
      name: "a batch, each line matched to its name",
      listing: `F\x002\x00-./a.go\x00x./b go.sh\x00${SUM}  ./a.go\n${SUM2}  ./b go.sh\n1 10 ./a.go\n2 20 ./b go.sh\n\x00end\x000\x00`,
      want: {
        files: [
          ["a.go", file(SUM, 10)],
          ["b go.sh", file(SUM2, 20, true)],
        ],
        status: 0,
      },
    },
    {
      name: "a name holding a newline and a forged listing line is one path",
      listing: `f\x00./x\n${SUM} 5 ./test.sh\x00-\n${SUM2}  -\n9 7\n\x00end\x000\x00`,
      want: { files: [[`x\n${SUM} 5 ./test.sh`, file(SUM2, 7)]], status: 0 },
    },
    {
      name: "a link (its target, newline kept), a FIFO, a special file, unreadable entries",
      listing:
        "l\x00./conftest.py\x00../t\nx\n\x00p\x00./f\x00\x00o\x00./s\x00\x00u\x00./u\x00x\x00d\x00./d\x00\x00end\x001\x00",
      want: {
        files: [
          ["conftest.py", { kind: "link", target: "../t\nx" }],
          ["f", { kind: "fifo" }],
          ["s", { kind: "special" }],
          ["u", { kind: "unreadable", exec: true }],
          ["d", { kind: "unreadable-dir" }],
        ],
        status: 1,
      },
    },
    {
      name: "two names that decode alike: both kept",
      listing: "p\x00./\ufffd\x00\x00p\x00./\ufffd\x00\x00end\x000\x00",
      want: {
        files: [
          ["\ufffd", { kind: "fifo" }],
          ["\ufffd\x002", { kind: "fifo" }],
        ],
        status: 0,
      },
    },
    {
      name: "a batch line for another name",
      listing: `F\x001\x00-./a.go\x00${SUM}  ./b.go\n1 10 ./a.go\n\x00end\x000\x00`,
      want: { error: 'unexpected listing: record "F": no checksum for "./a.go"' },
    },
    {
      name: "cut short (no end)",
      listing: "p\x00./f\x00\x00",
      want: { error: "unexpected listing: no end record" },
    },
    {
      name: "a file record without a checksum (no sha256sum)",
      listing: "f\x00./a\nb\x00-\n9 7\n\x00end\x000\x00",
      want: { error: 'unexpected listing: record "f": no checksum for "./a\\nb"' },
    },
  ];
  for (const r of rows)
    test(r.name, () => {
      const got = parseListing(r.listing);
      expect("error" in got ? got : { files: [...got.files], status: got.status }).toEqual(r.want);
    });
});

test("changed = added, modified (content, mode, kind) and deleted, sorted; odd paths quoted in details", () => {
  const before: Snapshot = new Map<string, Entry>([
    ["a", file(SUM, 1)],
    ["b", file(SUM, 1)],
    ["c", file(SUM, 1)],
    ["gone", file(SUM, 1)],
    ["same", file(SUM, 1)],
  ]);
  const after: Snapshot = new Map<string, Entry>([
    ["a", file(SUM2, 1)],
    ["b", file(SUM, 1, true)],
    ["c", { kind: "link", target: "a" }],
    ["new", { kind: "fifo" }],
    ["same", file(SUM, 1)],
  ]);
  expect({
    changed: changedPaths(before, after),
    shown: ["a.go", "x\n1 2 ./t"].map(showPath),
  }).toEqual({ changed: ["a", "b", "c", "gone", "new"], shown: ["a.go", '"x\\n1 2 ./t"'] });
});

const GRADERS: AnyGrader[] = [
  { type: "command", run: "grep -q 'a + b' add.go" },
  { type: "file", path: "add.go", exists: true, contains: ["a + b"], notContains: ["a - b"] },
  { type: "diff", maxFilesChanged: 2, mustChange: ["add.go"], mustNotChange: ["*_test.go"] },
  { type: "judge", rubric: "quality@1", rubricPath: "/r.yaml" },
];

/** Grades `dir` after `change` ran on it, with the snapshot taken before. */
async function gradeAfter(
  dir: string,
  change: () => void,
  opts: { judge?: TrialJudge; broken?: string[]; graders?: AnyGrader[] } = {},
): Promise<{ grades: Grade[] | undefined; graderError: string | undefined; pass: boolean }> {
  writeFileSync(join(dir, "add.go"), "func Add(a, b int) int { return a - b }\n");
  writeFileSync(join(dir, "add_test.go"), "test\n");
  const grading = await beginGrading(opts.graders ?? GRADERS, {
    exec: hostExec(dir, opts.broken),
    prompt: "Fix Add",
    ...(opts.judge ? { judge: opts.judge } : {}),
  });
  if ("error" in grading) throw new Error(grading.error);
  change();
  const trial: { grades?: Grade[]; graderError?: string } = {};
  const pass = await grading.finish(trial, true);
  return { grades: trial.grades, graderError: trial.graderError, pass };
}

/** add.go as the judge is shown it after the fix (its content aside): named by the graders. */
const FIXED_SHOWN = { path: "add.go", change: "modified", tier: "checked", bytes: 40, kind: "text" } as const;

const fix = (dir: string) => () =>
  writeFileSync(join(dir, "add.go"), "func Add(a, b int) int { return a + b }\n");
const seen: JudgeInput[] = [];
const judge: TrialJudge = async (rubricPath, input) => {
  seen.push(input);
  const fixed = input.changed.some((c) => c.content?.includes("a + b"));
  return {
    score: fixed ? 0.9 : 0.2,
    pass: fixed,
    rubric: `q@${rubricPath.length}`,
    rationale: fixed ? "fixed" : "not",
    order: { criteria: ["correctness", "style"], files: input.changed.map((c) => c.path) },
  };
};

describe("gradeTrial over a real /work: pass, fail and error for each grader type", () => {
  test.concurrent("the fix passes every grader; the judge sees the prompt and the changed file", async () => {
    using tmp = tempDir("graders");
    expect(await gradeAfter(tmp.path, fix(tmp.path), { judge })).toEqual({
      grades: [
        { grader: "command", pass: true },
        { grader: "file:add.go", pass: true },
        { grader: "diff", pass: true, detail: "1 files changed" },
        {
          grader: "judge:q@7",
          pass: true,
          score: 0.9,
          rubric: "q@7",
          detail: "fixed",
          order: { criteria: ["correctness", "style"], files: ["add.go"] },
          shown: { changed: 1, files: 1, truncated: [], omitted: 0, omittedPaths: [] },
        },
      ],
      graderError: undefined,
      pass: true,
    });
    expect(seen.find((i) => i.changed[0]?.content?.includes("a + b"))).toEqual({
      prompt: "Fix Add",
      changed: [{ ...FIXED_SHOWN, content: "func Add(a, b int) int { return a + b }\n" }],
      view: { added: 0, modified: 1, deleted: 0, omitted: 0, omittedPaths: [] },
    });
  });

  test.concurrent("untouched work fails each grader with its reason", async () => {
    using tmp = tempDir("graders");
    expect(await gradeAfter(tmp.path, () => {}, { judge })).toEqual({
      grades: [
        { grader: "command", pass: false, detail: "exit 1: " },
        { grader: "file:add.go", pass: false, detail: 'add.go does not contain "a + b"' },
        { grader: "diff", pass: false, detail: "nothing matching add.go changed" },
        {
          grader: "judge:q@7",
          pass: false,
          score: 0.2,
          rubric: "q@7",
          detail: "not",
          order: { criteria: ["correctness", "style"], files: [] },
          shown: { changed: 0, files: 0, truncated: [], omitted: 0, omittedPaths: [] },
        },
      ],
      graderError: undefined,
      pass: false,
    });
  });

  test.concurrent("deleted and protected files: the diff fails, the judge is told the file is gone", async () => {
    using tmp = tempDir("graders");
    const got = await gradeAfter(tmp.path, () => rmSync(join(tmp.path, "add_test.go")), {
      graders: [GRADERS[2]!],
    });
    expect(got).toEqual({
      grades: [{ grader: "diff", pass: false, detail: "changed protected path add_test.go" }],
      graderError: undefined,
      pass: false,
    });
  });

  test.concurrent("no verdict: no judge configured, a judge that throws, graders whose phase could not run", async () => {
    using a = tempDir("graders");
    using b = tempDir("graders");
    const throwing: TrialJudge = async () => {
      throw new Error("judge reply failed schema validation: rationale is required");
    };
    const none = await gradeAfter(a.path, fix(a.path), { broken: ["cat", "grep -q 'a + b' add.go"] });
    const thrown = await gradeAfter(b.path, fix(b.path), { judge: throwing, graders: [GRADERS[3]!] });
    expect({ none, thrown }).toEqual({
      none: {
        grades: [
          { grader: "command", pass: false, error: "container start: boom" },
          { grader: "file:add.go", pass: false, error: "read add.go: container start: boom" },
          { grader: "diff", pass: true, detail: "1 files changed" },
          {
            grader: "judge:quality@1",
            rubric: "quality@1",
            pass: false,
            error: "no judge configured (suite judge: block)",
          },
        ],
        graderError: "command: container start: boom",
        pass: false,
      },
      thrown: {
        grades: [
          {
            grader: "judge",
            pass: false,
            error: "judge reply failed schema validation: rationale is required",
          },
        ],
        graderError: "judge: judge reply failed schema validation: rationale is required",
        pass: false,
      },
    });
  });

  test.concurrent("a snapshot that cannot be taken is the trial's grader error; diff then errs after", async () => {
    using tmp = tempDir("graders");
    mkdirSync(join(tmp.path, "w"));
    const before = await snapshot(hostExec(join(tmp.path, "w"), ["sh"]));
    const grades = await gradeTrial([GRADERS[2]!], {
      exec: hostExec(join(tmp.path, "w"), ["sh"]),
      prompt: "p",
      before: new Map(),
    });
    expect({ before, grades, error: firstGraderError(grades) }).toEqual({
      before: { ok: false, error: "snapshot (exit -1, err container start: boom): " },
      grades: [{ grader: "diff", pass: false, error: "snapshot (exit -1, err container start: boom): " }],
      error: "diff: snapshot (exit -1, err container start: boom): ",
    });
  });

  test.concurrent("a judge is shown at most JUDGE_MAX_FILES changed paths, the largest first; the rest counted", async () => {
    using tmp = tempDir("graders");
    const exec = hostExec(tmp.path);
    const before = await snapshot(exec);
    if (!before.ok) throw new Error(before.error);
    for (let i = 0; i < JUDGE_MAX_FILES + 10; i++)
      writeFileSync(join(tmp.path, `f${String(i).padStart(3, "0")}`), `${i}`);
    const shown: JudgeInput[] = [];
    const count: TrialJudge = async (_r, input) => {
      shown.push(input);
      return { score: 1, pass: true, rubric: "q@1", rationale: "ok", order: { criteria: [], files: [] } };
    };
    await gradeTrial([GRADERS[3]!], { exec, prompt: "p", before: before.files, judge: count });
    const { changed, view } = shown[0]!;
    expect({
      n: changed.length,
      first: changed[0],
      view: { ...view, omittedPaths: view.omittedPaths.length },
    }).toEqual({
      n: JUDGE_MAX_FILES,
      first: { path: "f100", change: "added", tier: "changed", bytes: 3, kind: "text", content: "100" },
      view: { added: JUDGE_MAX_FILES + 10, modified: 0, deleted: 0, omitted: 10, omittedPaths: 10 },
    });
  });

  test.concurrent("two judge graders read the changed files in one phase and are shown the same", async () => {
    using tmp = tempDir("graders");
    const calls: string[][] = [];
    const exec: Exec = async (argv) => {
      calls.push(argv);
      return hostExec(tmp.path)(argv);
    };
    const before = await snapshot(exec);
    if (!before.ok) throw new Error(before.error);
    fix(tmp.path)();
    const shown: JudgeInput[] = [];
    const both: TrialJudge = async (_r, input) => {
      shown.push(input);
      return { score: 1, pass: true, rubric: "q@1", rationale: "ok", order: { criteria: [], files: [] } };
    };
    await gradeTrial([GRADERS[3]!, GRADERS[3]!], { exec, prompt: "p", before: before.files, judge: both });
    const file = {
      ...FIXED_SHOWN,
      change: "added" as const,
      tier: "changed" as const,
      content: "func Add(a, b int) int { return a + b }\n",
    };
    const view = { added: 1, modified: 0, deleted: 0, omitted: 0, omittedPaths: [] };
    expect({ phases: calls.map((argv) => argv[0]), shown }).toEqual({
      phases: ["sh", "sh", "sh"], // snapshot before, snapshot after, one read of the changed files
      shown: [
        { prompt: "p", changed: [file], view },
        { prompt: "p", changed: [file], view },
      ],
    });
  });

  test.concurrent("a check-only task: no snapshot, no grades, the check's pass", async () => {
    using tmp = tempDir("graders");
    const calls: string[][] = [];
    const exec: Exec = async (argv) => {
      calls.push(argv);
      return hostExec(tmp.path)(argv);
    };
    const grading = await beginGrading([], { exec, prompt: "p" });
    if ("error" in grading) throw new Error(grading.error);
    const trial = {};
    expect({ pass: await grading.finish(trial, false), trial, calls }).toEqual({
      pass: false,
      trial: {},
      calls: [],
    });
  });
});

// Subjects that attack the runner itself, in one sandboxed run-eval invocation with --keep: a FIFO
// at an idd-lint OUT path, at the red-green file and at the call log, a sparse 2 GiB call log, a
// sparse 1 GiB OUT file under --keep, cases named grp/case-a, grp/case-b and grp, and case.json files
// that do not parse. The run ends (no read blocks), each refused file is one line, a passed case
// stays passed, every kept copy survives, and no work directory is left.
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcResult } from "../../lib/core/proc.ts";
import { MAX_FILE_BYTES } from "../../lib/grade/out.ts";
import { RunResult } from "../../lib/hermetic/result.ts";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

const dir = tempDir("run-eval-hostile");
const tmp = openTmp();
const cases = join(dir.path, "cases");
const keep = join(dir.path, "keep");
let r: ProcResult;
let result: RunResult;

const who = { tool: "file-exists", file: "OUT/who.txt", label: "who" };
const CASES = [
  {
    name: "fifo-idd",
    body: 'mkfifo "$OUT/issue.md"',
    grade: [{ tool: "idd-lint", args: ["issue", "OUT/issue.md"], label: "issue" }],
  },
  {
    name: "fifo-red-green",
    body: 'mkfifo "$OUT/rg.json"',
    grade: [{ tool: "red-green", file: "OUT/rg.json", label: "rg" }],
  },
  {
    name: "fifo-call-log",
    body: 'rm -f "$EVAL_GH_CALL_LOG"\nmkfifo "$EVAL_GH_CALL_LOG"\ngh --version > /dev/null',
    grade: [{ tool: "gh-calls", expect_count: 1, label: "calls" }],
  },
  {
    name: "sparse-call-log",
    body: 'truncate -s 2G "$EVAL_GH_CALL_LOG"',
    grade: [{ tool: "gh-calls", expect_count: 0, label: "calls" }],
  },
  {
    name: "sparse-out",
    body: 'truncate -s 1G "$OUT/big.bin"\necho s > "$OUT/who.txt"',
    grade: [who],
  },
  { name: "k-a", extra: { name: "grp/case-a" }, body: 'echo a > "$OUT/who.txt"', grade: [who] },
  { name: "k-b", extra: { name: "grp/case-b" }, body: 'echo b > "$OUT/who.txt"', grade: [who] },
  { name: "k-grp", extra: { name: "grp" }, body: 'echo g > "$OUT/who.txt"', grade: [who] },
  { name: "json-cut", raw: '{"name": "x", "grade": [\n' },
  { name: "json-deep", raw: `${"[".repeat(5000)}${"]".repeat(5000)}` },
  { name: "json-list", raw: "[]" },
];

beforeAll(async () => {
  for (const c of CASES) writeEvalCase(cases, c);
  r = await runEval(["-j", "2", "--json", "--keep", keep, cases], { TMPDIR: tmp.path });
  result = RunResult.parse(JSON.parse(r.stdout));
  return () => {
    dir[Symbol.dispose]();
    tmp[Symbol.dispose]();
  };
});

/** The lines of a case's output that explain it (⚠ and ✗), the work directory written as <W>. */
function why(output: string): string[] {
  const work = /gh: {3}(\S+)\/bin\/gh\n/.exec(output)?.[1];
  return output
    .split("\n")
    .filter((l) => /^\s*(│ )?[⚠✗]/.test(l))
    .map((l) => (work ? l.replaceAll(work, "<W>") : l).trim());
}

const CAP = `larger than the size cap (${2 ** 31} bytes, cap ${MAX_FILE_BYTES}); --max-file-bytes raises the cap`;

describe("a run whose subjects attack the runner", () => {
  test("every case ends with its code and one line per refused file", () => {
    const at = (n: string) => join(cases, n, "case.json");
    expect(
      result.cases.map((c) => ({ name: c.name, code: c.exitCode, stage: c.stage, why: why(c.output) })),
    ).toEqual([
      {
        name: "fifo-call-log",
        code: 1,
        stage: "grade",
        why: [
          "⚠ gh shim: cannot append to EVAL_GH_CALL_LOG <W>/gh-calls.jsonl: ENXIO: no such device or address, open '<W>/gh-calls.jsonl'",
          "⚠ call log not published: <W>/gh-calls.jsonl: not a regular file",
          "✗ calls — missing call log OUT/gh-calls.jsonl",
          "✗ grade failed: 0 passed, 1 failed",
          "✗ eval failed: fifo-call-log",
          "⚠ --keep: not kept: gh-calls.jsonl: not a regular file",
        ],
      },
      {
        name: "fifo-idd",
        code: 1,
        stage: "grade",
        why: [
          '│ ✗ Cannot read file "<W>/out/issue.md": refused, not a regular file',
          "✗ issue (want exit 0, got 2)",
          "✗ grade failed: 0 passed, 1 failed",
          "✗ eval failed: fifo-idd",
          "⚠ --keep: not kept: OUT/issue.md: not a regular file",
        ],
      },
      {
        name: "fifo-red-green",
        code: 1,
        stage: "grade",
        why: [
          '✗ rg — invalid red-green JSON: Refused "<W>/out/rg.json": not a regular file',
          "✗ grade failed: 0 passed, 1 failed",
          "✗ eval failed: fifo-red-green",
          "⚠ --keep: not kept: OUT/rg.json: not a regular file",
        ],
      },
      {
        name: "json-cut",
        code: 2,
        stage: "refused",
        why: [`✗ Cannot parse case "${at("json-cut")}": Expecting value at line 2 column 1`],
      },
      {
        name: "json-deep",
        code: 2,
        stage: "refused",
        why: [`✗ Cannot parse case "${at("json-deep")}": Nesting too deep at line 1 column 902`],
      },
      {
        name: "json-list",
        code: 2,
        stage: "refused",
        why: [`✗ Cannot load case "${at("json-list")}": expected an object at the top level`],
      },
      { name: "grp/case-a", code: 0, stage: "done", why: [] },
      { name: "grp/case-b", code: 0, stage: "done", why: [] },
      { name: "grp", code: 0, stage: "done", why: [] },
      {
        name: "sparse-call-log",
        code: 1,
        stage: "grade",
        why: [
          `⚠ call log not published: <W>/gh-calls.jsonl: ${CAP}`,
          "✗ calls — missing call log OUT/gh-calls.jsonl",
          "✗ grade failed: 0 passed, 1 failed",
          "✗ eval failed: sparse-call-log",
          `⚠ --keep: not kept: gh-calls.jsonl: ${CAP}`,
        ],
      },
      {
        name: "sparse-out",
        code: 0,
        stage: "done",
        why: [
          `⚠ --keep: not kept: OUT/big.bin: larger than the size cap (${2 ** 30} bytes, cap ${MAX_FILE_BYTES}); --max-file-bytes raises the cap`,
        ],
      },
    ]);
    expect(r.exitCode).toBe(2);
  });

  test("grp/case-a, grp/case-b and grp: four passes counted, each kept copy is its own", () => {
    const kept = Object.fromEntries(
      result.cases
        .filter((c) => c.exitCode === 0)
        .map((c) => [c.name, readFileSync(join(c.kept ?? "", "out", "who.txt"), "utf8")]),
    );
    expect({ passed: result.counts.passed, kept }).toEqual({
      passed: 4,
      kept: { "grp/case-a": "a\n", "grp/case-b": "b\n", grp: "g\n", "sparse-out": "s\n" },
    });
    expect(readdirSync(keep).sort()).toEqual(
      [
        "fifo-call-log",
        "fifo-idd",
        "fifo-red-green",
        "grp",
        "grp%2Fcase-a",
        "grp%2Fcase-b",
        "sparse-call-log",
        "sparse-out",
      ].sort(),
    );
  });

  test("no work directory is left", () => {
    expect(readdirSync(tmp.path).filter((n) => n.startsWith("proctor-eval-"))).toEqual([]);
  });
});

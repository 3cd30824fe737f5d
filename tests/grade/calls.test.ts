import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandKey, ghCallsTool, parseCallLog, sideBySide } from "../../lib/grade/calls.ts";
import type { GradeContext } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

// The call log of the reference's T2 flow: three identical issue view calls.
const ARGV = ["issue", "view", "7", "--json", "body,labels,number,state,title"];
const LOG = `${[ARGV, ARGV, ARGV].map((argv) => JSON.stringify({ argv }).replaceAll('","', '", "')).join("\n")}\n`;
const MISSING = (f = "OUT/gh-calls.jsonl") => ({ got: null, reason: `missing call log ${f}`, output: [] });

async function grade(
  assertion: Record<string, unknown>,
  files: Record<string, string | Uint8Array> = { "gh-calls.jsonl": LOG },
) {
  using tmp = tempDir("grade-calls");
  const out = join(tmp.path, "out");
  mkdirSync(out);
  for (const [rel, content] of Object.entries(files)) writeFileSync(join(out, rel), content);
  writeFileSync(join(tmp.path, "gh-calls.jsonl"), LOG);
  symlinkSync(join(tmp.path, "gh-calls.jsonl"), join(out, "link.jsonl"));
  const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };
  return ghCallsTool({ tool: "gh-calls", ...assertion }, ctx);
}

describe("gh-calls (7.2 T6)", () => {
  const cases: {
    name: string;
    assertion: Record<string, unknown>;
    files?: Record<string, string>;
    want: unknown;
  }[] = [
    {
      name: "ok: full correct expectation",
      assertion: { expect_count: 3, expect_by_command: { "issue view": 3 }, expect_argv: [ARGV, ARGV, ARGV] },
      want: { got: 0, output: [] },
    },
    {
      name: "off: count off by one",
      assertion: { expect_count: 2 },
      want: { got: 1, output: ["expect_count: want 2, got 3"] },
    },
    {
      name: "neg: count 4 on a 3-call log",
      assertion: { expect_count: 4, expect_exit: 1 },
      want: { got: 1, output: ["expect_count: want 4, got 3"] },
    },
    {
      name: "cmd: wrong per-command count",
      assertion: { expect_by_command: { "pr view": 1 } },
      want: { got: 1, output: ["expect_by_command['pr view']: want 1, got 0"] },
    },
    {
      name: "0 means absent",
      assertion: { expect_by_command: { "issue create": 0, "issue view": 3 } },
      want: { got: 0, output: [] },
    },
    {
      name: "seq: partial argv sequence",
      assertion: { expect_argv: [ARGV] },
      want: {
        got: 1,
        output: [
          "expect_argv: differs at call 2 (want 1 calls, got 3)",
          "  #  want                                                got",
          "  1  issue view 7 --json body,labels,number,state,title  issue view 7 --json body,labels,number,state,title",
          "> 2  (none)                                              issue view 7 --json body,labels,number,state,title",
          "  3  (none)                                              issue view 7 --json body,labels,number,state,title",
        ],
      },
    },
    {
      name: "seq: one argv differs; wanted and actual side by side, the first difference marked",
      assertion: { expect_argv: [ARGV, ["issue", "view", "8", "--json", "body"], ARGV, ["pr", "list"]] },
      want: {
        got: 1,
        output: [
          "expect_argv: differs at call 2 (want 4 calls, got 3)",
          "  #  want                                                got",
          "  1  issue view 7 --json body,labels,number,state,title  issue view 7 --json body,labels,number,state,title",
          "> 2  issue view 8 --json body                            issue view 7 --json body,labels,number,state,title",
          "  3  issue view 7 --json body,labels,number,state,title  issue view 7 --json body,labels,number,state,title",
          "  4  pr list                                             (none)",
        ],
      },
    },
    {
      name: "seq: tokens with spaces are quoted, an empty argv is named",
      assertion: { expect_argv: [[], ["issue", "create", "--title", "a b"], ARGV] },
      want: {
        got: 1,
        output: [
          "expect_argv: differs at call 1 (want 3 calls, got 3)",
          "  #  want                                                got",
          "> 1  (no arguments)                                      issue view 7 --json body,labels,number,state,title",
          '  2  issue create --title "a b"                          issue view 7 --json body,labels,number,state,title',
          "  3  issue view 7 --json body,labels,number,state,title  issue view 7 --json body,labels,number,state,title",
        ],
      },
    },
    { name: "missing log", assertion: { expect_count: 0 }, files: {}, want: MISSING() },
    {
      name: "missing log with expect_exit 1",
      assertion: { expect_count: 1, expect_exit: 1 },
      files: {},
      want: MISSING(),
    },
    {
      name: "escape: OUT/../gh-calls.jsonl",
      assertion: { file: "OUT/../gh-calls.jsonl", expect_count: 3 },
      want: {
        got: null,
        reason: "call log must be an OUT/ path without '..' or symlinks, got 'OUT/../gh-calls.jsonl'",
        output: [],
      },
    },
    {
      name: "a symlink out of OUT",
      assertion: { file: "OUT/link.jsonl", expect_count: 3 },
      want: {
        got: null,
        reason: "call log must be an OUT/ path without '..' or symlinks, got 'OUT/link.jsonl'",
        output: [],
      },
    },
    {
      name: "an absolute path",
      assertion: { file: "/etc/passwd", expect_count: 3 },
      want: {
        got: null,
        reason: "call log must be an OUT/ path without '..' or symlinks, got '/etc/passwd'",
        output: [],
      },
    },
    {
      name: "none: no expectation",
      assertion: {},
      want: {
        got: null,
        reason: "gh-calls requires expect_count, expect_by_command or expect_argv",
        output: [],
      },
    },
    {
      name: "another log file",
      assertion: { file: "OUT/calls2.jsonl", expect_count: 1 },
      files: { "calls2.jsonl": '{"argv": []}\n' },
      want: { got: 0, output: [] },
    },
    {
      name: "an empty log is zero calls",
      assertion: { expect_count: 0 },
      files: { "gh-calls.jsonl": "" },
      want: { got: 0, output: [] },
    },
    {
      name: "a malformed line",
      assertion: { expect_count: 2 },
      files: { "gh-calls.jsonl": '{"argv": ["a"]}\nnot json\n' },
      want: {
        got: null,
        reason: "malformed call log line 2: Expecting value: line 1 column 1 (char 0)",
        output: [],
      },
    },
    {
      name: "a record without argv",
      assertion: { expect_count: 1 },
      files: { "gh-calls.jsonl": '{"args": ["a"]}\n' },
      want: { got: null, reason: 'malformed call log line 1: expected {"argv": [strings]}', output: [] },
    },
    {
      name: "a string count",
      assertion: { expect_count: "3" },
      want: { got: null, reason: "expect_count must be a non-negative integer", output: [] },
    },
    {
      name: "a non-integer per-command count",
      assertion: { expect_by_command: { "issue view": 1.5 } },
      want: { got: null, reason: "expect_by_command must map commands to non-negative integers", output: [] },
    },
    {
      name: "argv not a list of lists",
      assertion: { expect_argv: ["issue"] },
      want: { got: null, reason: "expect_argv must be a list of argv lists", output: [] },
    },
  ];
  for (const c of cases)
    test(c.name, async () => expect(await grade(c.assertion, c.files)).toEqual(c.want as never));

  test("a non-UTF-8 log fails with a clear reason", async () => {
    expect(
      await grade({ expect_count: 1 }, { "gh-calls.jsonl": new Uint8Array([0x7b, 0xff, 0x0a]) as never }),
    ).toEqual({
      got: null,
      reason: "call log OUT/gh-calls.jsonl is not valid UTF-8",
      output: [],
    });
  });
});

test("commandKey joins argv[:2] (cost-counters T5 keys)", () => {
  expect([["issue", "view", "7"], ["--version"], [], ["api", "--paginate", "x"]].map(commandKey)).toEqual([
    "issue view",
    "--version",
    "",
    "api --paginate",
  ]);
});

test("parseCallLog reads one argv per line", () => {
  expect(parseCallLog(LOG)).toEqual({ ok: true, calls: [ARGV, ARGV, ARGV] });
  expect(parseCallLog('{"argv": ["a", 1]}\n')).toEqual({
    ok: false,
    reason: 'malformed call log line 1: expected {"argv": [strings]}',
  });
});

test("sideBySide: a long log shows 12 calls around the first difference, the rest counted", () => {
  const got = Array.from({ length: 30 }, (_, i) => ["api", `page=${i + 1}`]);
  const want = got.map((argv, i) => (i === 19 ? ["api", "page=x"] : argv));
  expect(sideBySide(want, got, 19)).toEqual([
    "  #   want         got",
    "  ... 16 calls before",
    "  17  api page=17  api page=17",
    "  18  api page=18  api page=18",
    "  19  api page=19  api page=19",
    "> 20  api page=x   api page=20",
    "  21  api page=21  api page=21",
    "  22  api page=22  api page=22",
    "  23  api page=23  api page=23",
    "  24  api page=24  api page=24",
    "  25  api page=25  api page=25",
    "  26  api page=26  api page=26",
    "  27  api page=27  api page=27",
    "  28  api page=28  api page=28",
    "  ... 2 calls after",
  ]);
});

test("sideBySide: a long cell is cut, except on the marked row", () => {
  const long = ["issue", "create", "--body", "x".repeat(80)];
  const [, first, second] = sideBySide([long, long], [long, ["issue", "create"]], 1);
  expect({ first, second }).toEqual({
    first: `  1  issue create --body ${"x".repeat(39)}…  issue create --body ${"x".repeat(39)}…`,
    second: `> 2  issue create --body ${"x".repeat(80)}  issue create`,
  });
});

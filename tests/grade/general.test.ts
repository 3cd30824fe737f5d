import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  fileContainsTool,
  fileEqualsTool,
  fileNotContainsTool,
  jsonPathTool,
} from "../../lib/grade/general.ts";
import { checkLine } from "../../lib/grade/runner.ts";
import type { GradeContext, GradeHandler, ToolOutcome } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

/** OUT with a few artifacts, and a case directory with expected/. */
function ctxIn(root: string): GradeContext {
  const out = join(root, "out");
  const caseDir = join(root, "case");
  mkdirSync(join(out, "dir"), { recursive: true });
  mkdirSync(join(caseDir, "expected"), { recursive: true });
  writeFileSync(join(out, "report.md"), "# Report\nstatus: ok\nTODO one\nTODO two\n");
  writeFileSync(
    join(out, "result.json"),
    '{"status": "ok", "count": 3, "ratio": 1.0, "items": [{"id": "a-1"}], "ok": true}',
  );
  writeFileSync(join(out, "bad.json"), '{"status": ');
  writeFileSync(join(out, "binary.bin"), Buffer.from([0xff, 0xfe, 0x00]));
  writeFileSync(join(caseDir, "expected", "report.md"), "# Report\nstatus: ok\nTODO one\nTODO two\n");
  writeFileSync(join(caseDir, "expected", "other.md"), "# Report\nstatus: failed\n");
  symlinkSync(join(out, "report.md"), join(out, "link.md"));
  execFileSync("mkfifo", [join(out, "fifo")]);
  return { outDir: out, repoRoot: REPO, cwd: root, caseDir };
}

type Row = { name: string; a: Record<string, unknown>; want: Omit<ToolOutcome, "check"> & { says?: string } };

function table(title: string, tool: GradeHandler, rows: Row[]): void {
  describe(title, () => {
    for (const r of rows) {
      test(r.name, async () => {
        using tmp = tempDir("grade-general");
        const o = await tool(r.a, ctxIn(tmp.path));
        // A check says what it tested; under expect_exit 0 that is its verdict line when it fails.
        const says = o.check ? { says: checkLine(o.check, 0) } : {};
        const { check: _, ...rest } = o;
        expect({ ...rest, ...says }).toEqual(r.want);
      });
    }
  });
}

const reason = (why: string): ToolOutcome => ({ got: null, reason: why, output: [] });

table("file-contains", fileContainsTool, [
  {
    name: "literal text, at least once (default)",
    a: { tool: "file-contains", file: "OUT/report.md", text: "status: ok" },
    want: {
      got: 0,
      says: 'OUT/report.md: want at least 1 match of "status: ok", got 1 (first at line 2)',
      output: [],
    },
  },
  {
    name: "a path without OUT/ is under OUT too",
    a: { tool: "file-contains", file: "report.md", text: "TODO" },
    want: {
      got: 0,
      says: 'OUT/report.md: want at least 1 match of "TODO", got 2 (first at line 3)',
      output: [],
    },
  },
  {
    name: "exact count holds",
    a: { tool: "file-contains", file: "OUT/report.md", regex: "^TODO \\w+$", count: 2 },
    want: {
      got: 0,
      says: "OUT/report.md: want exactly 2 matches of /^TODO \\w+$/, got 2 (first at line 3)",
      output: [],
    },
  },
  {
    name: "exact count fails",
    a: { tool: "file-contains", file: "OUT/report.md", text: "TODO", count: 1 },
    want: {
      got: 1,
      says: 'OUT/report.md: want exactly 1 match of "TODO", got 2 (first at line 3)',
      output: [],
    },
  },
  {
    name: "min_count fails",
    a: { tool: "file-contains", file: "OUT/report.md", text: "TODO", min_count: 3 },
    want: {
      got: 1,
      says: 'OUT/report.md: want at least 3 matches of "TODO", got 2 (first at line 3)',
      output: [],
    },
  },
  {
    name: "not there",
    a: { tool: "file-contains", file: "OUT/report.md", text: "status: failed" },
    want: { got: 1, says: 'OUT/report.md: want at least 1 match of "status: failed", got 0', output: [] },
  },
  {
    name: "count 0 is 'absent'",
    a: { tool: "file-contains", file: "OUT/report.md", text: "FIXME", count: 0 },
    want: { got: 0, says: 'OUT/report.md: want exactly 0 matches of "FIXME", got 0', output: [] },
  },
  {
    name: "a missing file",
    a: { tool: "file-contains", file: "OUT/none.md", text: "x" },
    want: reason("cannot read OUT/none.md: no such file"),
  },
  {
    name: "a link under OUT is refused",
    a: { tool: "file-contains", file: "OUT/link.md", text: "x" },
    want: reason("cannot read OUT/link.md: a symbolic link where a file or directory was expected"),
  },
  {
    name: "a FIFO never blocks",
    a: { tool: "file-contains", file: "OUT/fifo", text: "x" },
    want: reason("cannot read OUT/fifo: not a regular file"),
  },
  {
    name: "not UTF-8",
    a: { tool: "file-contains", file: "OUT/binary.bin", text: "x" },
    want: reason("cannot read OUT/binary.bin: not valid UTF-8"),
  },
  {
    name: "malformed: text and regex",
    a: { tool: "file-contains", file: "OUT/report.md", text: "x", regex: "x" },
    want: reason("text: expected exactly one of text, regex"),
  },
  {
    name: "malformed: neither text nor regex",
    a: { tool: "file-contains", file: "OUT/report.md" },
    want: reason("text: expected exactly one of text, regex"),
  },
  {
    name: "malformed: count and min_count",
    a: { tool: "file-contains", file: "OUT/report.md", text: "x", count: 1, min_count: 1 },
    want: reason("count: expected count or min_count, not both"),
  },
  {
    name: "malformed: a bad regex",
    a: { tool: "file-contains", file: "OUT/report.md", regex: "(" },
    want: reason("regex: expected a valid regular expression: Invalid regular expression: missing )"),
  },
  {
    name: "malformed: a path leaving OUT",
    a: { tool: "file-contains", file: "OUT/../etc/passwd", text: "root" },
    want: reason(`file: expected a path under OUT without "..", got 'OUT/../etc/passwd'`),
  },
]);

table("malformed fields graded without lint (grade alone): a reason, never a hang", fileContainsTool, [
  {
    name: "empty text",
    a: { tool: "file-contains", file: "OUT/report.md", text: "" },
    want: reason("text: expected a non-empty string, got ''"),
  },
  {
    name: "regex not a string",
    a: { tool: "file-contains", file: "OUT/report.md", regex: 5 },
    want: reason("regex: expected a non-empty string, got 5"),
  },
  {
    name: "count not an integer",
    a: { tool: "file-contains", file: "OUT/report.md", text: "x", count: "2" },
    want: reason("count: expected an integer >= 0, got '2'"),
  },
  {
    name: "no file",
    a: { tool: "file-contains", text: "x" },
    want: reason("file: expected a non-empty string, got nothing"),
  },
]);

table("file-not-contains", fileNotContainsTool, [
  {
    name: "absent",
    a: { tool: "file-not-contains", file: "OUT/report.md", text: "FIXME" },
    want: { got: 0, says: 'OUT/report.md: want no match of "FIXME", got 0', output: [] },
  },
  {
    name: "present: where, and how often",
    a: { tool: "file-not-contains", file: "OUT/report.md", regex: "todo|TODO" },
    want: {
      got: 1,
      says: "OUT/report.md: want no match of /todo|TODO/, got 2 (first at line 3)",
      output: ['line 3: "TODO one"'],
    },
  },
  {
    name: "a missing file",
    a: { tool: "file-not-contains", file: "OUT/none.md", text: "x" },
    want: reason("cannot read OUT/none.md: no such file"),
  },
  {
    name: "malformed: neither text nor regex",
    a: { tool: "file-not-contains", file: "OUT/report.md" },
    want: reason("text: expected exactly one of text, regex"),
  },
]);

table("file-equals", fileEqualsTool, [
  {
    name: "equal to the golden file",
    a: { tool: "file-equals", file: "OUT/report.md", golden: "expected/report.md" },
    want: {
      got: 0,
      says: "OUT/report.md: want the bytes of expected/report.md, got the same bytes",
      output: [],
    },
  },
  {
    name: "differs: the first differing line, wanted and got",
    a: { tool: "file-equals", file: "OUT/report.md", golden: "expected/other.md" },
    want: {
      got: 1,
      says: "OUT/report.md: want the bytes of expected/other.md, got a difference at line 2",
      output: ['  want: "status: failed"', '  got:  "status: ok"'],
    },
  },
  {
    name: "a missing golden file",
    a: { tool: "file-equals", file: "OUT/report.md", golden: "expected/none.md" },
    want: reason("cannot read golden expected/none.md: no such file"),
  },
  {
    name: "malformed: a golden path leaving the case",
    a: { tool: "file-equals", file: "OUT/report.md", golden: "../out/report.md" },
    want: reason(`golden: expected a path under the case directory without "..", got '../out/report.md'`),
  },
]);

table("json-path", jsonPathTool, [
  {
    name: "equals a string",
    a: { tool: "json-path", file: "OUT/result.json", path: "status", equals: "ok" },
    want: { got: 0, says: 'OUT/result.json at status: want "ok", got "ok"', output: [] },
  },
  {
    name: "equals a number ($.)",
    a: { tool: "json-path", file: "OUT/result.json", path: "$.count", equals: 3 },
    want: { got: 0, says: "OUT/result.json at $.count: want 3, got 3", output: [] },
  },
  {
    name: "1.0 equals 1",
    a: { tool: "json-path", file: "OUT/result.json", path: "ratio", equals: 1 },
    want: { got: 0, says: "OUT/result.json at ratio: want 1, got 1", output: [] },
  },
  {
    name: "true does not equal 1",
    a: { tool: "json-path", file: "OUT/result.json", path: "ok", equals: 1 },
    want: { got: 1, says: "OUT/result.json at ok: want 1, got true", output: [] },
  },
  {
    name: "matches in a list",
    a: { tool: "json-path", file: "OUT/result.json", path: "items[0].id", matches: "^a-\\d+$" },
    want: {
      got: 0,
      says: 'OUT/result.json at items[0].id: want a string matching /^a-\\d+$/, got "a-1"',
      output: [],
    },
  },
  {
    name: "equals an object",
    a: { tool: "json-path", file: "OUT/result.json", path: "items", equals: [{ id: "a-1" }] },
    want: { got: 0, says: 'OUT/result.json at items: want [{"id":"a-1"}], got [{"id":"a-1"}]', output: [] },
  },
  {
    name: "a different value",
    a: { tool: "json-path", file: "OUT/result.json", path: "count", equals: 4 },
    want: { got: 1, says: "OUT/result.json at count: want 4, got 3", output: [] },
  },
  {
    name: "matches only strings",
    a: { tool: "json-path", file: "OUT/result.json", path: "count", matches: "3" },
    want: { got: 1, says: "OUT/result.json at count: want a string matching /3/, got 3", output: [] },
  },
  {
    name: "no such key",
    a: { tool: "json-path", file: "OUT/result.json", path: "items[0].name", equals: "x" },
    want: {
      got: 1,
      says: 'OUT/result.json at items[0].name: want "x", got no value ($.items[0] has no key "name")',
      output: [],
    },
  },
  {
    name: "index past the end",
    a: { tool: "json-path", file: "OUT/result.json", path: "items[3]", equals: "x" },
    want: {
      got: 1,
      says: 'OUT/result.json at items[3]: want "x", got no value ($.items has 1 item(s))',
      output: [],
    },
  },
  {
    name: "not JSON",
    a: { tool: "json-path", file: "OUT/bad.json", path: "status", equals: "ok" },
    want: reason("OUT/bad.json: Expecting value: line 1 column 12 (char 11)"),
  },
  {
    name: "malformed: equals and matches",
    a: { tool: "json-path", file: "OUT/result.json", path: "status", equals: "ok", matches: "ok" },
    want: reason("equals: expected exactly one of equals, matches"),
  },
  {
    name: "malformed: a path that does not parse",
    a: { tool: "json-path", file: "OUT/result.json", path: "items[x]", equals: 1 },
    want: reason(`path: expected a path like "a.b[0].c", got 'items[x]'`),
  },
]);

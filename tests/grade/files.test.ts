import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileExistsTool, redGreenTool } from "../../lib/grade/files.ts";
import type { GradeContext } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

function ctxIn(root: string): GradeContext {
  const out = join(root, "out");
  mkdirSync(join(out, "dir"), { recursive: true });
  writeFileSync(join(out, "there.txt"), "x");
  symlinkSync(join(out, "there.txt"), join(out, "link.txt"));
  execFileSync("mkfifo", [join(out, "fifo")]);
  return { outDir: out, repoRoot: REPO, cwd: root };
}

describe("file-exists", () => {
  const cases: { name: string; assertion: Record<string, unknown>; want: unknown }[] = [
    { name: "a file", assertion: { file: "OUT/there.txt" }, want: { got: 0, output: [] } },
    {
      name: "a missing file is named",
      assertion: { file: "OUT/missing.txt" },
      want: { got: 1, output: ["no file at OUT/missing.txt"] },
    },
    {
      name: "a missing file wanted missing (expect_exit 1) passes without a detail",
      assertion: { file: "OUT/missing.txt", expect_exit: 1 },
      want: { got: 1, output: [] },
    },
    {
      name: "a file wanted missing is named",
      assertion: { file: "OUT/there.txt", expect_exit: 1 },
      want: { got: 0, output: ["OUT/there.txt exists, but expect_exit 1 wants it absent"] },
    },
    {
      name: "a missing file in a missing directory",
      assertion: { file: "OUT/no/such.txt" },
      want: { got: 1, output: ["no file at OUT/no/such.txt"] },
    },
    {
      name: "a FIFO is not a regular file",
      assertion: { file: "OUT/fifo" },
      want: { got: 1, output: ["OUT/fifo is not a regular file"] },
    },
    {
      name: "a directory counts as missing",
      assertion: { file: "OUT/dir" },
      want: { got: 1, output: ["OUT/dir is a directory, not a file"] },
    },
    {
      // grade.py followed it; OUT is the subject's, so no link is followed under it (tests/grade/hostile.test.ts)
      name: "a symlink to a file under OUT counts as missing",
      assertion: { file: "OUT/link.txt" },
      want: { got: 1, output: ["OUT/link.txt is a link (links under OUT are not followed)"] },
    },
    { name: "args[0] when no file", assertion: { args: ["OUT/there.txt"] }, want: { got: 0, output: [] } },
    { name: "relative to the cwd", assertion: { file: "out/there.txt" }, want: { got: 0, output: [] } },
    {
      name: "no file",
      assertion: {},
      want: { got: null, reason: "file-exists requires 'file'", output: [] },
    },
    {
      name: "empty file and args",
      assertion: { file: "", args: [] },
      want: { got: null, reason: "file-exists requires 'file'", output: [] },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using tmp = tempDir("grade-files");
      expect(await fileExistsTool(c.assertion, ctxIn(tmp.path))).toEqual(c.want as never);
    });
  }
});

describe("red-green (T15-T18)", () => {
  const cases: { name: string; content?: string; want: unknown }[] = [
    { name: "T15 {1,0} passes", content: '{"red_exit": 1, "green_exit": 0}', want: { got: 0, output: [] } },
    { name: "T16 {0,1} fails", content: '{"red_exit": 0, "green_exit": 1}', want: { got: 1, output: [] } },
    {
      name: "T17 [] fails",
      content: "[]",
      want: { got: null, reason: "red-green evidence must be a JSON object", output: [] },
    },
    {
      name: "T18 malformed JSON fails",
      content: '{"red_exit": 1,',
      want: {
        got: null,
        reason:
          "invalid red-green JSON: Expecting property name enclosed in double quotes: line 1 column 16 (char 15)",
        output: [],
      },
    },
    {
      name: "an extra key fails",
      content: '{"red_exit": 1, "green_exit": 0, "x": 1}',
      want: { got: 1, output: [] },
    },
    { name: "a missing key fails", content: '{"red_exit": 1}', want: { got: 1, output: [] } },
    {
      name: "bools are not ints",
      content: '{"red_exit": true, "green_exit": false}',
      want: { got: 1, output: [] },
    },
    {
      name: "floats are not ints",
      content: '{"red_exit": 1.0, "green_exit": 0}',
      want: { got: 1, output: [] },
    },
    {
      name: "strings are not ints",
      content: '{"red_exit": "1", "green_exit": "0"}',
      want: { got: 1, output: [] },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using tmp = tempDir("grade-rg");
      const ctx = ctxIn(tmp.path);
      if (c.content !== undefined) writeFileSync(join(ctx.outDir, "rg.json"), c.content);
      expect(await redGreenTool({ file: "OUT/rg.json" }, ctx)).toEqual(c.want as never);
    });
  }

  test("a missing file and a missing field fail with grade.py's reasons", async () => {
    using tmp = tempDir("grade-rg");
    const ctx = ctxIn(tmp.path);
    writeFileSync(join(ctx.outDir, "bad.json"), new Uint8Array([0x7b, 0xff]));
    expect([
      await redGreenTool({ file: "OUT/nope.json" }, ctx),
      await redGreenTool({}, ctx),
      await redGreenTool({ file: "OUT/dir" }, ctx),
      await redGreenTool({ file: "OUT/bad.json" }, ctx),
    ]).toEqual([
      {
        got: null,
        reason: `invalid red-green JSON: [Errno 2] No such file or directory: '${ctx.outDir}/nope.json'`,
        output: [],
      },
      { got: null, reason: "red-green requires 'file'", output: [] },
      {
        got: null,
        reason: `invalid red-green JSON: [Errno 21] Is a directory: '${ctx.outDir}/dir'`,
        output: [],
      },
      { got: null, reason: "invalid red-green JSON: file is not valid UTF-8", output: [] },
    ]);
  });
});

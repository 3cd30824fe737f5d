// What a subject can leave in OUT to hang or flood the grader, tool by tool: a FIFO (refused without
// blocking), a sparse 2 GiB file (refused by the cap before any read), a link to a file inside OUT
// and a linked directory on the way (no link is followed under OUT). Each refusal is one reason
// line naming the file; nothing here may hang, so the table itself is the regression test.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ghCallsTool } from "../../lib/grade/calls.ts";
import { fileExistsTool, redGreenTool } from "../../lib/grade/files.ts";
import { iddLintTool } from "../../lib/grade/idd.ts";
import { MAX_FILE_BYTES } from "../../lib/grade/out.ts";
import { runlogEchoTool } from "../../lib/grade/runlog.ts";
import type { GradeContext, GradeHandler } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const tmp = tempDir("grade-hostile");
afterAll(() => tmp[Symbol.dispose]());
const out = join(tmp.path, "out");
mkdirSync(join(out, "real"), { recursive: true });
execFileSync("mkfifo", [join(out, "fifo")]);
writeFileSync(join(out, "big"), "");
truncateSync(join(out, "big"), 2 ** 31);
writeFileSync(join(out, "good.json"), '{"red_exit": 1, "green_exit": 0}');
writeFileSync(join(out, "real", "x.json"), '{"red_exit": 1, "green_exit": 0}');
symlinkSync(join(out, "good.json"), join(out, "link.json"));
symlinkSync(join(out, "real"), join(out, "d"));
const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };

const FIFO = `Refused "${out}/fifo": not a regular file`;
const BIG = `Refused "${out}/big": larger than the size cap (${2 ** 31} bytes, cap ${MAX_FILE_BYTES})`;
const LINK = (p: string) => `Refused "${out}/${p}": a symbolic link where a file or directory was expected`;
const refused = (reason: string) => ({ got: null, reason, output: [] });

const rows: { name: string; tool: GradeHandler; a: Record<string, unknown>; want: unknown }[] = [
  {
    name: "red-green: FIFO",
    tool: redGreenTool,
    a: { file: "OUT/fifo" },
    want: refused(`invalid red-green JSON: ${FIFO}`),
  },
  {
    name: "red-green: sparse 2 GiB",
    tool: redGreenTool,
    a: { file: "OUT/big" },
    want: refused(`invalid red-green JSON: ${BIG}`),
  },
  {
    name: "red-green: link inside OUT",
    tool: redGreenTool,
    a: { file: "OUT/link.json" },
    want: refused(`invalid red-green JSON: ${LINK("link.json")}`),
  },
  {
    name: "red-green: linked directory on the way",
    tool: redGreenTool,
    a: { file: "OUT/d/x.json" },
    want: refused(`invalid red-green JSON: ${LINK("d/x.json")}`),
  },
  {
    name: "red-green: the real file",
    tool: redGreenTool,
    a: { file: "OUT/real/x.json" },
    want: { got: 0, output: [] },
  },
  { name: "gi-runlog-echo: FIFO", tool: runlogEchoTool, a: { file: "OUT/fifo" }, want: refused(FIFO) },
  { name: "gi-runlog-echo: sparse 2 GiB", tool: runlogEchoTool, a: { file: "OUT/big" }, want: refused(BIG) },
  {
    name: "gh-calls: FIFO",
    tool: ghCallsTool,
    a: { file: "OUT/fifo", expect_count: 0 },
    want: refused('cannot read call log: Refused "OUT/fifo": not a regular file'),
  },
  {
    name: "gh-calls: sparse 2 GiB",
    tool: ghCallsTool,
    a: { file: "OUT/big", expect_count: 0 },
    want: refused(
      `cannot read call log: Refused "OUT/big": larger than the size cap (${2 ** 31} bytes, cap ${MAX_FILE_BYTES})`,
    ),
  },
  {
    name: "idd-lint: FIFO",
    tool: iddLintTool,
    a: { args: ["issue", "OUT/fifo"] },
    want: { got: 2, output: [`✗ Cannot read file "${out}/fifo": refused, not a regular file`] },
  },
  {
    name: "idd-lint: sparse 2 GiB",
    tool: iddLintTool,
    a: { args: ["pr", "OUT/big", "--title", "fix(x): y (#1)"] },
    want: {
      got: 2,
      output: [
        `✗ Cannot read file "${out}/big": refused, larger than the size cap (${2 ** 31} bytes, cap ${MAX_FILE_BYTES})`,
      ],
    },
  },
  {
    name: "file-exists: FIFO",
    tool: fileExistsTool,
    a: { file: "OUT/fifo" },
    want: { got: 1, output: ["OUT/fifo is not a regular file"] },
  },
  {
    name: "file-exists: link inside OUT",
    tool: fileExistsTool,
    a: { file: "OUT/link.json" },
    want: { got: 1, output: ["OUT/link.json is a link (links under OUT are not followed)"] },
  },
  {
    name: "file-exists: sparse 2 GiB (only opened)",
    tool: fileExistsTool,
    a: { file: "OUT/big" },
    want: { got: 0, output: [] },
  },
];

describe("a hostile OUT never hangs or floods the grader", () => {
  for (const row of rows)
    test(row.name, async () => expect(await row.tool(row.a, ctx)).toEqual(row.want as never));

  test("the cap is the context's: a file one byte over is refused", async () => {
    expect(await redGreenTool({ file: "OUT/good.json" }, { ...ctx, maxFileBytes: 31 })).toEqual(
      refused(
        `invalid red-green JSON: Refused "${out}/good.json": larger than the size cap (32 bytes, cap 31)`,
      ),
    );
  });
});

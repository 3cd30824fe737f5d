// A case.json without `name`: run_eval.sh printed an empty name (`◆ eval `, `✓ eval passed: `);
// run-eval names the case by its folder, as grade.py does (README, run-eval: "A case without name").
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

describe("the name a case prints", () => {
  const rows = [
    { name: "no name: the folder's", extra: { name: undefined }, shown: "no-name" },
    { name: "empty name: the folder's", extra: { name: "" }, shown: "no-name" },
    { name: "a name: that name", extra: { name: "skill/named" }, shown: "skill/named" },
  ];
  test.each(rows)("$name", async ({ extra, shown }) => {
    using tmp = openTmp();
    using cases = tempDir("case-name");
    const dir = writeEvalCase(cases.path, { name: "no-name", extra });
    const r = await runEval([dir], { TMPDIR: tmp.path });
    // The block's first line and its verdict line (other lines carry temp paths and timings).
    const lines = r.stdout.trimEnd().split("\n");
    expect({
      exitCode: r.exitCode,
      first: lines[0],
      verdict: lines.filter((l) => l.startsWith("✓ eval") || l.startsWith("✗ eval")),
    }).toEqual({ exitCode: 0, first: `◆ eval ${shown}`, verdict: [`✓ eval passed: ${shown}`] });
  });
});

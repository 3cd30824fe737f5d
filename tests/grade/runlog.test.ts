import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runlogEchoTool } from "../../lib/grade/runlog.ts";
import type { GradeContext } from "../../lib/grade/types.ts";
import { REPO } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const VALID = {
  ts: "2026-01-01T00:00:00Z",
  issue: 1,
  mode: "auto",
  skill: "issue-resolver",
  complexity: "low",
  profile: "light",
  qa_cycles: 1,
  outcome: "success",
  pr: 1,
  duration_s: 12,
};

test("gi-runlog-echo: valid 0, invalid 3 with its message, missing or absent file fails", async () => {
  using tmp = tempDir("grade-runlog");
  const out = join(tmp.path, "out");
  mkdirSync(out);
  writeFileSync(join(out, "ok.json"), JSON.stringify(VALID));
  writeFileSync(join(out, "vocab.json"), JSON.stringify({ ...VALID, skill: "auto-pilot" }));
  writeFileSync(join(out, "latin1.json"), new Uint8Array([0x7b, 0xe9, 0x7d]));
  const ctx: GradeContext = { outDir: out, repoRoot: REPO, cwd: tmp.path };
  const results = await Promise.all(
    [
      { file: "OUT/ok.json" },
      { file: "OUT/vocab.json" },
      { file: "OUT/latin1.json" },
      { file: "OUT/nope.json" },
      {},
    ].map((a) => runlogEchoTool(a, ctx)),
  );
  expect(results.map((r) => ({ ...r, output: r.output.length }))).toEqual([
    { got: 0, output: 0 },
    { got: 3, output: 1 },
    { got: 3, output: 1 },
    { got: null, reason: `missing file ${out}/nope.json`, output: 0 },
    { got: null, reason: "gi-runlog-echo requires 'file'", output: 0 },
  ]);
  expect(results[1]!.output[0]).toStartWith(
    "✗ gi-runlog: outcome 'success' is not valid for skill 'auto-pilot'",
  );
});

// `gi-runlog-echo`: pipes one artifact file into the run-log validator (lib/grade/runlog/index.ts, `--echo`, so
// nothing is written) and reports its exit: 0 a valid record, 3 an invalid one. A missing file fails
// whatever expect_exit says. The bytes go through undecoded: the validator owns the UTF-8 rule.
// The file is read through lib/grade/out.ts (no FIFO, no link under OUT, capped).
import { pyTruthy } from "../compat/py/value.ts";
import { runRule } from "./_run.ts";
import { assertionPath } from "./files.ts";
import { readFailure, readGraded } from "./out.ts";
import { runRunlog } from "./runlog/index.ts";
import type { GradeHandler } from "./types.ts";

/** `gi-runlog-echo`: `gi-runlog --echo < file`, got = its exit code. */
export const runlogEchoTool: GradeHandler = async (a, ctx) => {
  if (!pyTruthy(a.file)) return { got: null, reason: "gi-runlog-echo requires 'file'", output: [] };
  const [shown, path] = assertionPath(a.file, ctx);
  let payload: Uint8Array;
  try {
    payload = readGraded(path, ctx.outDir, ctx.maxFileBytes);
  } catch (error) {
    // grade.py: not Path.is_file() is a missing file; a FIFO, a link or an oversize file is refused.
    const why = readFailure(error, shown);
    const missing = why.startsWith("[Errno 2]") || why.startsWith("[Errno 21]");
    return { got: null, reason: missing ? `missing file ${shown}` : why, output: [] };
  }
  return runRule(() => runRunlog(["--echo"], payload, { cwd: ctx.repoRoot }));
};

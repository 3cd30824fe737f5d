// `gi-runlog-echo`: pipes one artifact file into the run-log validator (lib/runlog.ts, `--echo`, so
// nothing is written) and reports its exit: 0 a valid record, 3 an invalid one. A missing file fails
// whatever expect_exit says. The bytes go through undecoded: the validator owns the UTF-8 rule.
import { readFileSync } from "node:fs";
import { pyOSError } from "../_py/text.ts";
import { pyTruthy } from "../_py/value.ts";
import { runRunlog } from "../runlog.ts";
import { runRule } from "./_run.ts";
import { assertionPath, isFile } from "./files.ts";
import type { GradeHandler } from "./types.ts";

/** `gi-runlog-echo`: `gi-runlog --echo < file`, got = its exit code. */
export const runlogEchoTool: GradeHandler = async (a, ctx) => {
  if (!pyTruthy(a.file)) return { got: null, reason: "gi-runlog-echo requires 'file'", output: [] };
  const [shown, path] = assertionPath(a.file, ctx);
  if (!isFile(path)) return { got: null, reason: `missing file ${shown}`, output: [] };
  let payload: Uint8Array;
  try {
    payload = readFileSync(path);
  } catch (error) {
    return { got: null, reason: `cannot read ${pyOSError(error, shown)}`, output: [] };
  }
  return runRule(() => runRunlog(["--echo"], payload, { cwd: ctx.repoRoot }));
};

// The two tools that only look at artifact files: `file-exists` (a regular file is there; a directory
// counts as missing) and `red-green` (the evidence object is exactly {"red_exit": 1, "green_exit": 0}
// with int values). Paths are grade.py's: OUT substituted, anything else relative to the cwd. Both
// read through lib/grade/out.ts, so a FIFO or a 2 GiB file the subject left is refused, not read.
// A file-exists that fails says which file and what was there instead (issue 15).
import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import { PyJsonError, parsePyJson, pyJsonErrorText } from "../compat/py/json.ts";
import { pyStr } from "../compat/py/repr.ts";
import { pyPath } from "../compat/py/text.ts";
import { isPyDict, isPyInt, pyInt, pyTruthy } from "../compat/py/value.ts";
import { decodeUtf8, isGradedFile, readFailure, readGraded, subOut } from "./out.ts";
import type { GradeContext, GradeHandler } from "./types.ts";

/** The assertion's path with OUT substituted: [as printed, absolute]. */
export function assertionPath(file: unknown, ctx: GradeContext): [string, string] {
  const shown = pyPath(subOut(pyStr(file), ctx.outDir));
  return [shown, resolve(ctx.cwd, shown)];
}

/** `file-exists`: got 0 when `file` (else `args[0]`) is a regular file, else 1. */
export const fileExistsTool: GradeHandler = async (a, ctx) => {
  let file = a.file;
  if (!pyTruthy(file)) {
    const args = pyTruthy(a.args) ? a.args : [null];
    file = Array.isArray(args) || typeof args === "string" ? args[0] : null;
  }
  if (!pyTruthy(file)) return { got: null, reason: "file-exists requires 'file'", output: [] };
  const [, path] = assertionPath(file, ctx);
  const got = isGradedFile(path, ctx.outDir) ? 0 : 1;
  const want = pyInt("expect_exit" in a ? a.expect_exit : 0);
  return {
    got,
    output: want === null || got === want ? [] : [fileExistsDetail(pyStr(file), path, got, want)],
  };
};

/** Why a file-exists assertion failed, naming the file as the case wrote it. */
export function fileExistsDetail(written: string, path: string, got: number, want: number): string {
  if (got === 0) return `${written} exists, but expect_exit ${want} wants it absent`;
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return `no file at ${written}`;
  }
  if (st.isDirectory()) return `${written} is a directory, not a file`;
  if (st.isSymbolicLink()) return `${written} is a link (links under OUT are not followed)`;
  return `${written} is not a regular file`;
}

/** `red-green`: got 0 iff the evidence has exactly the keys red_exit = 1 and green_exit = 0, both ints. */
export const redGreenTool: GradeHandler = async (a, ctx) => {
  if (!pyTruthy(a.file)) return { got: null, reason: "red-green requires 'file'", output: [] };
  const [shown, path] = assertionPath(a.file, ctx);
  let evidence: unknown;
  let text: string | null = "";
  let bytes: Uint8Array;
  try {
    bytes = readGraded(path, ctx.outDir, ctx.maxFileBytes);
  } catch (error) {
    return { got: null, reason: `invalid red-green JSON: ${readFailure(error, shown)}`, output: [] };
  }
  try {
    text = decodeUtf8(bytes);
    if (text === null)
      return { got: null, reason: "invalid red-green JSON: file is not valid UTF-8", output: [] };
    evidence = parsePyJson(text);
  } catch (error) {
    const why = error instanceof PyJsonError ? pyJsonErrorText(error, text ?? "") : readFailure(error, shown);
    return { got: null, reason: `invalid red-green JSON: ${why}`, output: [] };
  }
  if (!isPyDict(evidence))
    return { got: null, reason: "red-green evidence must be a JSON object", output: [] };
  const keys = Object.keys(evidence).sort();
  const exact = keys.length === 2 && keys[0] === "green_exit" && keys[1] === "red_exit";
  const ok = exact && isPyInt(evidence.red_exit) && isPyInt(evidence.green_exit);
  return { got: ok && evidence.red_exit === 1 && evidence.green_exit === 0 ? 0 : 1, output: [] };
};

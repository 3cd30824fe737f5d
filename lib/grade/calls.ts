// `gh-calls`: grades the gh shim's call log (one {"argv": [...]} object per line). The log must be an
// OUT/ path without `..` or symlinks (default OUT/gh-calls.jsonl); a missing or malformed log fails
// whatever expect_exit says. got = 0 iff every expectation given holds: expect_count (records),
// expect_by_command (per `argv[:2].join(" ")`, 0 = absent, unlisted unconstrained), expect_argv (whole sequence).
import { PyJsonError, parsePyJson, pyJsonErrorText } from "../compat/py/json.ts";
import { pyRepr, pyStr } from "../compat/py/repr.ts";
import { isPyDict, isPyInt, pyTruthy } from "../compat/py/value.ts";
import { ConfinedPathError } from "../core/confined.ts";
import { decodeUtf8, outArtifact, readFailure, readGraded } from "./out.ts";
import type { GradeHandler, ToolOutcome } from "./types.ts";

/** The call log a gh-calls assertion reads when it names none. */
export const DEFAULT_CALL_LOG = "OUT/gh-calls.jsonl";

const fail = (reason: string): ToolOutcome => ({ got: null, reason, output: [] });
const isCount = (v: unknown): v is number => typeof v === "number" && isPyInt(v) && v >= 0;

/** Parses a call log into argv lists, or says which line is malformed. */
export function parseCallLog(text: string): { ok: true; calls: string[][] } | { ok: false; reason: string } {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const calls: string[][] = [];
  for (const [i, line] of lines.entries()) {
    let rec: unknown;
    try {
      rec = parsePyJson(line);
    } catch (error) {
      const why = error instanceof PyJsonError ? pyJsonErrorText(error, line) : (error as Error).message;
      return { ok: false, reason: `malformed call log line ${i + 1}: ${why}` };
    }
    const argv = isPyDict(rec) ? rec.argv : undefined;
    if (!Array.isArray(argv) || !argv.every((x) => typeof x === "string")) {
      return { ok: false, reason: `malformed call log line ${i + 1}: expected {"argv": [strings]}` };
    }
    calls.push(argv);
  }
  return { ok: true, calls };
}

/** The command key of one call: its first two argv items joined by a space. */
export const commandKey = (argv: string[]): string => argv.slice(0, 2).join(" ");

/** `gh-calls`: the call log against expect_count / expect_by_command / expect_argv. */
export const ghCallsTool: GradeHandler = async (a, ctx) => {
  const { expect_count: count, expect_by_command: byCommand, expect_argv: argvs } = a;
  if (count == null && byCommand == null && argvs == null) {
    return fail("gh-calls requires expect_count, expect_by_command or expect_argv");
  }
  if (count != null && !isCount(count)) return fail("expect_count must be a non-negative integer");
  if (byCommand != null && !(isPyDict(byCommand) && Object.values(byCommand).every(isCount))) {
    return fail("expect_by_command must map commands to non-negative integers");
  }
  if (argvs != null && !(Array.isArray(argvs) && argvs.every((x) => Array.isArray(x)))) {
    return fail("expect_argv must be a list of argv lists");
  }
  const file = pyTruthy(a.file) ? pyStr(a.file) : DEFAULT_CALL_LOG;
  const where = outArtifact(file, ctx.outDir);
  if (!where.ok) return fail(`call log must be an OUT/ path without '..' or symlinks, got ${pyRepr(file)}`);
  let bytes: Uint8Array;
  try {
    bytes = readGraded(where.path, ctx.outDir, ctx.maxFileBytes);
  } catch (error) {
    if (error instanceof ConfinedPathError && error.reason === "missing")
      return fail(`missing call log ${file}`);
    return fail(`cannot read call log: ${readFailure(error, file)}`);
  }
  const text = decodeUtf8(bytes);
  if (text === null) return fail(`call log ${file} is not valid UTF-8`);
  const log = parseCallLog(text);
  if (!log.ok) return fail(log.reason);
  const calls = log.calls;
  const output: string[] = [];
  if (count != null && calls.length !== count)
    output.push(`expect_count: want ${count}, got ${calls.length}`);
  if (isPyDict(byCommand)) {
    for (const [key, want] of Object.entries(byCommand)) {
      const got = calls.filter((c) => commandKey(c) === key).length;
      if (got !== want) output.push(`expect_by_command[${pyRepr(key)}]: want ${want}, got ${got}`);
    }
  }
  if (Array.isArray(argvs) && JSON.stringify(argvs) !== JSON.stringify(calls)) {
    const at = firstDifference(argvs, calls);
    output.push(`expect_argv: differs at call ${at + 1} (want ${argvs.length} calls, got ${calls.length})`);
  }
  return { got: output.length === 0 ? 0 : 1, output };
};

function firstDifference(want: unknown[], got: string[][]): number {
  const n = Math.max(want.length, got.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(want[i]) !== JSON.stringify(got[i])) return i;
  return n;
}

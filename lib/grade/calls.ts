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
    output.push(...sideBySide(argvs, calls, at));
  }
  return { got: output.length === 0 ? 0 : 1, output };
};

const PLAIN_TOKEN = /^[\w@%+=:,./-]+$/;
const MAX_CELL = 60;
const MAX_ROWS = 12;

/** One argv as a command line: plain tokens bare, others JSON-quoted; `(none)` past the end. */
export function argvText(argv: unknown): string {
  if (argv === undefined) return "(none)";
  if (!Array.isArray(argv)) return JSON.stringify(argv) ?? String(argv);
  if (argv.length === 0) return "(no arguments)";
  return argv.map((t) => (typeof t === "string" && PLAIN_TOKEN.test(t) ? t : JSON.stringify(t))).join(" ");
}

/**
 * Wanted and actual argv side by side, one call per line, aligned, the first difference marked `>`:
 * a header, then at most MAX_ROWS rows around that call (`...` where rows are left out). Cells other
 * than the marked row's are cut at MAX_CELL characters.
 * @example
 * expect_argv: differs at call 2 (want 2 calls, got 2)
 *   #  want          got
 *   1  issue view 1  issue view 1
 * > 2  pr list       pr view 3
 */
export function sideBySide(want: readonly unknown[], got: readonly string[][], at: number): string[] {
  const n = Math.max(want.length, got.length);
  const start = n <= MAX_ROWS ? 0 : Math.max(0, Math.min(at - 3, n - MAX_ROWS));
  const end = Math.min(n, start + MAX_ROWS);
  const cut = (s: string, i: number) =>
    i === at || s.length <= MAX_CELL ? s : `${s.slice(0, MAX_CELL - 1)}…`;
  const rows: [string, string, string][] = [];
  for (let i = start; i < end; i++)
    rows.push([`${i === at ? ">" : " "} ${i + 1}`, cut(argvText(want[i]), i), cut(argvText(got[i]), i)]);
  const head: [string, string, string] = ["  #", "want", "got"];
  const w0 = Math.max(head[0].length, ...rows.map((r) => r[0].length));
  // The marked row is whole; it alone may stick out rather than push every other row's `got` right.
  const w1 = Math.max(head[1].length, ...rows.map((r) => Math.min(r[1].length, MAX_CELL)));
  const line = (r: [string, string, string]) => `${r[0].padEnd(w0)}  ${r[1].padEnd(w1)}  ${r[2]}`.trimEnd();
  const lines = [line(head)];
  if (start > 0) lines.push(`  ... ${start} call${start === 1 ? "" : "s"} before`);
  for (const r of rows) lines.push(line(r));
  if (end < n) lines.push(`  ... ${n - end} call${n - end === 1 ? "" : "s"} after`);
  return lines;
}

function firstDifference(want: unknown[], got: string[][]): number {
  const n = Math.max(want.length, got.length);
  for (let i = 0; i < n; i++) if (JSON.stringify(want[i]) !== JSON.stringify(got[i])) return i;
  return n;
}

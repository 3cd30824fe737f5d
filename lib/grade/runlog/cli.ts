// The gi-runlog command line as a function: `runRunlog(argv, stdin, io)` behaves like
// `python3 gi-runlog.py <argv>` with that stdin and returns {exitCode, stdout, stderr}. Exit codes
// are the original's: 0 ok, 2 usage, 3 invalid record (nothing written), 4 append failed or, for
// --failure-streak, log unreadable. It never throws.
import { isAbsolute, resolve } from "node:path";
import { ArgvError, type OptionDef, parseArgv } from "../../compat/py/argparse.ts";
import { PyJsonError, parsePyJson, pyJsonDumps } from "../../compat/py/json.ts";
import { pyOSError } from "../../compat/py/text.ts";
import { PyFloat, type PyValue } from "../../compat/py/value.ts";
import { messageOf } from "../../core/errors.ts";
import {
  appendLine,
  appendOnce,
  countFailureStreak,
  DEFAULT_POLICY,
  type LogPolicy,
  maybeRotate,
  RecordConflict,
  readLogLines,
} from "./log.ts";
import { normalizeRecord } from "./record.ts";

/** A finished run, as a child process would have produced it. */
export interface RunlogRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const MODES = ["append", "echo", "append_once", "failure_streak"];
const OPTIONS: OptionDef[] = [
  { flags: ["--append"], dest: "append" },
  { flags: ["--echo"], dest: "echo" },
  { flags: ["--append-once"], dest: "append_once" },
  { flags: ["--failure-streak"], dest: "failure_streak", value: true, int: true },
  { flags: ["--no-rotate"], dest: "no_rotate" },
  { flags: ["--path", "--log"], dest: "path", value: true },
  { flags: ["--threshold"], dest: "threshold", value: true, int: true },
  { flags: ["--rotate-max-bytes"], dest: "rotate_max_bytes", value: true, int: true },
  { flags: ["--rotate-max-days"], dest: "rotate_max_days", value: true, int: true },
  { flags: ["--tail-segments"], dest: "tail_segments", value: true, int: true },
];
const FLAG_OF: Record<string, string> = {
  append: "--append",
  echo: "--echo",
  append_once: "--append-once",
  failure_streak: "--failure-streak",
};

const USAGE = `usage: gi-runlog.py [-h] [--append | --echo | --append-once | --failure-streak ISSUE] [--no-rotate]
                     [--path PATH] [--threshold F] [--rotate-max-bytes N] [--rotate-max-days D]
                     [--tail-segments K]

Validate and normalize one run-log record read as JSON on stdin, then append it to
.gitissue/runs.jsonl (--append) or print it without writing (--echo); or read the log back to count
an issue's consecutive-failure streak (--failure-streak).

Exit codes: 0 ok; 2 usage; 3 invalid record (nothing written); 4 append failed, or the log could not
be read (non-fatal — telemetry is best-effort).
`;

type Num = number | bigint;
const done = (exitCode: number, stdout = "", stderr = ""): RunlogRun => ({ exitCode, stdout, stderr });

/** Equivalent of `python3 gi-runlog.py <argv>` with the given stdin. Never throws. */
export async function runRunlog(
  argv: string[],
  stdin: string | Uint8Array,
  io: { cwd: string },
): Promise<RunlogRun> {
  try {
    return await main(argv, stdin, io);
  } catch (error) {
    if (error instanceof ArgvError) return done(2, "", `✗ gi-runlog: ${error.message}\n`);
    // A bug of ours, not an outcome of the contract: exit 1, as the original's traceback would.
    return done(1, "", `✗ gi-runlog: internal error: ${messageOf(error)}\n`);
  }
}

async function main(argv: string[], stdin: string | Uint8Array, io: { cwd: string }): Promise<RunlogRun> {
  const { values: v, seen, help } = parseArgv(argv, OPTIONS);
  if (help) return done(0, USAGE);
  const modes = seen.filter((d) => MODES.includes(d));
  const clash = modes.find((d) => d !== modes[0]);
  if (clash)
    throw new ArgvError(`argument ${FLAG_OF[clash]}: not allowed with argument ${FLAG_OF[modes[0]!]}`);
  const num = (d: string, dflt: number): Num => (v[d] as Num | undefined) ?? dflt;
  const policy: LogPolicy = {
    rotateMaxBytes: Number(num("rotate_max_bytes", DEFAULT_POLICY.rotateMaxBytes)),
    rotateMaxDays: Number(num("rotate_max_days", DEFAULT_POLICY.rotateMaxDays)),
    tailSegments: Number(num("tail_segments", DEFAULT_POLICY.tailSegments)),
  };
  for (const [name, value] of [
    ["rotate-max-bytes", policy.rotateMaxBytes],
    ["rotate-max-days", policy.rotateMaxDays],
    ["tail-segments", policy.tailSegments],
  ] as const) {
    if (value < 0) return done(2, "", `✗ gi-runlog: --${name} must be >= 0\n`);
  }
  const shown = (v.path as string | undefined) ?? ".gitissue/runs.jsonl";
  const path = isAbsolute(shown) ? shown : resolve(io.cwd, shown);

  if (v.failure_streak !== undefined) {
    const threshold = num("threshold", 3);
    if (threshold < 0) return done(3, "", "✗ gi-runlog: --threshold must be >= 0\n");
    const issue = v.failure_streak as Num;
    const { lines, readable } = readLogLines(path, policy.tailSegments);
    const streak = readable ? countFailureStreak(lines, issue) : 0;
    const quarantine = threshold > 0 && streak >= threshold;
    const line = `${pyJsonDumps({ mode: "failure_streak", issue, streak, threshold, quarantine }, { ensureAscii: false, separators: [",", ":"] })}\n`;
    if (readable) return done(0, line);
    const why = "reporting a streak of 0 (quarantine progress only, never an existing quarantine)";
    return done(4, line, `⚠ gi-runlog: could not read ${shown} — ${why}\n`);
  }

  const decoded = decodeUtf8(stdin);
  if (typeof decoded !== "string")
    return done(3, "", `✗ gi-runlog: stdin is not valid UTF-8 — ${decoded.error}\n`);
  let submitted: PyValue;
  try {
    submitted = parsePyJson(decoded);
  } catch (error) {
    const msg = error instanceof PyJsonError ? error.msg : messageOf(error);
    return done(3, "", `✗ gi-runlog: stdin is not valid JSON — ${msg}\n`);
  }
  const tsWasSupplied =
    typeof submitted === "object" &&
    submitted !== null &&
    !Array.isArray(submitted) &&
    !(submitted instanceof PyFloat) &&
    submitted.ts != null;
  const result = normalizeRecord(submitted);
  if (!result.ok) return done(3, "", result.errors.map((e) => `✗ gi-runlog: ${e}\n`).join(""));
  if (v.echo) return done(0, `${result.line}\n`);

  let stderr = "";
  try {
    if (v.append_once) {
      const status = await appendOnce(path, result.record, {
        tsWasSupplied,
        policy: v.no_rotate ? { ...policy, rotateMaxBytes: 0, rotateMaxDays: 0 } : policy,
        shownPath: shown,
        warn: (line) => {
          stderr += `${line}\n`;
        },
      });
      return done(
        0,
        `${pyJsonDumps({ status, event_id: result.record.event_id }, { separators: [",", ":"] })}\n`,
        stderr,
      );
    }
    if (!v.no_rotate) stderr += maybeRotate(path, policy, shown).warning?.concat("\n") ?? "";
    appendLine(path, result.line);
    return done(0, "", stderr);
  } catch (error) {
    if (error instanceof RecordConflict) return done(3, "", `${stderr}✗ gi-runlog: ${error.message}\n`);
    return done(4, "", `${stderr}⚠ gi-runlog: could not append to ${shown} — ${pyOSError(error)}\n`);
  }
}

/** Strict UTF-8 decode with Python's error reason and byte offset. */
export function decodeUtf8(input: string | Uint8Array): string | { error: string } {
  if (typeof input === "string") return input;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input);
  } catch {
    return { error: utf8Fault(input) };
  }
}

function utf8Fault(b: Uint8Array): string {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need < 0) return `invalid start byte at byte ${i}`;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      const n = b[i + k];
      if (n === undefined) return `unexpected end of data at byte ${i}`;
      const [min, max] = k === 1 ? [lo, hi] : [0x80, 0xbf];
      if (n < min || n > max) return `invalid continuation byte at byte ${i}`;
    }
    i += need + 1;
  }
  return "invalid start byte at byte 0";
}

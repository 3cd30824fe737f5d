// Synthetic issues: `gh issue create` allocates the next number from a counter under
// EVAL_STATE_DIR (exclusive lock, atomic rewrite, never reused) and stores the issue, and
// `gh issue view N --json ...` answers from that store. Byte formats follow gh_shim.py §1.5:
// issue_<n>.json is json.dumps(indent=2) with ASCII escapes, view output is compact JSON.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pyJsonDumps } from "../../compat/py/json.ts";
import { pyRepr } from "../../compat/py/repr.ts";
import { strip } from "../../compat/py/text.ts";
import { ensureDir, withFileLock, writeFileAtomic } from "../../core/fsx.ts";
import { parseValueFlags, requestedFields } from "../cassette.ts";

/** The largest counter value (Python's 2**63 - 1); reaching it means no number is left to give. */
export const COUNTER_MAX = 2n ** 63n - 1n;

const URL_BASE = "https://github.com/eval/harness/issues/";

/** What a shim step produced: bytes for stdout and stderr and an exit code. */
export interface ShimOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Title and body of an `issue create` command line, from the one-pass value-flag parse: later flags
 * overwrite earlier ones, and each --body-file is read (UTF-8, universal newlines) when it is met.
 */
export function parseCreateArgs(argv: readonly string[], cwd: string): { title: string; body: string } {
  let title = "untitled";
  let body = "";
  for (const f of parseValueFlags(argv)) {
    if (f.option === "--title") title = f.value;
    else if (f.option === "--body") body = f.value;
    else if (f.option === "--body-file") body = readBodyFile(f.value, cwd);
  }
  return { title, body };
}

function readBodyFile(file: string, cwd: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolve(cwd, file));
  } catch (error) {
    throw new Error(`cannot read --body-file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  const bad = utf8Error(bytes);
  if (bad) throw new Error(`cannot read --body-file ${file}: ${bad}`);
  return bytes.toString("utf8").replace(/\r\n?/g, "\n"); // Python text mode: universal newlines
}

/** Python's UnicodeDecodeError text for the first invalid UTF-8 sequence, or null when valid. */
export function utf8Error(b: Uint8Array): string | null {
  const hex = (n: number) => `0x${n.toString(16).padStart(2, "0")}`;
  const where = (i: number, last: number) =>
    last === i ? `byte ${hex(b[i]!)} in position ${i}` : `bytes in position ${i}-${last}`;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) [need, lo, hi] = [2, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf];
    else if (c >= 0xf0 && c <= 0xf4) [need, lo, hi] = [3, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf];
    else return `'utf-8' codec can't decode ${where(i, i)}: invalid start byte`;
    for (let k = 1; k <= need; k++) {
      if (i + k >= b.length)
        return `'utf-8' codec can't decode ${where(i, b.length - 1)}: unexpected end of data`;
      const d = b[i + k]!;
      if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) {
        return `'utf-8' codec can't decode ${where(i, i + k - 1)}: invalid continuation byte`;
      }
    }
    i += need + 1;
  }
  return null;
}

/** Python int() of a stripped str (ASCII digits, optional sign, single underscores between digits). */
function pyInt(text: string): bigint | null {
  return /^[+-]?[0-9]+(?:_[0-9]+)*$/.test(text) ? BigInt(text.replace(/_/g, "")) : null;
}

/**
 * Reads the counter. Missing is 0; an unreadable, oversize (> 64 bytes), non-UTF-8, non-integer or
 * out-of-range one reads as 0 with gh_shim.py's reason (for the ⚠ warning).
 */
export function readCounter(path: string): { value: bigint; invalid?: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { value: 0n };
    return { value: 0n, invalid: `cannot read counter (${code ?? error})` };
  }
  if (bytes.length > 64) return { value: 0n, invalid: "counter exceeds 64 bytes" };
  const bad = utf8Error(bytes);
  if (bad) return { value: 0n, invalid: bad };
  const text = strip(bytes.toString("utf8"));
  const value = pyInt(text);
  if (value === null)
    return { value: 0n, invalid: `invalid literal for int() with base 10: ${pyRepr(text)}` };
  if (value < 0n || value > COUNTER_MAX)
    return { value: 0n, invalid: "counter is outside the supported range" };
  return { value };
}

/** The issue record gh_shim.py stores and prints. */
function issueRecord(n: bigint, title: string, body: string): Map<string, unknown> {
  return new Map<string, unknown>([
    ["number", n],
    ["title", title],
    ["body", body],
    ["state", "OPEN"],
    ["url", `${URL_BASE}${n}`],
  ]);
}

/** Synthetic `issue create`: allocates the next number under the state dir, or 1 without one. */
export async function createIssue(
  argv: readonly string[],
  stateDir: string | undefined,
  cwd: string,
): Promise<ShimOutput> {
  let parsed: { title: string; body: string };
  try {
    parsed = parseCreateArgs(argv, cwd);
  } catch (error) {
    return { stdout: "", stderr: `✗ gh shim: ${(error as Error).message}\n`, exitCode: 1 };
  }
  if (!stateDir) return { stdout: `${URL_BASE}1\n`, stderr: "", exitCode: 0 };
  ensureDir(stateDir);
  const counterPath = join(stateDir, "issue_counter");
  let stderr = "";
  const n = await withFileLock(join(stateDir, "issue_counter.lock"), () => {
    const current = readCounter(counterPath);
    if (current.invalid)
      stderr += `⚠ gh shim: invalid issue counter ${counterPath}: ${current.invalid}; resetting to 0\n`;
    if (current.value >= COUNTER_MAX) return null;
    const next = current.value + 1n;
    writeFileAtomic(counterPath, next.toString());
    return next;
  });
  if (n === null) {
    return {
      stdout: "",
      stderr: `${stderr}✗ gh shim: issue counter exhausted at ${COUNTER_MAX}\n`,
      exitCode: 1,
    };
  }
  const record = issueRecord(n, parsed.title, parsed.body);
  writeFileAtomic(join(stateDir, `issue_${n}.json`), `${pyJsonDumps(record, { indent: 2 })}\n`);
  writeFileAtomic(join(stateDir, `issue_${n}.md`), parsed.body);
  return { stdout: `${URL_BASE}${n}\n`, stderr, exitCode: 0 };
}

/** The issue number of `issue view`: the first token after `view` that is all digits, as written. */
export function viewedIssueNumber(argv: readonly string[]): string | null {
  return argv.slice(2).find((a) => !a.startsWith("-") && /^\p{Nd}+$/u.test(a)) ?? null;
}

/** State-backed `issue view`: null when there is no stored issue (fall through to the cassette). */
export function viewIssue(argv: readonly string[], stateDir: string | undefined): ShimOutput | null {
  if (!stateDir) return null;
  ensureDir(stateDir); // gh_shim.py creates EVAL_STATE_DIR on first use, a view included
  if (argv.length < 3 || argv[0] !== "issue" || argv[1] !== "view") return null;
  const n = viewedIssueNumber(argv);
  if (n === null) return null;
  const path = join(stateDir, `issue_${n}.json`);
  if (!existsSync(path)) return null;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return {
      stdout: "",
      stderr: `✗ gh shim: cannot read issue state ${path}: ${(error as Error).message}\n`,
      exitCode: 1,
    };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return {
      stdout: "",
      stderr: `✗ gh shim: cannot read issue state ${path}: not a JSON object\n`,
      exitCode: 1,
    };
  }
  const record = data as Record<string, unknown>;
  const fields = requestedFields(argv);
  const out =
    fields && fields.length > 0
      ? new Map(fields.map((f) => [f, Object.hasOwn(record, f) ? record[f] : null] as const))
      : record;
  return { stdout: `${pyJsonDumps(out, { separators: [",", ":"] })}\n`, stderr: "", exitCode: 0 };
}

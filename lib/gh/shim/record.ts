// Record mode (EVAL_RECORD=1, local capture only, gh_shim.py's): runs the real gh (the first on PATH
// that is not this shim), echoes what it printed, and keeps the call for the cassette. Every capture
// is redacted before it is kept, and one in which a credential shape survives redaction is refused.
// Captures are written once, when the invocation ends, atomically and preserving the cassette's mode.
// Under `gh-shim record` the shim does none of this itself: the recorder runs gh and keeps the
// captures (observer.ts); the sealing and the answer's wording here serve both.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { pyJsonDumps } from "../../compat/py/json.ts";
import { ensureDir, executablesOnPath, realpathOr, writeFileAtomic } from "../../core/fsx.ts";
import { DETECTORS, type Detector, findSecrets, redactText } from "../../redact/index.ts";
import { CallIndex, type CassetteCall, cassetteCalls, normalizeArgv, readCassetteText } from "../cassette.ts";

/** Set in the real gh's environment: a shim that sees it is being recorded through itself. */
export const RECORDING_MARK = "PROCTOR_GH_SHIM_RECORDING";

/** One captured call, as it will appear in the cassette. */
export interface Capture {
  argv: string[];
  stdout: string;
  stderr: string;
  exit: number;
}

/** Texts that mark a gh on PATH as a wrapper around this shim rather than the real gh. */
const SHIM_MARKS = ["gh_shim.py", "gh-shim", "scripts/proctor.ts", RECORDING_MARK];

/** The first executable `gh` on PATH that is not this shim, or null. */
export function findRealGh(pathVar: string | undefined, self: readonly string[]): string | null {
  const selfReal = new Set(self.flatMap((p) => (p ? [realpathOr(p)] : [])));
  for (const candidate of executablesOnPath(process.platform === "win32" ? "gh.exe" : "gh", pathVar)) {
    try {
      const st = statSync(candidate);
      if (!st.isFile() || selfReal.has(realpathOr(candidate))) continue;
      if (st.size < 1024 * 1024) {
        const text = readFileSync(candidate, "latin1");
        if (SHIM_MARKS.some((m) => text.includes(m))) continue;
      }
      return candidate;
    } catch {
      // not there or not executable
    }
  }
  return null;
}

/** Redacts a capture; `survivors` lists credential shapes still present in what would be written. */
export function sealCapture(
  raw: Capture,
  detectors: readonly Detector[] = DETECTORS,
  check: readonly Detector[] = DETECTORS,
): { capture: Capture; redacted: string[]; survivors: string[] } {
  const redacted: string[] = [];
  const clean = (s: string) => {
    const r = redactText(s, detectors);
    for (const f of r.findings) redacted.push(f.detector);
    return r.text;
  };
  const capture: Capture = {
    argv: raw.argv.map(clean),
    stdout: clean(raw.stdout),
    stderr: clean(raw.stderr),
    exit: raw.exit,
  };
  // Re-scan the bytes that would be written, JSON escaping included.
  const survivors = findSecrets(pyJsonDumps(capture, { indent: 2 }), check).map((f) => f.detector);
  return { capture, redacted, survivors };
}

/**
 * What the shim prints for a recorded call: gh's own output (the subject sees the real answer), a note
 * naming what was redacted from the capture, or, when a credential survives redaction, a refusal
 * (exit 1) and nothing recorded.
 */
export function sealedAnswer(
  raw: Capture,
  sealed: { redacted: string[]; survivors: string[] },
): { stdout: string; stderr: string; exitCode: number } {
  if (sealed.survivors.length > 0)
    return {
      stdout: raw.stdout,
      stderr: `${raw.stderr}✗ gh shim: refusing to record: a credential (${[...new Set(sealed.survivors)].join(", ")}) survives redaction; the cassette is unchanged\n`,
      exitCode: 1,
    };
  const note =
    sealed.redacted.length > 0
      ? `⚠ gh shim: redacted ${sealed.redacted.length} credential(s) (${[...new Set(sealed.redacted)].join(", ")}) before recording\n`
      : "";
  return { stdout: raw.stdout, stderr: raw.stderr + note, exitCode: raw.exit & 0xff };
}

/** Buffered captures for one process: they replay at once and are written by flush(). */
export class Recorder {
  readonly pending: Capture[] = [];
  private readonly index = new CallIndex();

  /**
   * Buffers a sealed capture, its --json field list sorted: gh_shim.py kept the order it was given,
   * and `gh-shim lint` then refused its own cassette.
   */
  add(raw: Capture): void {
    const capture = { ...raw, argv: normalizeArgv(raw.argv) };
    this.index.add(toPendingCall(capture, this.pending.length));
    this.pending.push(capture);
  }

  /** A buffered capture for this normalised call, if one was recorded earlier in the process. */
  lookup(key: readonly string[]): CassetteCall | undefined {
    return this.index.lookup(key);
  }

  /**
   * Appends the buffered captures to the cassette and empties the buffer: one atomic rewrite, mode
   * kept, in gh_shim.py's layout (json.dumps indent=2, ASCII escapes; version and calls added when
   * missing).
   */
  flush(path: string): void {
    if (this.pending.length === 0) return;
    const root: Record<string, unknown> = existsSync(path)
      ? (JSON.parse(readCassetteText(path)) as Record<string, unknown>)
      : { version: 1, calls: [] };
    const calls = cassetteCalls(root);
    if (!("version" in root)) root.version = 1;
    root.calls = [...calls, ...this.pending];
    ensureDir(dirname(path));
    writeFileAtomic(path, `${pyJsonDumps(root, { indent: 2 })}\n`);
    this.pending.length = 0;
  }
}

function toPendingCall(c: Capture, index: number): CassetteCall {
  return {
    index,
    argv: c.argv,
    key: normalizeArgv(c.argv),
    prefix: false,
    stdout: c.stdout,
    stderr: c.stderr,
    exit: c.exit,
  };
}

/**
 * Runs the real gh for `argv` (stdin inherited, as Python's subprocess.run does: `gh issue create
 * --body-file -` reads it); null when there is none on PATH.
 */
export function runRealGh(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string,
  self: readonly string[],
): Capture | null {
  if (env[RECORDING_MARK]) return null; // we are the "real gh" of another recording shim
  const gh = findRealGh(env.PATH, self);
  if (!gh) return null;
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  childEnv[RECORDING_MARK] = "1";
  const r = spawnSync(gh, [...argv], {
    env: childEnv,
    cwd,
    stdio: ["inherit", "pipe", "pipe"],
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (r.error) return { argv: [...argv], stdout: "", stderr: `${r.error.message}\n`, exit: 1 };
  return {
    argv: [...argv],
    stdout: r.stdout.toString("utf8"),
    stderr: r.stderr.toString("utf8"),
    exit: r.status ?? 1,
  };
}

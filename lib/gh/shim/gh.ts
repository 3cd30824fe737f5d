// The gh behaviour, in gh_shim.py's exact dispatch order (§1.2): call log first, help and version
// without a cassette, --json enforcement for data commands (gh api exempt), then issue create,
// state-backed issue view, and cassette replay or record (under `gh-shim record`, through the
// recorder: _channel.ts). Returns bytes and an exit code; the entry script writes them. Messages and exit codes (0/1/2) are the original's; a miss adds hints after.
import { pyRepr } from "../../compat/py/repr.ts";
import { pyPath } from "../../compat/py/text.ts";
import { statFile } from "../../core/runtime.ts";
import type { Detector } from "../../redact/index.ts";
import { type CassetteCall, CassetteError, hasJsonFlag, isDataCommand, normalizeArgv } from "../cassette.ts";
import { missHints, notFoundHint } from "./hints.ts";
import type { ShimOutput } from "./issues.ts";
import type { Recorder } from "./record.ts";
import { openReplayer, type Replayer, type ReplayOptions } from "./replay-cache.ts";

/** Everything the shim reads from its surroundings, injectable for tests. */
export interface GhContext {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Paths that are this shim (skipped when looking for the real gh). */
  self: readonly string[];
  /** Where record mode buffers captures (one per process by default). */
  recorder?: Recorder;
  replay?: ReplayOptions;
  /** Detector tables for record mode: what is redacted, and what must not survive (default: all). */
  redaction?: { detectors: readonly Detector[]; check: readonly Detector[] };
}

export const VERSION_LINE = "gh version eval-shim-1.0.0 (record/replay)\n";

/** gh_shim.py's help text, byte for byte (printed for bare gh, --help, -h and help). */
export const HELP_TEXT = `gh — eval harness shim (record/replay)

Usage:
  gh <command> [flags]

This is not the real GitHub CLI. It replays canned responses from
EVAL_CASSETTES. Set EVAL_RECORD=1 only for local capture (never in CI).

Common skill commands: issue view/list/create, pr view/list/create/checks, auth status, api.
`;

/**
 * What the --json refusal asks for. gh_shim.py pointed to docs/platform-github.md, a file of its own
 * repository that no Proctor user has; this says what to do and where the rule is written.
 */
export const JSON_HINT =
  'Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).';

// Record mode's modules (the redaction rules, child processes, the recorder's socket) and the issue
// store load only when a call needs them: a replayed call pays for none of them.
let processRecorder: Recorder | undefined;

const ok = (stdout: string, stderr = "", exitCode = 0): ShimOutput => ({ stdout, stderr, exitCode });
const fail = (stderr: string, exitCode = 1): ShimOutput => ({ stdout: "", stderr, exitCode });

/** Runs one gh invocation and returns what it printed and its exit code. */
export async function runGh(argv: readonly string[], ctx: GhContext): Promise<ShimOutput> {
  if (ctx.env.EVAL_RECORD === "1" && !ctx.recorder && !processRecorder)
    processRecorder = new (await import("./record.ts")).Recorder();
  const recorder = ctx.recorder ?? processRecorder;
  const out = await dispatch(argv, ctx, recorder);
  const path = ctx.env.EVAL_CASSETTES;
  if (path && recorder && recorder.pending.length > 0) {
    try {
      recorder.flush(path);
    } catch (error) {
      return {
        ...out,
        stderr: `${out.stderr}✗ gh shim: cannot write cassette ${path}: ${(error as Error).message}\n`,
        exitCode: 1,
      };
    }
  }
  return out;
}

async function dispatch(
  argv: readonly string[],
  ctx: GhContext,
  recorder: Recorder | undefined,
): Promise<ShimOutput> {
  const { env } = ctx;
  const key = normalizeArgv(argv);
  let warn = "";
  if (env.EVAL_GH_CALL_LOG)
    warn = (await (await import("./calllog.ts")).appendCallLog(env.EVAL_GH_CALL_LOG, key)) ?? "";
  const withWarn = (o: ShimOutput): ShimOutput => ({ ...o, stderr: warn + o.stderr });
  const first = argv[0];
  if (first === undefined || first === "--help" || first === "-h" || first === "help")
    return withWarn(ok(HELP_TEXT));
  if (first === "--version") return withWarn(ok(VERSION_LINE));
  if (isDataCommand(argv) && !hasJsonFlag(argv)) {
    return withWarn(
      fail(
        `✗ gh shim: data-producing command requires --json with explicit fields (got: gh ${argv.join(" ")}). ${JSON_HINT}\n`,
        2,
      ),
    );
  }
  const recording = env.EVAL_RECORD === "1";
  const path = env.EVAL_CASSETTES;
  if (!path) {
    return withWarn(
      fail(
        recording
          ? "✗ EVAL_CASSETTES is required even in record mode\n"
          : "✗ EVAL_CASSETTES is not set — cannot replay\n",
        2,
      ),
    );
  }
  try {
    return withWarn(await replay(argv, key, path, ctx, recorder, recording));
  } catch (error) {
    if (error instanceof CassetteError) return withWarn(fail(`${error.message}\n`));
    throw error;
  }
}

async function replay(
  argv: readonly string[],
  key: string[],
  path: string,
  ctx: GhContext,
  recorder: Recorder | undefined,
  recording: boolean,
): Promise<ShimOutput> {
  // Under `gh-shim record` no file is read: every call the cassette would answer goes to the recorder.
  const observed = recording && ctx.env[(await import("./_channel.ts")).RECORDER_ENV];
  const st = observed ? null : await statFile(path);
  const exists = st !== null;
  let replayer: Replayer | undefined;
  const lookup = async (): Promise<CassetteCall | undefined> => {
    replayer ??= await openReplayer(path, ctx.replay, st);
    return (await replayer.lookup(key)) ?? recorder?.lookup(key);
  };
  const state = ctx.env.EVAL_STATE_DIR;
  if (argv[0] === "issue" && argv[1] === "create") {
    const hit = exists ? await lookup() : recorder?.lookup(key);
    return hit ? play(hit) : (await import("./issues.ts")).createIssue(argv, state, ctx.cwd);
  }
  const fromState = state ? (await import("./issues.ts")).viewIssue(argv, state) : null;
  if (fromState) return fromState;
  if (!exists) {
    const buffered = recorder?.lookup(key);
    if (buffered) return play(buffered);
    if (recording) return record(argv, ctx, recorder);
    return fail(`✗ cassette not found: ${pyPath(path)}\n${notFoundHint(path)}`);
  }
  const hit = await lookup();
  if (hit) return play(hit);
  if (recording) return record(argv, ctx, recorder);
  const head = `✗ unmatched gh call (no cassette entry):\n  argv: ${pyRepr(argv)}\n  cassette: ${pyPath(path)}\n`;
  return fail(head + missHints(await replayer!.full(), key));
}

/** A hit: recorded stdout, stderr and exit (int() of the recorded value, default 0). */
function play(call: CassetteCall): ShimOutput {
  const text = (v: unknown, field: string): string => {
    if (v === undefined || v === null) return "";
    if (typeof v === "string") return v;
    throw new CassetteError(
      `cassette calls[${call.index}].${field} must be a string, got ${JSON.stringify(v)}`,
    );
  };
  return ok(text(call.stdout, "stdout"), text(call.stderr, "stderr"), exitOf(call));
}

function exitOf(call: CassetteCall): number {
  const v = call.exit;
  if (v === undefined) return 0;
  let n: number | null = null;
  if (typeof v === "number" && Number.isFinite(v)) n = Math.trunc(v);
  else if (typeof v === "boolean") n = v ? 1 : 0;
  else if (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v)) n = Number.parseInt(v, 10);
  if (n === null)
    throw new CassetteError(
      `cassette calls[${call.index}].exit must be an integer, got ${JSON.stringify(v)}`,
    );
  return n & 0xff; // what the OS reports for sys.exit(n)
}

async function record(
  argv: readonly string[],
  ctx: GhContext,
  recorder: Recorder | undefined,
): Promise<ShimOutput> {
  // Under `gh-shim record` the recorder runs gh and keeps the capture; this shim writes nothing.
  const channel = await import("./_channel.ts");
  const observer = ctx.env[channel.RECORDER_ENV];
  if (observer)
    return channel.askRecorder(observer, { argv: [...argv], cwd: ctx.cwd, stdin: channel.readsStdin(argv) });
  const { Recorder, runRealGh, sealCapture, sealedAnswer } = await import("./record.ts");
  const raw = runRealGh(argv, ctx.env, ctx.cwd, ctx.self);
  if (!raw) return fail("✗ EVAL_RECORD=1 but no real gh found on PATH\n");
  const sealed = sealCapture(raw, ctx.redaction?.detectors, ctx.redaction?.check);
  if (sealed.survivors.length === 0) {
    processRecorder ??= new Recorder(); // runGh made one when recording; a caller's own recorder wins
    (recorder ?? processRecorder).add(sealed.capture);
  }
  return sealedAnswer(raw, sealed);
}

// Every file the suite lane reads (trials for merge and --resume, scorecards for compare and plan,
// --history, suite and task YAML, settings): read as the other lanes read theirs (lib/core/confined.ts),
// a regular file only (a FIFO, socket or device refused without blocking, never opened for a read),
// never more than a cap, and what a run or a shard produced (trials, scorecards, histories) never
// through a link as its last component. A refusal is one ConfigError line naming the file and what was
// expected; the caller's edge picks the exit code. It knows no format.
import { ConfinedPathError, readRegular } from "../core/confined.ts";
import { ConfigError } from "../core/errors.ts";

/** The cap of a file a run or shard produced: a trials file, a scorecard, a history. */
export const MAX_DATA_BYTES = 256 * 1024 * 1024;
/** The cap of a file a person wrote: suite.yaml, task.yaml, a rubric, a settings file, a solution. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** How to read one input: its cap, whether a final link is followed (files people wrote), its exit code. */
export interface InputOptions {
  maxBytes: number;
  follow?: boolean;
  exitCode?: number;
}

/** What a produced file is read with: MAX_DATA_BYTES, no final link. */
export const DATA: InputOptions = { maxBytes: MAX_DATA_BYTES };
/** What a file a person wrote is read with: MAX_CONFIG_BYTES, links followed. */
export const CONFIG: InputOptions = { maxBytes: MAX_CONFIG_BYTES, follow: true };

/** Why an input could not be read, in words that quote nothing of it: missing, not regular, a link, too large. */
export function inputProblem(error: unknown, maxBytes: number): string {
  if (error instanceof ConfinedPathError)
    switch (error.reason) {
      case "missing":
        return "no such file";
      case "not-regular":
        return "not a regular file (a FIFO, socket, device or directory is refused)";
      case "link":
        return "a symbolic link (expected the file itself)";
      case "too-large":
        return `larger than ${maxBytes} bytes (the cap of this input)`;
      default:
        return error.why;
    }
  const code = (error as NodeJS.ErrnoException)?.code;
  return code ?? (error as Error)?.message ?? String(error);
}

/** The bytes of input `path`; throws the refusal as it came (ConfinedPathError) or an errno error. */
export function readInputBytes(path: string, opts: InputOptions): Buffer {
  return readRegular(path, { maxBytes: opts.maxBytes, follow: opts.follow === true });
}

function refused(path: string, what: string, opts: InputOptions, error: unknown): ConfigError {
  return new ConfigError(`Cannot read ${what} "${path}": ${inputProblem(error, opts.maxBytes)}`, {
    cause: error,
    ...(opts.exitCode !== undefined ? { exitCode: opts.exitCode } : {}),
  });
}

/**
 * The text of input `path` (`what` names it in the one line: `Cannot read <what> "<path>": <why>`).
 * ConfigError, exit `opts.exitCode` (else ConfigError's own).
 */
export function readInput(path: string, what: string, opts: InputOptions): string {
  try {
    return readInputBytes(path, opts).toString("utf8");
  } catch (error) {
    throw refused(path, what, opts, error);
  }
}

/** As readInput, but undefined when nothing is at `path` (a first --resume, a new --history). */
export function readInputIfAny(path: string, what: string, opts: InputOptions): string | undefined {
  try {
    return readInputBytes(path, opts).toString("utf8");
  } catch (error) {
    if (error instanceof ConfinedPathError && error.reason === "missing") return undefined;
    throw refused(path, what, opts, error);
  }
}

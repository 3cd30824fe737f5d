// Why a Harbor task does not run here, in one line: HarborRefusal (a ConfigError naming the file, and
// the key when there is one) and SkippedTask, the same line kept as data when a dataset goes on
// without the task. `broken` tells the task's own fault (a bad task.toml, a missing test.sh, a
// Dockerfile that fails) from what this runner or machine cannot do (compose, [[steps]], no network,
// a base image not here); `tasks check` counts only the first as broken. No I/O here.
import { basename, relative } from "node:path";
import { ConfigError } from "../../core/errors.ts";

/**
 * A task a dataset or run goes on without: its id, and why in one line naming the file (relative to
 * the task). A type, not an interface, so it is the scorecard's `{task, reason}` too.
 */
export type SkippedTask = {
  task: string;
  reason: string;
  /** True when the task itself is at fault (it would not run under Harbor either). */
  broken: boolean;
};

/** A Harbor task refused: `Cannot <verb> Harbor task "<file>": <why>`, its skip line alongside. */
export class HarborRefusal extends ConfigError {
  readonly file: string;
  readonly why: string;
  readonly broken: boolean;
  constructor(
    file: string,
    why: string,
    o: { broken: boolean; verb?: "load" | "build" | "run"; cause?: unknown } = { broken: true },
  ) {
    super(`Cannot ${o.verb ?? "load"} Harbor task "${file}": ${why}`, o.cause ? { cause: o.cause } : {});
    this.name = "HarborRefusal";
    this.file = file;
    this.why = why;
    this.broken = o.broken;
  }

  /** The skip line of the task in `taskDir`: its id, and `<file relative to it>: <why>`. */
  skipOf(taskDir: string): SkippedTask {
    return {
      task: basename(taskDir),
      reason: `${relative(taskDir, this.file)}: ${this.why}`,
      broken: this.broken,
    };
  }
}

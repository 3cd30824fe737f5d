// Spawning children. A non-zero exit is a result, not an exception: run() returns the same shape
// for success and failure, and throws only when the child could not be started. Children get their
// own process group so a timeout kills the whole tree, and no child outlives us on SIGINT/SIGTERM.
import { spawn, spawnSync } from "node:child_process";

/** What a finished child did. */
export interface ProcResult {
  command: string[];
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

/** Options for run(). `env` replaces the environment entirely when given (no inheritance). */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string | Uint8Array;
  timeoutMs?: number;
  /** Stop collecting output past this many bytes per stream (the child keeps running). */
  maxOutputBytes?: number;
  /**
   * Stdout goes here as it comes, chunk by chunk, instead of into the result (stdout is then ""): a
   * binary stream too large to hold. Returning false kills the child's group (it has seen enough);
   * a throw kills it too, and run() rejects with that error once the child is gone.
   */
  onStdout?: (chunk: Buffer) => boolean;
}

/** A child that could not be started (missing executable, permission). */
export class ProcError extends Error {
  readonly command: string[];
  constructor(message: string, command: string[], options?: ErrorOptions) {
    super(message, options);
    this.name = "ProcError";
    this.command = command;
  }
}

const live = new Set<number>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const pid of live) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", killAll);
}

/** Runs a command to completion and returns what it did; see ProcResult. */
export function run(command: string[], opts: RunOptions = {}): Promise<ProcResult> {
  const [file, ...args] = command;
  if (!file) return Promise.reject(new ProcError("Cannot run an empty command", command));
  hookExit();
  const started = performance.now();
  const limit = opts.maxOutputBytes ?? 64 * 1024 * 1024;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sinkError: unknown;
    let sinkDone = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // exited meanwhile
      }
    };
    child.stdout.on("data", (b: Buffer) => {
      if (opts.onStdout) {
        if (sinkDone) return;
        try {
          sinkDone = opts.onStdout(b) === false;
        } catch (error) {
          sinkError = error;
          sinkDone = true;
        }
        if (sinkDone) kill();
        return;
      }
      if (outBytes < limit) out.push(b);
      outBytes += b.length;
    });
    child.stderr.on("data", (b: Buffer) => {
      if (errBytes < limit) err.push(b);
      errBytes += b.length;
    });
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      if (child.pid) live.delete(child.pid);
      reject(new ProcError(`Cannot start "${file}": ${error.message}`, command, { cause: error }));
    });
    if (child.pid) live.add(child.pid);
    if (opts.timeoutMs && opts.timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, opts.timeoutMs);
    }
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (child.pid) live.delete(child.pid);
      if (sinkError !== undefined) return reject(sinkError);
      resolvePromise({
        command,
        exitCode: code,
        signal: signal ?? null,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        durationMs: performance.now() - started,
        timedOut,
      });
    });
    child.stdin.on("error", () => {
      // the child may exit without reading its stdin; that is its business
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** A short child run to completion synchronously (a git look-up while a file loads): the same result shape, stdout also as bytes. */
export function runSync(
  command: string[],
  opts: { cwd?: string; timeoutMs?: number; maxOutputBytes?: number } = {},
): ProcResult & { stdoutBytes: Buffer } {
  const [file, ...args] = command;
  if (file === undefined) throw new ProcError("Cannot start an empty command", command);
  const started = performance.now();
  const r = spawnSync(file, args, {
    cwd: opts.cwd,
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: opts.maxOutputBytes ?? 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === "ENOENT")
    throw new ProcError(`Cannot start "${file}": ${r.error.message}`, command, { cause: r.error });
  const out = r.stdout ?? Buffer.alloc(0);
  return {
    command,
    exitCode: r.status,
    signal: r.signal ?? null,
    stdout: out.toString("utf8"),
    stdoutBytes: out,
    stderr: (r.stderr ?? Buffer.alloc(0)).toString("utf8"),
    durationMs: performance.now() - started,
    timedOut: (r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT",
  };
}

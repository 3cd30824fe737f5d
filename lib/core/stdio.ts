// Output for tools that only print (gh replay, --version, usage): whole writes straight to
// descriptors 1 and 2, never through process.stdout/process.stderr. In Bun the first touch of either
// stream builds a Node stream and costs more CPU than the rest of a replayed gh call
// (tests/bench/dist.ts measures it against hello worlds), so under Bun the runtime's own writer is
// used (lib/core/runtime.ts), under Deno its own stdout writer (its node:fs writeSync loses count of
// what it wrote when a pipe fills), and under Node fs.writeSync, loaded only then. The bytes are the
// streams' (UTF-8), and what a stream would handle is handled: a short write continues where it
// stopped, a non-blocking pipe that is full (EAGAIN: its O_NONBLOCK set by a process sharing it) is
// waited out with a growing pause, EINTR is retried, and a reader that went away (EPIPE) ends the
// output quietly, as `gh ... | head` expects. A tool that streams (progress, logs) keeps the streams.
import { bunWriteStdio, denoWriteStdio } from "./runtime.ts";

/** What writeAll needs of fs.writeSync; tests pass a stand-in that writes short or refuses. */
export type WriteFn = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

const encoder = new TextEncoder();
let pause: Int32Array | undefined;

/** Blocks the thread for `ms` without spinning (Atomics.wait works on the main thread of Bun, Node and Deno). */
function sleepSync(ms: number): void {
  pause ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pause, 0, 0, ms);
}

/** The longest a write waits for a full pipe before it tries again, ms. */
const MAX_PAUSE_MS = 50;

/**
 * Writes every byte of `data` to `fd` with `write`; false when the reader is gone (EPIPE) and the
 * rest was dropped. Short writes continue, EAGAIN waits (1, 2, 4 ... 50 ms) and retries, EINTR
 * retries; any other error throws.
 */
export function writeAll(fd: number, data: string | Uint8Array, write: WriteFn): boolean {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  let offset = 0;
  let wait = 1;
  while (offset < bytes.length) {
    try {
      offset += write(fd, bytes, offset, bytes.length - offset);
      wait = 1;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EPIPE") return false;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") {
        sleepSync(wait);
        wait = Math.min(wait * 2, MAX_PAUSE_MS);
      } else if (code !== "EINTR") throw error;
    }
  }
  return true;
}

async function writeStdio(fd: 1 | 2, data: string | Uint8Array): Promise<boolean> {
  if (data.length === 0) return true;
  const direct = bunWriteStdio(fd, data);
  if (!direct) return writeAll(fd, data, denoWriteStdio(fd) ?? (await import("node:fs")).writeSync);
  try {
    await direct;
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPIPE") return false;
    throw error;
  }
}

/** Writes `data` whole to standard output (descriptor 1); false when the reader is gone. */
export function writeStdout(data: string | Uint8Array): Promise<boolean> {
  return writeStdio(1, data);
}

/** Writes `data` whole to standard error (descriptor 2); false when the reader is gone. */
export function writeStderr(data: string | Uint8Array): Promise<boolean> {
  return writeStdio(2, data);
}

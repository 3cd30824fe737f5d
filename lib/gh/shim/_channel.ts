// The channel between the recording shim and `gh-shim record` (observer.ts): under `gh-shim record` a
// shim does not run gh or write a capture itself; it asks the recorder, over a Unix socket in the
// recorder's private work directory, to run the call, and prints the answer. Each connection is one
// call: a JSON header line (argv, cwd, whether stdin follows), then the call's stdin when the call
// reads it, then the shim's end; the reply is one JSON line. Internal to lib/gh/shim/.
import { createConnection, type Socket } from "node:net";
import type { ShimOutput } from "./issues.ts";

/** Set by `gh-shim record` in the command's environment: the recorder's socket. */
export const RECORDER_ENV = "PROCTOR_GH_RECORDER";

/** What the shim asks for. */
export interface CallRequest {
  argv: string[];
  cwd: string;
  /** The call reads stdin (`--body-file -`): the shim's stdin follows the header. */
  stdin: boolean;
}

/** The longest header a recorder reads (argv and cwd): a larger one is refused. */
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * Whether gh reads this call's stdin: a `-` argument (`--body-file -`, `--input -`), a value ending
 * in `=-` or `@-` (`-F body=@-`), `--with-token`, or `secret set` without `--body`. Any other call
 * gets no stdin, as a `while read` loop around it needs (it must not eat the loop's lines).
 */
export function readsStdin(argv: readonly string[]): boolean {
  if (argv.some((a) => a === "-" || a.endsWith("=-") || a.endsWith("@-") || a === "--with-token"))
    return true;
  return argv[0] === "secret" && argv[1] === "set" && !argv.some((a) => /^(?:-b|--body)(?:=|$)/.test(a));
}

/** Reads one `\n`-terminated line from `socket`, then hands the rest of the stream over untouched. */
export function readLine(socket: Socket, max: number): Promise<{ line: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const at = chunk.indexOf(10);
      if (at < 0) {
        parts.push(chunk);
        size += chunk.length;
        if (size > max) finish(new Error(`a header over ${max} bytes`));
        return;
      }
      parts.push(chunk.subarray(0, at));
      finish(undefined, chunk.subarray(at + 1));
    };
    const onEnd = () => finish(new Error("the connection ended before its header"));
    const finish = (error?: Error, rest?: Buffer) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onEnd);
      socket.pause();
      if (error) reject(error);
      else resolve({ line: Buffer.concat(parts).toString("utf8"), rest: rest ?? Buffer.alloc(0) });
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onEnd);
  });
}

/** Asks the recorder at `path` to run one call; its answer as the shim prints it. */
export function askRecorder(path: string, req: CallRequest): Promise<ShimOutput> {
  return new Promise((resolve) => {
    const fail = (why: string) =>
      resolve({
        stdout: "",
        stderr: `✗ gh shim: cannot reach the recorder at ${path}: ${why}\n`,
        exitCode: 1,
      });
    const socket = createConnection(path);
    const chunks: Buffer[] = [];
    socket.on("error", (e) => fail(e.message));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("end", () => {
      try {
        const r = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ShimOutput;
        if (typeof r.stdout !== "string" || typeof r.stderr !== "string" || typeof r.exitCode !== "number")
          throw new Error("a malformed answer");
        resolve(r);
      } catch (e) {
        fail((e as Error).message);
      }
      if (req.stdin) process.stdin.destroy();
    });
    socket.on("connect", () => {
      socket.write(`${JSON.stringify(req)}\n`);
      if (req.stdin) process.stdin.pipe(socket);
      else socket.end();
    });
  });
}

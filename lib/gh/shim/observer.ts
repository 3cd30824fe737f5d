// The recorder's side of `gh-shim record`: a Unix socket in its private work directory that the
// recording shims ask to run each call (lib/gh/shim/_channel.ts). It runs the real gh itself (the one
// resolved before the command started, in the recorder's environment and the shim's directory),
// redacts what gh printed and keeps the capture in its own memory, so the cassette holds only calls
// this process observed: a command under recording cannot add one, or an answer, by writing a file.
// A call already captured in this recording is answered from memory without running gh again.
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { normalizeArgv } from "../cassette.ts";
import { type CallRequest, MAX_HEADER_BYTES, readLine } from "./_channel.ts";
import type { ShimOutput } from "./issues.ts";
import { type Capture, RECORDING_MARK, sealCapture, sealedAnswer } from "./record.ts";

/** A listening recorder: its captures (sealed, in the order they ended) and how to stop it. */
export interface Observer {
  captures: Capture[];
  close(): Promise<void>;
}

/** Runs gh for one call: stdout, stderr and exit as gh gave them, stdin from `input` when given. */
function runGh(
  gh: string,
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
  input: Socket | undefined,
): Promise<Capture> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const child = spawn(gh, [...argv], { env, cwd, stdio: [input ? "pipe" : "ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr?.on("data", (c: Buffer) => err.push(c));
    if (input && child.stdin) {
      child.stdin.on("error", () => undefined); // gh may exit without reading it all
      input.pipe(child.stdin);
      input.resume();
    }
    let done = false;
    const finish = (c: Capture) => {
      if (!done) resolve(c);
      done = true;
    };
    child.on("error", (e) => finish({ argv: [...argv], stdout: "", stderr: `${e.message}\n`, exit: 1 }));
    child.on("close", (code) =>
      finish({
        argv: [...argv],
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        exit: code ?? 1,
      }),
    );
  });
}

/** A directory that exists for `cwd`, else the recorder's own. */
function dirOr(cwd: unknown, fallback: string): string {
  try {
    return typeof cwd === "string" && statSync(cwd).isDirectory() ? cwd : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Listens on `socket` (a path in a directory only this user can enter) and answers each call by
 * running `gh` in `env`; every capture is redacted (`sealCapture`) before it is kept, and one in which
 * a credential survives is not kept.
 */
export async function observeGh(
  socket: string,
  gh: string,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<Observer> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  childEnv[RECORDING_MARK] = "1"; // a shim found as "the real gh" refuses to record again
  const captures: Capture[] = [];
  const byKey = new Map<string, Capture>();
  const open = new Set<Socket>();
  let closed = false;

  const answer = async (conn: Socket): Promise<ShimOutput> => {
    const { line, rest } = await readLine(conn, MAX_HEADER_BYTES);
    const req = JSON.parse(line) as Partial<CallRequest>;
    if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === "string"))
      throw new Error("expected a header with argv, a list of strings");
    const argv = req.argv as string[];
    const key = JSON.stringify(normalizeArgv(argv));
    const seen = byKey.get(key);
    if (seen) return { stdout: seen.stdout, stderr: seen.stderr, exitCode: seen.exit & 0xff };
    if (req.stdin && rest.length > 0) conn.unshift(rest);
    const raw = await runGh(gh, argv, childEnv, dirOr(req.cwd, cwd), req.stdin ? conn : undefined);
    const sealed = sealCapture(raw);
    if (sealed.survivors.length === 0 && !closed) {
      const capture = { ...sealed.capture, argv: normalizeArgv(sealed.capture.argv) };
      captures.push(capture);
      byKey.set(key, capture);
    }
    return sealedAnswer(raw, sealed);
  };

  const server: Server = createServer({ allowHalfOpen: true }, (conn) => {
    open.add(conn);
    conn.on("close", () => open.delete(conn));
    conn.on("error", () => undefined); // a shim that went away
    void answer(conn)
      .catch(
        (e: unknown): ShimOutput => ({
          stdout: "",
          stderr: `✗ gh shim: the recorder refused the call: ${(e as Error).message}\n`,
          exitCode: 1,
        }),
      )
      .then((out) => {
        if (!conn.destroyed) conn.end(JSON.stringify(out));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    captures,
    /** Stops listening and drops what is still open: a call the command left running is not recorded. */
    async close() {
      closed = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const conn of open) conn.destroy();
      await stopped;
    },
  };
}

// What a tool run in-process writes: process.stdout/stderr captured between beforeEach and afterEach
// (and process.exitCode restored), for tests that call an entry's main() instead of a process.
import { afterEach, beforeEach } from "bun:test";

/** Installs the capture hooks in the calling test file; read `captured()` after a run. */
export function captureStreams(): () => { stdout: string; stderr: string } {
  let captured = { stdout: "", stderr: "" };
  const write = { out: process.stdout.write, err: process.stderr.write };
  beforeEach(() => {
    captured = { stdout: "", stderr: "" };
    const into = (key: "stdout" | "stderr") =>
      ((chunk: string | Uint8Array) => {
        captured[key] += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
        return true;
      }) as typeof process.stdout.write;
    process.stdout.write = into("stdout");
    process.stderr.write = into("stderr");
  });
  afterEach(() => {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = 0;
  });
  return () => captured;
}

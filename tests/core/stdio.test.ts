// Output straight to descriptors 1 and 2 (lib/core/stdio.ts): the retry loop against a stand-in
// writeSync that writes short, refuses with EAGAIN or EINTR, or finds the reader gone; and the real
// thing, a replayed gh call writing 1 MiB into a non-blocking pipe that fills up, under Bun (Bun's
// writer), Node (fs.writeSync) and Deno (its stdout writer), byte for byte.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeAll } from "../../lib/core/stdio.ts";
import { bundlePath } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

const errno = (code: string) => Object.assign(new Error(code), { code });

/** A writeSync stand-in: each call takes the next step (a byte count to accept, or an error code). */
function scripted(steps: (number | string)[]) {
  const written: number[] = [];
  const calls: string[] = [];
  const write = (_fd: number, buf: Uint8Array, offset: number, length: number): number => {
    const step = steps.shift() ?? length;
    if (typeof step === "string") {
      calls.push(step);
      throw errno(step);
    }
    const n = Math.min(step, length);
    calls.push(String(n));
    written.push(...buf.subarray(offset, offset + n));
    return n;
  };
  return { write, written, calls };
}

describe("writeAll", () => {
  test.each([
    { name: "one whole write", steps: [], result: true, calls: ["10"], bytes: 10 },
    { name: "short writes continue", steps: [3, 3, 3], result: true, calls: ["3", "3", "3", "1"], bytes: 10 },
    {
      name: "a full pipe is waited out",
      steps: ["EAGAIN", "EAGAIN", 4],
      result: true,
      calls: ["EAGAIN", "EAGAIN", "4", "6"],
      bytes: 10,
    },
    {
      name: "EWOULDBLOCK too",
      steps: ["EWOULDBLOCK"],
      result: true,
      calls: ["EWOULDBLOCK", "10"],
      bytes: 10,
    },
    {
      name: "an interrupted write is retried",
      steps: ["EINTR"],
      result: true,
      calls: ["EINTR", "10"],
      bytes: 10,
    },
    {
      name: "a reader gone ends it quietly",
      steps: [4, "EPIPE"],
      result: false,
      calls: ["4", "EPIPE"],
      bytes: 4,
    },
  ])("$name", ({ steps, result, calls, bytes }) => {
    const s = scripted([...steps]);
    const got = writeAll(1, "0123456789", s.write);
    expect({
      result: got,
      calls: s.calls,
      bytes: s.written.length,
      text: Buffer.from(s.written).toString(),
    }).toEqual({
      result,
      calls: [...calls],
      bytes,
      text: "0123456789".slice(0, bytes),
    });
  });

  test("any other error is thrown", () => {
    const s = scripted(["EBADF"]);
    expect(() => writeAll(1, "x", s.write)).toThrow("EBADF");
  });

  test("text is written as UTF-8", () => {
    const s = scripted([]);
    writeAll(1, "ü✓😀", s.write);
    expect(Buffer.from(s.written).toString("hex")).toEqual(Buffer.from("ü✓😀", "utf8").toString("hex"));
  });
});

// The reader: makes a pipe, sets O_NONBLOCK on its write end (shared with the child, as a parent
// that set it would), starts the command on it and reads everything, slower than the child writes.
const READER = `
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen(sys.argv[1:], stdout=w)
os.close(w)
data = b""
while True:
    chunk = os.read(r, 4096)
    if not chunk:
        break
    data += chunk
sys.stdout.write(f"{len(data)} {data[:12].decode()} {data[-12:].decode()} {p.wait()}\\n")
`;

describe("a replayed gh call fills a non-blocking pipe", () => {
  const body = `${"0123456789abcdef".repeat(65_536)}END`;
  const expected = `${body.length} 0123456789ab ${body.slice(-12)} 0\n`;
  const runtimes = [
    { name: "bun", argv: async () => [BIN.bun, join(REPO_ROOT, "scripts/proctor.ts"), "gh"] },
    { name: "node", argv: async () => [BIN.node, await bundlePath("run-eval"), "gh"] },
    {
      name: "deno",
      argv: async () => [BIN.deno, "run", "-A", "--quiet", await bundlePath("run-eval"), "gh"],
    },
  ];
  test.each(runtimes)("$name writes every byte", async ({ argv }) => {
    using dir = tempDir("stdio-pipe");
    const cassette = join(dir.path, "cassettes.json");
    writeFileSync(cassette, JSON.stringify({ version: 1, calls: [{ argv: ["api", "big"], stdout: body }] }));
    const r = spawnSync("python3", ["-c", READER, ...(await argv()), "api", "big"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path, EVAL_CASSETTES: cassette },
    });
    expect({ stdout: r.stdout, stderr: r.stderr, status: r.status }).toEqual({
      stdout: expected,
      stderr: "",
      status: 0,
    });
  });
});

import { describe, expect, test } from "bun:test";
import { ProcError, run } from "../../lib/core/proc.ts";

describe("run", () => {
  const cases = [
    {
      name: "success",
      cmd: ["sh", "-c", "echo out; echo err >&2"],
      expected: { exitCode: 0, stdout: "out\n", stderr: "err\n", timedOut: false },
    },
    {
      name: "non-zero exit is a result",
      cmd: ["sh", "-c", "exit 3"],
      expected: { exitCode: 3, stdout: "", stderr: "", timedOut: false },
    },
    {
      name: "stdin is passed",
      cmd: ["cat"],
      input: "hello",
      expected: { exitCode: 0, stdout: "hello", stderr: "", timedOut: false },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const r = await run(c.cmd, { input: c.input });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut }).toEqual(
        c.expected,
      );
    });
  }

  test("env replaces the environment entirely", async () => {
    const r = await run(["/usr/bin/env"], { env: { ONLY: "this" } });
    expect(r.stdout).toBe("ONLY=this\n");
  });

  test("a timeout kills the whole process group and is reported", async () => {
    const r = await run(["sh", "-c", "sleep 30 & sleep 30; echo never"], { timeoutMs: 200 });
    expect({ timedOut: r.timedOut, stdout: r.stdout, signal: r.signal }).toEqual({
      timedOut: true,
      stdout: "",
      signal: "SIGKILL",
    });
  });

  test("a missing executable throws ProcError", async () => {
    await expect(run(["/nonexistent/tool"])).rejects.toBeInstanceOf(ProcError);
  });
});

describe("run with onStdout", () => {
  test("stdout goes to the sink, bytes as they are, not into the result", async () => {
    const got: Buffer[] = [];
    const r = await run(["sh", "-c", "printf 'a\\377b'; echo err >&2"], {
      onStdout: (b) => got.push(b) > 0,
    });
    expect({
      sink: [...Buffer.concat(got)],
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: r.exitCode,
    }).toEqual({
      sink: [0x61, 0xff, 0x62],
      stdout: "",
      stderr: "err\n",
      exitCode: 0,
    });
  });

  test("a sink that returns false stops the child's whole group; it is not called again", async () => {
    let calls = 0;
    const r = await run(["sh", "-c", "yes & yes; echo never >&2"], {
      onStdout: () => {
        calls++;
        return false;
      },
      timeoutMs: 60_000,
    });
    expect({ calls, signal: r.signal, timedOut: r.timedOut, stderr: r.stderr }).toEqual({
      calls: 1,
      signal: "SIGKILL",
      timedOut: false,
      stderr: "",
    });
  });

  test("a sink that throws stops the child, and run rejects with its error", async () => {
    const boom = new Error("sink failed");
    await expect(
      run(["yes"], {
        onStdout: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});

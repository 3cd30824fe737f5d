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

import { describe, expect, test } from "bun:test";
import { commandTool } from "../../lib/grade/command.ts";
import type { CommandRun, GradeContext, ToolOutcome } from "../../lib/grade/types.ts";

/** A context whose sandbox is a recorded answer; `seen` collects the argv it was asked to run. */
function ctxWith(answer: CommandRun | Error, seen: string[][]): GradeContext {
  return {
    outDir: "/nonexistent/out",
    repoRoot: "/nonexistent",
    cwd: "/nonexistent",
    exec: async (argv) => {
      seen.push(argv);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const ran = (exitCode: number | null, stdout = "", stderr = "", timedOut = false): CommandRun => ({
  exitCode,
  stdout,
  stderr,
  timedOut,
});

describe("command", () => {
  const rows: {
    name: string;
    a: Record<string, unknown>;
    answer: CommandRun | Error;
    want: ToolOutcome;
    argv: string[][];
  }[] = [
    {
      name: "exit 0, output matched",
      a: { tool: "command", run: "wc -l < report.md", stdout_matches: "^\\s*4$" },
      answer: ran(0, "4\n"),
      want: { got: 0, output: [] },
      argv: [["bash", "-c", "wc -l < report.md"]],
    },
    {
      name: "a non-zero exit is got, with its output",
      a: { tool: "command", run: "grep -q x a.txt" },
      answer: ran(1, "", "grep: a.txt: No such file or directory\n"),
      want: { got: 1, output: ["grep: a.txt: No such file or directory"] },
      argv: [["bash", "-c", "grep -q x a.txt"]],
    },
    {
      name: "stdout_contains fails",
      a: { tool: "command", run: "cat a", stdout_contains: "done" },
      answer: ran(0, "pending\n"),
      want: { got: 0, reason: 'stdout does not contain "done"', output: ["pending"] },
      argv: [["bash", "-c", "cat a"]],
    },
    {
      name: "stderr_matches fails",
      a: { tool: "command", run: "x", stderr_matches: "^warn" },
      answer: ran(0, "", "error\n"),
      want: { got: 0, reason: "stderr does not match /^warn/", output: ["error"] },
      argv: [["bash", "-c", "x"]],
    },
    {
      name: "stderr_contains holds",
      a: { tool: "command", run: "x", stderr_contains: "warn" },
      answer: ran(0, "", "a warning\n"),
      want: { got: 0, output: [] },
      argv: [["bash", "-c", "x"]],
    },
    {
      name: "timed out",
      a: { tool: "command", run: "sleep 1000" },
      answer: ran(null, "", "", true),
      want: { got: null, reason: "command timed out", output: [] },
      argv: [["bash", "-c", "sleep 1000"]],
    },
    {
      name: "could not start",
      a: { tool: "command", run: "x" },
      answer: new Error("spawn bwrap ENOENT"),
      want: { got: null, reason: "command could not start: spawn bwrap ENOENT", output: [] },
      argv: [["bash", "-c", "x"]],
    },
    {
      name: "malformed: no run (nothing runs)",
      a: { tool: "command" },
      answer: ran(0),
      want: { got: null, reason: "command requires 'run' (a bash command)", output: [] },
      argv: [],
    },
    {
      name: "malformed: a bad regex (nothing runs)",
      a: { tool: "command", run: "x", stdout_matches: "[" },
      answer: ran(0),
      want: {
        got: null,
        reason:
          "stdout_matches: expected a valid regular expression: Invalid regular expression: missing terminating ] for character class",
        output: [],
      },
      argv: [],
    },
  ];
  for (const r of rows) {
    test(r.name, async () => {
      const seen: string[][] = [];
      expect({ outcome: await commandTool(r.a, ctxWith(r.answer, seen)), argv: seen }).toEqual({
        outcome: r.want,
        argv: r.argv,
      });
    });
  }

  test("without a sandbox (grade alone) it never runs on the host", async () => {
    const ctx: GradeContext = { outDir: "/nonexistent", repoRoot: "/nonexistent", cwd: "/nonexistent" };
    expect(await commandTool({ tool: "command", run: "touch /tmp/x" }, ctx)).toEqual({
      got: null,
      reason: "command runs only inside run-eval's sandbox (not under grade)",
      output: [],
    });
  });
});

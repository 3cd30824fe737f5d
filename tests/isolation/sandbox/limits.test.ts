// Per-subject limits: the flag parser, run-eval's --pids-max/--memory-max refusals (exit 2, one line)
// and that the values reach the subject (its own `ulimit` and tmpfs size) through the real entry.
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../lib/core/errors.ts";
import { DEFAULT_LIMITS, MIN_MEMORY_MIB, parseLimit } from "../../../lib/isolation/sandbox/index.ts";
import { openTmp, runEval, writeEvalCase } from "../../hermetic/support.ts";
import { tempDir } from "../../support/tmp.ts";

describe("parseLimit", () => {
  const cases: { value: string | undefined; min?: number; want: number | string }[] = [
    { value: undefined, want: 7 },
    { value: "", want: 7 },
    { value: "64", want: 64 },
    { value: "0", want: '--x must be an integer of at least 1, got "0"' },
    { value: "-3", want: '--x must be an integer of at least 1, got "-3"' },
    { value: "1e3", want: '--x must be an integer of at least 1, got "1e3"' },
    {
      value: "99999999999999999999",
      want: '--x must be an integer of at least 1, got "99999999999999999999"',
    },
    { value: "511", min: 512, want: '--x must be an integer of at least 512, got "511"' },
    { value: "512", min: 512, want: 512 },
  ];
  for (const c of cases) {
    test(`${JSON.stringify(c.value)} (min ${c.min ?? 1})`, () => {
      let got: number | string;
      try {
        got = parseLimit(c.value, "--x", 7, c.min);
      } catch (error) {
        got = error instanceof UsageError ? error.message : `not a UsageError: ${String(error)}`;
      }
      expect(got).toEqual(c.want);
    });
  }
});

test("the defaults leave room for the gh shim", () => {
  expect({ defaults: DEFAULT_LIMITS, fits: DEFAULT_LIMITS.memoryMiB >= MIN_MEMORY_MIB }).toEqual({
    defaults: { pids: 1024, memoryMiB: 1024 },
    fits: true,
  });
});

describe("run-eval limit flags", () => {
  const refusals = [
    { args: ["--pids-max", "0"], line: '✗ --pids-max must be an integer of at least 1, got "0"' },
    { args: ["--memory-max", "700"], line: '✗ --memory-max must be an integer of at least 768, got "700"' },
    { args: ["--memory-max", "lots"], line: '✗ --memory-max must be an integer of at least 768, got "lots"' },
  ];
  for (const c of refusals) {
    test(`refuses ${c.args.join(" ")} before any subject (exit 2)`, async () => {
      using root = tempDir("proctor-limits-case");
      const caseDir = writeEvalCase(root.path, { name: "never", body: 'echo RAN > "$OUT/ran"' });
      const r = await runEval([...c.args, caseDir]);
      expect({ exit: r.exitCode, stderr: r.stderr.trim(), ran: r.stdout.includes("RAN") }).toEqual({
        exit: 2,
        stderr: c.line,
        ran: false,
      });
    });
  }

  test("--pids-max and --memory-max reach the subject: its ulimits and its /tmp size", async () => {
    using root = tempDir("proctor-limits-case");
    using tmp = openTmp();
    const body = 'echo "LIMITS $(ulimit -u) $(ulimit -d) $(df -k --output=size /tmp | tail -1 | tr -d " ")"';
    const caseDir = writeEvalCase(root.path, { name: "limits", body });
    const r = await runEval(["--pids-max", "300", "--memory-max", "800", caseDir], { TMPDIR: tmp.path });
    const line = r.stdout.split("\n").find((l) => l.startsWith("LIMITS "));
    expect({ exit: r.exitCode, line }).toEqual({ exit: 0, line: `LIMITS 300 ${800 * 1024} ${800 * 1024}` });
  });
});

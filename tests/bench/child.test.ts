// tests/bench/_child.ts: a child's peak memory is its own (wait4 via GNU time), not this process's
// high-water mark, which a spawnSync'd child's own rusage inherits; a malformed report is one line.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { parseTimeLine, runChild } from "./_child.ts";

test("a child's peak is its own, not the parent's", () => {
  const ballast = Buffer.alloc(200 * 1024 * 1024, 1); // this process's peak: over 200 MB
  const code = "process.stdout.write(String(Math.round(process.resourceUsage().maxRSS / 1024)))";
  const naive = Number(spawnSync(process.execPath, ["-e", code], { encoding: "utf8" }).stdout);
  const r = runChild([process.execPath, "-e", code]);
  expect({
    naiveInheritsParent: naive >= 200,
    measuredIsSmall: r.maxRssMB < 100,
    status: r.status,
    ballast: ballast.length,
  }).toEqual({ naiveInheritsParent: true, measuredIsSmall: true, status: 0, ballast: 200 * 1024 * 1024 });
});

test.each([
  { name: "KiB user sys", text: "25600 0.50 0.25\n", expected: { maxRssMB: 25, cpuMs: 750 } },
  {
    name: "a command's exit note before the line",
    text: "Command exited with non-zero status 3\n1024 0.00 0.00\n",
    expected: { maxRssMB: 1, cpuMs: 0 },
  },
])("parses $name", ({ text, expected }) => {
  expect(parseTimeLine(text)).toEqual(expected);
});

test("a malformed report names the tool and what was expected", () => {
  expect(() => parseTimeLine("oops")).toThrow(
    'Cannot read /usr/bin/time\'s report: expected "KiB user sys", got "oops"',
  );
});

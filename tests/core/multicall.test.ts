// The multi-call binary's dispatch (lib/core/multicall.ts): the tool a link name means (path.basename's
// answer, computed without node:path), and what proctor prints itself.
import { describe, expect, test } from "bun:test";
import { basename, join } from "node:path";
import { toolName } from "../../lib/core/multicall.ts";
import { run } from "../../lib/core/proc.ts";
import { VERSION } from "../../lib/core/version.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

describe("toolName", () => {
  test.each([
    { invoked: "gh", expected: "gh" },
    { invoked: "/usr/local/bin/grade", expected: "grade" },
    { invoked: "dist/bin/run-eval", expected: "run-eval" },
    { invoked: "./proctor-linux-x64", expected: "proctor" },
    { invoked: "/opt/proctor-darwin-arm64", expected: "proctor" },
    { invoked: "proctor-linux-arm64-musl", expected: "proctor" },
    { invoked: "C-grade.exe", expected: "C-grade" },
    { invoked: "a/gh/", expected: "gh" },
    { invoked: "x//y//", expected: "y" },
    { invoked: "/", expected: "" },
  ])("$invoked", ({ invoked, expected }) => {
    const viaNodePath = basename(invoked)
      .replace(/\.exe$/i, "")
      .replace(/-(linux|darwin|windows)-(x64|arm64)(-musl)?$/, "");
    expect({ toolName: toolName(invoked), viaNodePath }).toEqual({
      toolName: expected,
      viaNodePath: expected,
    });
  });
});

describe("proctor's own words", () => {
  test.each([
    { name: "--version", args: ["--version"], stdout: `${VERSION}\n`, stderr: "", exitCode: 0 },
    {
      name: "an unknown tool",
      args: ["gradee"],
      stdout: "",
      stderr: '✗ Unknown tool "gradee": did you mean grade?\n',
      exitCode: 2,
    },
  ])("$name", async ({ args, stdout, stderr, exitCode }) => {
    const r = await run([BIN.bun, join(REPO_ROOT, "scripts/proctor.ts"), ...args]);
    expect({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }).toEqual({
      stdout,
      stderr,
      exitCode,
    });
  });
});

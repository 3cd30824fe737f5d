// The multi-call binary: dispatch on the name it is called by and on a first-word subcommand,
// through the compiled executable that CI users download.
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../lib/core/proc.ts";
import { VERSION } from "../lib/core/version.ts";
import { binDir } from "./support/binary.ts";

let bin = "";
beforeAll(async () => {
  bin = await binDir();
}, 300_000);

const GH_VERSION = "gh version eval-shim-1.0.0 (record/replay)\n";

describe("proctor dispatches", () => {
  const cases = [
    {
      name: "gh link is the shim",
      argv: ["gh", "--version"],
      expected: { exitCode: 0, stdout: GH_VERSION, stderr: "" },
    },
    {
      name: "first-word gh",
      argv: ["proctor", "gh", "--version"],
      expected: { exitCode: 0, stdout: GH_VERSION, stderr: "" },
    },
    {
      name: "proctor --version",
      argv: ["proctor", "--version"],
      expected: { exitCode: 0, stdout: `${VERSION}\n`, stderr: "" },
    },
    {
      name: "grade link --version",
      argv: ["grade", "--version"],
      expected: { exitCode: 0, stdout: `${VERSION}\n`, stderr: "" },
    },
    {
      name: "gh link refuses a data command without --json",
      argv: ["gh", "pr", "list"],
      expected: {
        exitCode: 2,
        stdout: "",
        stderr:
          '✗ gh shim: data-producing command requires --json with explicit fields (got: gh pr list). Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).\n',
      },
    },
    {
      name: "agent-eval link --version",
      argv: ["agent-eval", "--version"],
      expected: { exitCode: 0, stdout: `${VERSION}\n`, stderr: "" },
    },
    {
      name: "eval-steps link --version",
      argv: ["eval-steps", "--version"],
      expected: { exitCode: 0, stdout: `${VERSION}\n`, stderr: "" },
    },
    {
      name: "an unknown first word is a usage error",
      argv: ["proctor", "frobnicate"],
      expected: {
        exitCode: 2,
        stdout: "",
        stderr:
          '✗ Unknown tool "frobnicate": expected one of gh, gh-shim, grade, run-eval, agent-eval, eval-steps, eval-mcp, mock-model\n',
      },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const [link, ...args] = c.argv;
      const exe = link === "proctor" ? join(bin, "..", "proctor") : join(bin, link!);
      const r = await run([exe, ...args], { env: { PATH: "/usr/bin:/bin" } });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual(c.expected);
    });
  }

  test("bare proctor prints the tool list and exits 0", async () => {
    const r = await run([join(bin, "..", "proctor")], { env: { PATH: "/usr/bin:/bin" } });
    expect({
      exitCode: r.exitCode,
      lists: ["gh-shim", "grade"].every((t) => r.stdout.includes(`  ${t} `)),
    }).toEqual({
      exitCode: 0,
      lists: true,
    });
  });

  test("grade through its link grades a failing lint with exit 1", async () => {
    const r = await run([join(bin, "grade"), "lint-branch", "Bad/Branch_Name"], {
      env: { PATH: "/usr/bin:/bin" },
    });
    expect({ exitCode: r.exitCode, verdict: r.stdout.trimEnd().split("\n").at(-1) }).toEqual({
      exitCode: 1,
      verdict: "  ✗ not conformant — see https://github.com/luongnv89/idd/blob/main/SPEC.md",
    });
  });
});

import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { scaffoldFiles } from "../../lib/hermetic/new.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { openTmp, runEval } from "./support.ts";

/** Runs `bun scripts/<tool>.ts args` in `cwd` with a plain environment. */
async function tool(name: string, args: string[], cwd: string) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", `${name}.ts`), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/", CI: "true" },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under `dir` with its text and mode. */
function tree(dir: string): Record<string, { text: string; mode: string }> {
  const out: Record<string, { text: string; mode: string }> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        out[relative(dir, p)] = {
          text: readFileSync(p, "utf8"),
          mode: (statSync(p).mode & 0o777).toString(8),
        };
    }
  };
  walk(dir);
  return out;
}

describe("run-eval new", () => {
  test("scaffolds evals/cases/SKILL/CASE: the four parts, subject executable, path on stdout", async () => {
    using dir = tempDir("run-eval-new");
    const r = await tool("run-eval", ["new", "my-skill/first-case"], dir.path);
    const caseDir = join(dir.path, "evals", "cases", "my-skill", "first-case");
    const files = scaffoldFiles("my-skill", "first-case");
    expect({ r, tree: tree(dir.path) }).toEqual({
      r: {
        exitCode: 0,
        stdout: `${caseDir}\n`,
        stderr:
          "created evals/cases/my-skill/first-case: edit subject.sh, record its gh calls (gh-shim record), then run-eval evals/cases/my-skill/first-case\n",
      },
      tree: Object.fromEntries(
        Object.entries(files).map(([rel, text]) => [
          join("evals", "cases", "my-skill", "first-case", rel),
          { text, mode: rel === "subject.sh" ? "755" : "644" },
        ]),
      ),
    });
  });

  test("the scaffold passes grade lint and gh-shim lint and runs green through run-eval", async () => {
    using dir = tempDir("run-eval-new");
    using tmp = openTmp();
    const root = join(dir.path, "cases");
    const made = await tool("run-eval", ["new", "demo/basic", "--root", root], dir.path);
    const caseDir = join(root, "demo", "basic");
    const gradeLint = await tool("grade", ["lint", caseDir], dir.path);
    const shimLint = await tool("gh-shim", ["lint", join(caseDir, "cassettes.json")], dir.path);
    const ran = await runEval([caseDir], { TMPDIR: tmp.path });
    expect({
      made: made.exitCode,
      gradeLint,
      shimLint: shimLint.exitCode,
      ran: ran.exitCode,
      tail: ran.stdout.split("\n").slice(-3),
    }).toEqual({
      made: 0,
      gradeLint: { exitCode: 0, stdout: `✓ lint passed: ${join(caseDir, "case.json")}\n`, stderr: "" },
      shimLint: 0,
      ran: 0,
      tail: ["✓ grade passed: 3 assertions", "✓ eval passed: demo/basic", ""],
    });
  });

  const refusals = [
    {
      name: "an existing directory",
      spec: "demo/taken",
      line: (root: string) => `✗ Cannot scaffold "${join(root, "demo", "taken")}": the directory exists\n`,
    },
    ...["Demo/x", "demo", "demo/x/y", "../x/y", "demo/-x", "demo/a b", "/demo"].map((spec) => ({
      name: `the name ${JSON.stringify(spec)}`,
      spec,
      line: () =>
        `✗ Cannot scaffold "${spec}": expected SKILL/CASE, two lowercase words of letters, digits and hyphens (e.g. issue-creator/basic)\n`,
    })),
  ];
  for (const c of refusals)
    test(`refuses ${c.name}: exit 2, one line, nothing written`, async () => {
      using dir = tempDir("run-eval-new");
      const root = join(dir.path, "cases");
      mkdirSync(join(root, "demo", "taken"), { recursive: true });
      const r = await tool("run-eval", ["new", c.spec, "--root", root], dir.path);
      expect({ r, tree: readdirSync(join(root, "demo")) }).toEqual({
        r: { exitCode: 2, stdout: "", stderr: c.line(root) },
        tree: ["taken"],
      });
    });

  test("a word other than new is still a case directory (run_eval.sh's refusal, not an unknown command)", async () => {
    using dir = tempDir("run-eval-new");
    const r = await tool("run-eval", ["nowhere"], dir.path);
    expect(r.exitCode).toEqual(2);
    expect(r.stderr).toContain("nowhere");
  });
});

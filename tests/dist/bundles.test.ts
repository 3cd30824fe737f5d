// The single-file bundles dist/js/<tool>.js under Node 20 and Deno 2 (the pinned `deno` npm package):
// every tool's --help answers as under Bun, and one real job each: a hermetic case through run-eval
// (sandboxed, with the bundle itself staged as the subject's gh), a grade of a case's artifacts, and
// a lint that fails, with the same exit code everywhere.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/proc.ts";
import { BUNDLES } from "../../scripts/build.ts";
import { bundlePath } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

type Runtime = "bun" | "node" | "deno";
const RUNTIMES: Runtime[] = ["node", "deno"];

async function via(runtime: Runtime, tool: string, args: string[], home: string): Promise<ProcResult> {
  const script = await bundlePath(tool);
  const argv =
    runtime === "deno"
      ? [BIN.deno, "run", "-A", "--quiet", script, ...args]
      : [BIN[runtime], script, ...args];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1", CI: "true" };
  return run(argv, { cwd: REPO_ROOT, env });
}

const shape = (r: ProcResult) => ({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });

describe("every bundle's --help answers as under Bun", () => {
  for (const tool of BUNDLES) {
    test.concurrent(tool, async () => {
      using home = tempDir("proctor-bundles");
      const [bun, node, deno] = await Promise.all([
        via("bun", tool, ["--help"], home.path),
        via("node", tool, ["--help"], home.path),
        via("deno", tool, ["--help"], home.path),
      ]);
      expect({ node: shape(node), deno: shape(deno) }).toEqual({ node: shape(bun), deno: shape(bun) });
      expect(bun.stdout.length + bun.stderr.length).toBeGreaterThan(0);
    });
  }
});

const GRADE_FIXTURE = join(REPO_ROOT, "tests", "fixtures", "grade", "trivial-bug");
const jobs = [
  {
    name: "grade of a case's artifacts",
    tool: "grade",
    args: [`--case=${join(GRADE_FIXTURE, "case")}`, `--out=${join(GRADE_FIXTURE, "out")}`],
    exitCode: 0,
  },
  { name: "a branch lint that fails", tool: "grade", args: ["lint-branch", "Bad/Branch_Name"], exitCode: 1 },
  { name: "an unknown option", tool: "run-eval", args: ["--bogus-option", "x"], exitCode: 2 },
];

describe("real jobs give the same result under Bun, Node and Deno", () => {
  for (const job of jobs) {
    test.concurrent(job.name, async () => {
      using home = tempDir("proctor-bundles");
      const [bun, node, deno] = await Promise.all([
        via("bun", job.tool, job.args, home.path),
        via("node", job.tool, job.args, home.path),
        via("deno", job.tool, job.args, home.path),
      ]);
      expect({ bun: bun.exitCode, node: shape(node), deno: shape(deno) }).toEqual({
        bun: job.exitCode,
        node: shape(bun),
        deno: shape(bun),
      });
    });
  }

  for (const runtime of RUNTIMES) {
    test(`a case through run-eval under ${runtime}, sandboxed, with the bundle as the subject's gh`, async () => {
      using home = tempDir("proctor-bundles");
      const r = await via(runtime, "run-eval", ["--json", "evals/cases/issue-creator/basic"], home.path);
      type Result = {
        exitCode: number;
        counts: unknown;
        cases: { name: string; result: string; assertions: unknown }[];
      };
      const result = r.exitCode === 0 ? (JSON.parse(r.stdout) as Result) : undefined;
      expect({
        exitCode: r.exitCode,
        stderr: r.exitCode === 0 ? "" : r.stderr,
        counts: result?.counts,
        cases: result?.cases.map((c) => ({ name: c.name, result: c.result, assertions: c.assertions })),
      }).toEqual({
        exitCode: 0,
        stderr: "",
        counts: { passed: 1, failed: 0, errors: 0 },
        cases: [{ name: "issue-creator/basic", result: "pass", assertions: { passed: 7, total: 7 } }],
      });
    });
  }
});

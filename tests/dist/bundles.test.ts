// The single-file bundles dist/js/<tool>.js under Node 20 and Deno 2 (the pinned `deno` npm package):
// every tool's --help answers as under Bun, and one real job each: a hermetic case through run-eval
// (sandboxed, with the bundle itself staged as the subject's gh), a grade of a case's artifacts, and
// a suite scorecard rendered from finished trials, a lint that fails, with the same exit code everywhere.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { BUNDLES } from "../../scripts/build.ts";
import { bundlePath } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

type Runtime = "bun" | "node" | "deno";
const RUNTIMES: Runtime[] = ["node", "deno"];

async function via(
  runtime: Runtime,
  tool: string,
  args: string[],
  home: string,
  extraEnv: Record<string, string> = {},
): Promise<ProcResult> {
  const script = await bundlePath(tool);
  const argv =
    runtime === "deno"
      ? [BIN.deno, "run", "-A", "--quiet", script, ...args]
      : [BIN[runtime], script, ...args];
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    NO_COLOR: "1",
    CI: "true",
    ...extraEnv,
  };
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

/**
 * Every trial of evals/suites/fixture.yaml (1 task x 2 variants x 3 repeats), finished: `agent-eval
 * suite --resume` over it runs nothing and renders the scorecard (--local: no Docker engine needed).
 */
function finishedTrials(dir: string, runtime: Runtime): string {
  const path = join(dir, `trials-${runtime}.jsonl`);
  const lines = ["control", "fixer"].flatMap((variant) =>
    [0, 1, 2].map((repeat) =>
      JSON.stringify({
        task: "fix-add",
        variant,
        repeat,
        pass: variant === "fixer",
        costUSD: variant === "fixer" ? 0.25 : 0.05,
        turns: 4,
        wallMs: 1000 * (repeat + 1),
        tokens: 100,
        toolErrors: 0,
      }),
    ),
  );
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const jobs: {
  name: string;
  tool: string;
  args: (dir: string, runtime: Runtime) => string[];
  env?: Record<string, string>;
  exitCode: number;
  /** The first line of stdout, so "the same" is not the same failure everywhere. */
  firstLine: string;
}[] = [
  {
    name: "grade of a case's artifacts",
    tool: "grade",
    args: () => [`--case=${join(GRADE_FIXTURE, "case")}`, `--out=${join(GRADE_FIXTURE, "out")}`],
    exitCode: 0,
    firstLine: readFileSync(join(GRADE_FIXTURE, "expected.txt"), "utf8").split("\n")[0] ?? "",
  },
  {
    name: "a suite scorecard rendering (agent-eval suite --resume over finished trials)",
    tool: "agent-eval",
    args: (dir, runtime) => [
      "suite",
      "evals/suites/fixture.yaml",
      "--local",
      "--resume",
      `--trials=${finishedTrials(dir, runtime)}`,
    ],
    // The suite checks that its harness's key variable is set; nothing is called with it.
    env: { ANTHROPIC_API_KEY: "not-a-key" },
    exitCode: 0,
    firstLine: "# Eval scorecard: fixture",
  },
  {
    name: "a branch lint that fails",
    tool: "grade",
    args: () => ["lint-branch", "Bad/Branch_Name"],
    exitCode: 1,
    firstLine: "◆ idd-lint — branch Bad/Branch_Name (IDD Spec v1.1, level L3)",
  },
  {
    name: "a case directory that does not exist",
    tool: "run-eval",
    args: () => ["no-such-case"],
    exitCode: 2,
    firstLine: "",
  },
];

describe("real jobs give the same result under Bun, Node and Deno", () => {
  for (const job of jobs) {
    test.concurrent(job.name, async () => {
      using home = tempDir("proctor-bundles");
      const [bun, node, deno] = await Promise.all(
        (["bun", "node", "deno"] as const).map((rt) =>
          via(rt, job.tool, job.args(home.path, rt), home.path, job.env),
        ),
      );
      // Each runtime had its own trials file: name them alike before comparing.
      const same = (r: ProcResult | undefined) => {
        const s = r ? shape(r) : undefined;
        return s && { ...s, stderr: s.stderr.replace(/trials-(bun|node|deno)\.jsonl/g, "trials.jsonl") };
      };
      expect({
        bun: bun?.exitCode,
        first: bun?.stdout.split("\n")[0],
        node: same(node),
        deno: same(deno),
      }).toEqual({
        bun: job.exitCode,
        first: job.firstLine,
        node: same(bun),
        deno: same(bun),
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

// Any agent, end to end through `agent-eval suite` as a user runs it: the built-in nop (fails the
// task untouched), oracle (runs the task's reference solution: passes) and a `command` agent whose
// template gets a hostile prompt safely and reports metrics on its last line, under --local and once
// under Docker (proctor-base); a failing task setup is a scored fail named in the scorecard, with
// exit 0; a single variant's comparisons are null; an oracle without a solution is one line, exit 1.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { Trial } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURE = join(REPO_ROOT, "tests", "fixtures", "suite", "any-agent");
const PROMPT = `Fix add.sh; $(touch pwned) \`touch pwned\` "double" 'single' \\n`;

async function suite(name: string, dir: string, extra: string[]) {
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const args = [
    join(FIXTURE, "suites", `${name}.yaml`),
    "--output",
    "json",
    "--trials",
    join(dir, "t.jsonl"),
  ];
  const r = await run([process.execPath, ENTRY, "suite", ...args, ...extra], { cwd: dir, env });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A trial without what varies run to run. */
function stable(t: Trial): Record<string, unknown> {
  const { wallMs: _w, log: _l, transcript: _t, ...rest } = t;
  return rest;
}

const ZERO = { costUSD: 0, turns: 0, tokens: 0, toolErrors: 0, toolCalls: 0, version: 1 };
const ANY_TRIALS = [
  { task: "fix", variant: "nop", repeat: 0, pass: false, ...ZERO },
  { task: "fix", variant: "oracle", repeat: 0, pass: true, ...ZERO },
  {
    task: "fix",
    variant: "mine",
    repeat: 0,
    pass: true,
    costUSD: 0.5,
    turns: 0,
    tokens: 42,
    toolErrors: 0,
    toolCalls: 3,
    unreported: ["turns", "toolErrors"],
    version: 1,
  },
];

describe("nop fails, oracle passes, a command agent runs: agent-eval suite", () => {
  test.each([
    { runner: "local", flags: ["--local"] as string[] },
    { runner: "docker", flags: [] as string[] },
  ])("under $runner", async ({ flags }) => {
    using tmp = tempDir("any-agent");
    const r = await suite("any", tmp.path, flags);
    const sc = JSON.parse(r.stdout) as { trials: Trial[] };
    const log = readFileSync(join(tmp.path, "t.logs", "fix", "mine", "0.log"), "utf8");
    const oracleLog = readFileSync(join(tmp.path, "t.logs", "fix", "oracle", "0.log"), "utf8");
    expect({
      exitCode: r.exitCode,
      trials: sc.trials.map(stable),
      prompt: log.includes(`prompt=${PROMPT}\n|`),
      promptFile: log.includes(`file=${PROMPT}|`),
      quoted: [log.includes(`dq=${PROMPT}\n|`), /sq=my-model in \/\S*work\|/.test(log)],
      vars: log.includes("model=my-model url= cwd-is-workdir=yes\n"),
      oracleCwd: /solved in \/\S*work\n/.test(oracleLog),
    }).toEqual({
      exitCode: 0,
      trials: ANY_TRIALS,
      prompt: true,
      promptFile: true,
      quoted: [true, true],
      vars: true,
      oracleCwd: true,
    });
  });
});

describe("what a failing setup and a lone variant mean", () => {
  test("a failing task setup is a scored fail, named (setupFailures), exit 0; one variant: comparisons null", async () => {
    using tmp = tempDir("any-agent");
    const r = await suite("setup", tmp.path, ["--local", "--report", join(tmp.path, "r.md")]);
    const sc = JSON.parse(r.stdout);
    const md = readFileSync(join(tmp.path, "r.md"), "utf8");
    const v = sc.variants[0];
    expect({
      exitCode: r.exitCode,
      comparisons: sc.comparisons,
      variant: [v.name, v.trials, v.pass1, v.errors, v.infraFailures, v.setupFailures],
      trials: sc.trials.map(stable),
      parses: sc.trials.every((t: unknown) => Trial.safeParse(t).success),
      markdown: md
        .slice(md.indexOf("| Variant | Trials"))
        .split("\n")
        .slice(0, 3)
        .concat(md.slice(md.indexOf("\n## Task setup"), md.indexOf("\n## Per task")).split("\n")),
    }).toEqual({
      exitCode: 0,
      comparisons: null,
      variant: ["oracle", 1, 0, 1, 0, 1],
      trials: [
        {
          task: "broken-setup",
          variant: "oracle",
          repeat: 0,
          pass: false,
          costUSD: 0,
          turns: 0,
          tokens: 0,
          toolErrors: 0,
          error: 'setup "echo \\"no such tool\\" >&2; exit 3" failed (exit 3, err <nil>): no such tool',
          setupFailed: true,
          version: 1,
        },
      ],
      parses: true,
      markdown: [
        expect.stringMatching(/^\| Variant \| Trials .*\| Setup failures \|$/),
        expect.stringMatching(/^\|---/),
        expect.stringMatching(/^\| oracle \| 1 \| 0\.0% .*\| 1 \|$/),
        "",
        "## Task setup failed (scored as fails)",
        "",
        "| Variant | Task | Repeat | Error |",
        "|---|---|---|---|",
        '| oracle | broken-setup | 0 | setup "echo \\\\"no such tool\\\\" >&2; exit 3" failed (exit 3, err \\<nil>): no such tool |',
        "",
      ],
    });
  });

  test("the oracle on a task without a solution: one line, exit 1, nothing run", async () => {
    using tmp = tempDir("any-agent");
    const r = await suite("no-solution", tmp.path, ["--local"]);
    expect({ ...r, ran: existsSync(join(tmp.path, "t.logs")) }).toEqual({
      exitCode: 1,
      stdout: "",
      stderr:
        "warning: --local runs setup, agent and check on this host WITHOUT any isolation (testing only)\nerror: suite no-solution: variant oracle runs the oracle, but task no-solution has no reference solution (task.yaml key solution)\n",
      ran: false,
    });
  });
});

// `agent-eval suite` as a user meets it: halo's exit codes (0 ran, 1 error printed as `error: <msg>`
// on stderr, one line, never a stack), every bad flag and file refused before any trial runs, and the
// outputs (--output json, --scorecard, --report) of a --local run with the stub-free real drivers
// left to e2e.test.ts. Subprocess through scripts/agent-eval.ts, as a user runs it.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { parseFlags, writeReport } from "../../lib/suite/cmd.ts";
import { buildScorecard, renderMarkdown } from "../../lib/suite/scorecard/index.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { ADD_REPO, evalsTree } from "./_support.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURE = join(REPO_ROOT, "evals", "suites", "fixture.yaml");

async function cli(args: string[], env: Record<string, string> = {}) {
  const merged: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ANTHROPIC_API_KEY: "k",
    ...env,
  };
  delete merged.CI;
  const r = await run([process.execPath, ENTRY, "suite", ...args], { env: merged, cwd: REPO_ROOT });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

describe("bad command lines: exit 1, one `error:` line, nothing on stdout", () => {
  const cases: { name: string; args: string[]; env?: Record<string, string>; stderr: string }[] = [
    {
      name: "no suite file",
      args: [],
      stderr: "error: missing the suite file: agent-eval suite SUITE.yaml\n",
    },
    {
      name: "unknown output",
      args: [FIXTURE, "--output", "yaml"],
      stderr: 'error: --output: expected text, json or markdown, got "yaml"\n',
    },
    {
      name: "pass-env not UPPER_SNAKE",
      args: [FIXTURE, "--pass-env", "GOOD,bad-name"],
      stderr: 'error: --pass-env: "bad-name" is not an UPPER_SNAKE variable name\n',
    },
    {
      name: "parallel 0",
      args: [FIXTURE, "--parallel", "0"],
      stderr: 'error: --parallel must be an integer of at least 1, got "0"\n',
    },
    {
      name: "network host",
      args: [FIXTURE, "--network", "host"],
      stderr: 'error: --network: expected none or bridge, got "host"\n',
    },
    {
      name: "cpus",
      args: [FIXTURE, "--cpus", "-1"],
      stderr: 'error: --cpus must be a number of at least 0.01, got "-1"\n',
    },
    {
      name: "memory",
      args: [FIXTURE, "--memory", "lots"],
      stderr: 'error: --memory: expected a size like 4g or 512m, got "lots"\n',
    },
    {
      name: "seed",
      args: [FIXTURE, "--seed", "1.5"],
      stderr: 'error: --seed must be an integer, got "1.5"\n',
    },
    {
      name: "model url",
      args: [FIXTURE, "--model-url", "ftp://x"],
      stderr: 'error: Invalid model URL "ftp://x": expected http://host:port or https://host\n',
    },
    {
      name: "missing suite file",
      args: ["/nonexistent/s.yaml"],
      stderr: 'error: Cannot read suite "/nonexistent/s.yaml": no such file\n',
    },
    {
      name: "the model key is not set",
      args: [FIXTURE, "--local"],
      env: { ANTHROPIC_API_KEY: "" },
      stderr:
        "error: suite fixture: variant control: environment variable ANTHROPIC_API_KEY (the model API key) is not set\n",
    },
  ];
  for (const c of cases)
    test.concurrent(c.name, async () => {
      expect(await cli(c.args, c.env)).toEqual({ exitCode: 1, stdout: "", stderr: c.stderr });
    });

  test.concurrent("a suite with an unknown key: the file, line:column, suite and key", async () => {
    using dir = tempDir("suite-cli");
    const tree = evalsTree(dir.path);
    tree.task("fix-add", "id: fix-add\nrepo: repo\nprompt: p\ncheck: sh test.sh\n", ADD_REPO);
    const path = tree.suite(
      "s",
      "name: s\ntasks: [fix-add]\nvariants: [{name: a, harness: claude}]\nfail_on: hold\n",
    );
    expect(await cli([path, "--local"])).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: ${path}:4:1: suite s: unknown key "fail_on"\n`,
    });
  });

  test.concurrent("a task refusing its repo: the suite, the task, the rule", async () => {
    using dir = tempDir("suite-cli");
    const tree = evalsTree(dir.path);
    const taskDir = tree.task("t", "id: t\nrepo: ext::sh -c id\nprompt: p\ncheck: 'true'\n");
    const path = tree.suite("s", "name: s\ntasks: [t]\nvariants: [{name: a, harness: claude}]\n");
    expect(await cli([path, "--local"])).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: suite s: ${taskDir}/task.yaml:2:7: task t: repo "ext::sh -c id": only https:// and git@ URLs are allowed\n`,
    });
  });
});

test("parseFlags: the defaults are the original's", () => {
  expect(parseFlags({ suite: "s.yaml" })).toEqual({
    suite: "s.yaml",
    output: "text",
    parallel: 2,
    network: "none",
    limits: { cpus: 2, memory: "4g" },
    passEnv: [],
    seed: 1,
    local: false,
    modelUrl: undefined,
    trials: undefined,
    resume: false,
    scorecard: undefined,
    report: undefined,
    tasks: undefined,
    offline: false,
    shard: undefined,
    release: { failOn: "none", matrix: false },
    until: undefined,
  });
});

test("--help lists every flag", async () => {
  const r = await cli(["--help"]);
  const flags = [...r.stdout.matchAll(/--([a-z-]+)/g)].map((m) => m[1]);
  expect({ exitCode: r.exitCode, flags: [...new Set(flags)].sort() }).toEqual({
    exitCode: 0,
    flags: [
      "cpus",
      "fail-on",
      "history",
      "image-map",
      "local",
      "matrix",
      "max-work-bytes",
      "memory",
      "model-url",
      "network",
      "offline",
      "output",
      "parallel",
      "pass-env",
      "prices",
      "report",
      "resume",
      "scorecard",
      "seal-key-env",
      "seed",
      "shard",
      "tasks",
      "trials",
      "until-decided",
      "max-trials",
      "max-cost",
      "help", // the subcommand line: `agent-eval suite merge --help`
    ].sort(),
  });
});

test("--report writes Markdown, or the reports lane's HTML for a .html file", async () => {
  using dir = tempDir("suite-cli");
  const trials = [
    {
      task: "t",
      variant: "a",
      repeat: 0,
      pass: false,
      costUSD: 0,
      turns: 1,
      wallMs: 5,
      tokens: 1,
      toolErrors: 0,
    },
    {
      task: "t",
      variant: "b",
      repeat: 0,
      pass: true,
      costUSD: 0,
      turns: 1,
      wallMs: 5,
      tokens: 1,
      toolErrors: 0,
    },
  ];
  const sc = buildScorecard("s", "a", ["a", "b"], trials);
  await writeReport(join(dir.path, "r.md"), sc, trials);
  await writeReport(join(dir.path, "r.HTML"), sc, trials);
  const md = readFileSync(join(dir.path, "r.md"), "utf8");
  const html = readFileSync(join(dir.path, "r.HTML"), "utf8");
  expect({
    md: md === renderMarkdown(sc),
    html: html.startsWith("<!doctype html>") || html.startsWith("<!DOCTYPE html>"),
  }).toEqual({
    md: true,
    html: true,
  });
});

test("--resume with every trial finished runs nothing and prints the scorecard JSON", async () => {
  using dir = tempDir("suite-cli");
  const trialsFile = join(dir.path, "t.jsonl");
  const lines = ["control", "fixer"].flatMap((variant) =>
    [0, 1, 2].map((repeat) =>
      JSON.stringify({
        task: "fix-add",
        variant,
        repeat,
        pass: variant === "fixer",
        costUSD: 0,
        turns: 1,
        wallMs: 10,
        tokens: 0,
        toolErrors: 0,
      }),
    ),
  );
  writeFileSync(trialsFile, `${lines.join("\n")}\n`);
  // PATH without the agent CLIs: any trial that ran would fail, so a pass proves none did.
  const r = await cli([FIXTURE, "--local", "--resume", "--trials", trialsFile, "--output", "json"], {
    PATH: "/usr/bin:/bin",
  });
  const sc = JSON.parse(r.stdout);
  expect({
    exitCode: r.exitCode,
    stderr: r.stderr.split("\n").filter((l) => l.startsWith("resumed")),
    pass1: sc.variants.map((v: { pass1: number }) => v.pass1),
    verdict: sc.comparisons[0].verdict,
  }).toEqual({
    exitCode: 0,
    stderr: ["resumed: 6 finished trials kept, 0 run"],
    pass1: [0, 1],
    verdict: "insufficient",
  });
});

/** Five of the fixture's six trials, finished; the sixth (fixer#2) is left to run. */
function fiveOfSix(): string {
  const lines = ["control", "fixer"].flatMap((variant) =>
    [0, 1, 2]
      .filter((repeat) => !(variant === "fixer" && repeat === 2))
      .map((repeat) =>
        JSON.stringify({
          task: "fix-add",
          variant,
          repeat,
          pass: false,
          costUSD: 0,
          turns: 1,
          wallMs: 10,
          tokens: 0,
          toolErrors: 0,
        }),
      ),
  );
  return `${lines.join("\n")}\n`;
}

describe("the trials file", () => {
  test("an existing one is refused without --resume: exit 1, one line, the file untouched", async () => {
    using dir = tempDir("suite-cli");
    const trialsFile = join(dir.path, "t.jsonl");
    writeFileSync(trialsFile, fiveOfSix());
    const r = await cli([FIXTURE, "--local", "--trials", trialsFile], { PATH: "/usr/bin:/bin" });
    expect({ ...r, kept: readFileSync(trialsFile, "utf8") }).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: trials file "${trialsFile}" exists: --resume continues it; to start over remove it, or write another with --trials FILE\n`,
      kept: fiveOfSix(),
    });
  });

  test("without a terminal, one line per finished trial: name, result (an error's why), time, n of N", async () => {
    using dir = tempDir("suite-cli");
    const trialsFile = join(dir.path, "t.jsonl");
    writeFileSync(trialsFile, fiveOfSix());
    // PATH without the agent CLIs: the one trial left runs and errors at once.
    const r = await cli([FIXTURE, "--local", "--resume", "--trials", trialsFile, "--output", "json"], {
      PATH: "/usr/bin:/bin",
    });
    const lines = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("suite "))
      .map((l) => l.replace(/ · [\d.]+s$/, " · <time>"));
    expect({ exitCode: r.exitCode, lines }).toEqual({
      exitCode: 0,
      lines: [
        "suite fixture 6/6 · fix-add/fixer#2 · error: agent exit 127: sh: 1: exec: claude: not found · <time>",
      ],
    });
  });
});

import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { StepScorecard } from "../../lib/steps/scorecard.ts";
import { overrideFlags } from "../support/flags.ts";
import { startMockModel, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { stepCase, writeSuite } from "./_cases.ts";

const KEY = "sk-cli-Qw7Er5Ty3Ui1Op9As";

async function evalSteps(args: string[], env: Record<string, string> = {}) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), ...args], {
    env: { PATH: process.env.PATH ?? "", STEP_KEY: KEY, ...env },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

test.concurrent("run prints the text scorecard; json and --scorecard give the same format", async () => {
  await using mock = await startMockModel({
    script: () => toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]),
  });
  using dir = tempDir("steps-run");
  const suite = writeSuite(dir.path, [stepCase("anthropic"), stepCase("gemini")]);
  const base = ["run", "--suite", suite, "--model", "opus", "--url", mock.url, "--key-env", "STEP_KEY"];
  const textRun = await evalSteps(base);
  expect(textRun).toEqual({
    exitCode: 0,
    // Without a terminal, progress is one line per tenth of the steps (here every step).
    stderr: "eval-steps run 1/2\neval-steps run 2/2\n",
    stdout: [
      `suite ${suite}  model opus  cases 2  sessions 1  errors 0`,
      "",
      "PASS              100% (100..100) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 3..100)",
      "SAME TOOLS        100% (100..100) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 3..100)",
      "SAME CALLS        100% (100..100) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 3..100)",
      "VALID CALLS       100% (100..100) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 3..100)",
      "PREMATURE STOP    0% (0..0) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 0..98)",
      "",
    ].join("\n"),
  });
  const jsonRun = await evalSteps([...base, "--output", "json", "--scorecard", join(dir.path, "sc.json")]);
  expect(jsonRun.exitCode).toBe(0);
  const sc = StepScorecard.parse(JSON.parse(jsonRun.stdout));
  expect(JSON.parse(readFileSync(join(dir.path, "sc.json"), "utf8"))).toEqual(sc);
  expect(sc.results.map((r) => r.id)).toEqual(["anthropic-1", "gemini-1"]);
  for (const out of [textRun, jsonRun]) expect(out.stdout + out.stderr).not.toContain(KEY);
});

test.concurrent("every call errored: exit 1 with one line", async () => {
  const mock = await startMockModel();
  const url = mock.url;
  await mock.close();
  using dir = tempDir("steps-run");
  const suite = writeSuite(dir.path, [stepCase("responses")]);
  const r = await evalSteps(["run", "--suite", suite, "--model", "m", "--url", url, "--key-env", "STEP_KEY"]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(
    /^eval-steps run 1\/1\n✗ every call errored \(first: Request failed: .*\): check --url, --model and --key-env\n$/,
  );
  expect(r.stdout).toContain("errors 1");
});

// issue 26: --key-env was required, so a run against the keyless mock needed a made-up variable.
test.concurrent("without --key-env no credential is sent: a run against proctor mock-model", async () => {
  await using mock = await startMockModel({
    script: () => toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]),
  });
  using dir = tempDir("steps-run-keyless");
  const suite = writeSuite(dir.path, [stepCase("anthropic"), stepCase("gemini"), stepCase("responses")]);
  const r = await evalSteps([
    "run",
    "--suite",
    suite,
    "--model",
    "opus",
    "--url",
    mock.url,
    "--output",
    "json",
  ]);
  expect({
    exitCode: r.exitCode,
    errors: StepScorecard.parse(JSON.parse(r.stdout)).errors,
    auth: mock.requests.map((q) => q.auth),
  }).toEqual({ exitCode: 0, errors: 0, auth: ["none", "none", "none"] });
});

const usage: Array<{ name: string; args: string[]; exitCode: number; stderr: string | RegExp }> = [
  {
    name: "bad --output",
    args: ["--output", "yaml"],
    exitCode: 2,
    stderr: '✗ --output must be text or json, got "yaml"\n',
  },
  {
    name: "unset key variable",
    args: ["--key-env", "NOPE_NOT_SET"],
    exitCode: 2,
    stderr: "✗ --key-env NOPE_NOT_SET: the variable is not set or empty\n",
  },
  {
    name: "bad --parallel",
    args: ["--parallel", "0"],
    exitCode: 2,
    stderr: '✗ --parallel must be an integer of at least 1, got "0"\n',
  },
  {
    name: "bad --shard",
    args: ["--shard", "4/4"],
    exitCode: 2,
    stderr: '✗ Cannot use --shard "4/4": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)\n',
  },
  {
    name: "rubric without judge",
    args: ["--rubric", "r.md"],
    exitCode: 2,
    stderr: "✗ --rubric needs --judge-model, --judge-url and --judge-key-env\n",
  },
  {
    name: "judge flags without rubric",
    args: ["--judge-model", "j"],
    exitCode: 2,
    stderr: "✗ --judge-* flags need --rubric\n",
  },
  {
    name: "bad judge protocol",
    args: ["--judge-protocol", "x"],
    exitCode: 2,
    stderr: /^✗ --judge-protocol must be one of /,
  },
];
for (const u of usage)
  test.concurrent(`usage: ${u.name}`, async () => {
    using dir = tempDir("steps-run");
    const suite = writeSuite(dir.path, [stepCase("anthropic")]);
    const base = [
      "run",
      "--suite",
      suite,
      "--model",
      "m",
      "--url",
      "http://127.0.0.1:1",
      "--key-env",
      "STEP_KEY",
    ];
    const r = await evalSteps(overrideFlags(base, u.args));
    expect({ exitCode: r.exitCode, stdout: r.stdout }).toEqual({ exitCode: u.exitCode, stdout: "" });
    if (typeof u.stderr === "string") expect(r.stderr).toBe(u.stderr);
    else expect(r.stderr).toMatch(u.stderr);
  });

test.concurrent("a bad case file: exit 3 naming the file and the field", async () => {
  using dir = tempDir("steps-run");
  writeFileSync(join(dir.path, "x.json"), JSON.stringify({ ...stepCase("anthropic"), version: 2 }));
  const r = await evalSteps([
    "run",
    "--suite",
    dir.path,
    "--model",
    "m",
    "--url",
    "http://127.0.0.1:1",
    "--key-env",
    "STEP_KEY",
  ]);
  expect(r).toEqual({
    exitCode: 3,
    stdout: "",
    stderr: `✗ Cannot load step case "${join(dir.path, "x.json")}": Invalid input: expected 1 at version\n`,
  });
});

test.concurrent("--report writes the self-contained HTML report of the scorecard", async () => {
  await using mock = await startMockModel({
    script: () => toolCalls([{ name: "Bash", args: { command: "ls" } }]),
  });
  using dir = tempDir("steps-run");
  const suite = writeSuite(dir.path, [stepCase("responses")]);
  const report = join(dir.path, "report.html");
  const r = await evalSteps([
    "run",
    "--suite",
    suite,
    "--model",
    "m",
    "--url",
    mock.url,
    "--key-env",
    "STEP_KEY",
    "--report",
    report,
  ]);
  expect(r.exitCode).toBe(0);
  const html = readFileSync(report, "utf8");
  expect(html).toStartWith("<!doctype html>");
  expect(html).toContain('data-step-row="pass"');
  expect(html).toContain("responses-1");
  expect(html).not.toContain(KEY);
});

// Running whole suites (originals.md §6.3, the original's TestSuiteEndToEnd and TestRunSuiteErrors)
// on the LocalRunner with the stub driver: jobs in task x variant x repeat order whatever finishes
// first, trials streamed to JSONL as they finish, --resume after a crash, and the scorecard.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, ToolError } from "../../lib/core/errors.ts";
import { localRunner } from "../../lib/isolation/local.ts";
import type { Driver } from "../../lib/suite/agents/index.ts";
import { writeReport } from "../../lib/suite/cmd.ts";
import { defaultImage, newRunId, runSuite, type SuiteRunOptions, suiteJobs } from "../../lib/suite/run.ts";
import { parseTrials, renderMarkdown, type Trial } from "../../lib/suite/scorecard/index.ts";
import { loadSuite } from "../../lib/suite/suite.ts";
import { tempDir } from "../support/tmp.ts";
import { ADD_REPO, evalsTree, recording, stubDriver } from "./_support.ts";

const TASK = (id: string) => `id: ${id}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n`;
const SUITE = `name: fixture
tasks: [fix-add]
control: control
repeats: 3
variants:
  - {name: control, harness: claude, model: noop}
  - {name: fixer, harness: claude, model: fixer}
`;

function options(over: Partial<SuiteRunOptions> = {}): SuiteRunOptions {
  return {
    runner: localRunner(),
    local: true,
    drivers: { claude: stubDriver() },
    modelUrl: () => "http://127.0.0.1:9",
    ...over,
  };
}

function fixture(root: string, suite = SUITE, tasks = ["fix-add"]): string {
  const tree = evalsTree(root);
  for (const t of tasks) tree.task(t, TASK(t), ADD_REPO);
  return tree.suite("fixture", suite);
}

const keyOf = (t: Trial) => `${t.task}/${t.variant}/${t.repeat}`;

describe("TestSuiteEndToEnd", () => {
  test("repeats 3 x 2 variants: 6 trials, control 0, fixer 1, delta 1, insufficient (one task); the Markdown says so", async () => {
    using dir = tempDir("suite-run");
    const suite = loadSuite(fixture(dir.path));
    const trialsFile = join(dir.path, "trials.jsonl");
    const { trials, scorecard, resumed } = await runSuite(suite, options({ trialsFile }));
    const md = renderMarkdown(scorecard);
    expect({
      n: trials.length,
      resumed,
      order: trials.map(keyOf),
      pass1: scorecard.variants.map((v) => [v.name, v.pass1]),
      cmp: scorecard.comparisons!.map((c) => [c.variant, c.tasks, c.delta, c.verdict]),
      runner: scorecard.runner,
      md: ["| fixer |", "pass@1", "insufficient", "LOCAL RUN"].map((s) => md.includes(s)),
      streamed: parseTrials(readFileSync(trialsFile, "utf8"), trialsFile).map(keyOf).sort(),
    }).toEqual({
      n: 6,
      resumed: 0,
      order: [
        "fix-add/control/0",
        "fix-add/control/1",
        "fix-add/control/2",
        "fix-add/fixer/0",
        "fix-add/fixer/1",
        "fix-add/fixer/2",
      ],
      pass1: [
        ["control", 0],
        ["fixer", 1],
      ],
      cmp: [["fixer", 1, 1, "insufficient"]], // one task: too little evidence for a verdict
      runner: "local",
      md: [true, true, true, true],
      streamed: trials.map(keyOf).sort(),
    });
  });
});

test("jobs nest task x variant x repeat; the default image is eval-<harness>:<version or latest>", () => {
  using dir = tempDir("suite-run");
  const path = fixture(
    dir.path,
    "name: s\ntasks: [a, b]\nrepeats: 2\nvariants: [{name: x, harness: claude, version: '2.1.197'}, {name: y, harness: codex}]\n",
    ["a", "b"],
  );
  const suite = loadSuite(path);
  expect({
    jobs: suiteJobs(suite).map((j) => `${j.task.id}/${j.variant.name}/${j.repeat}`),
    images: suite.variants.map(defaultImage),
  }).toEqual({
    jobs: ["a/x/0", "a/x/1", "a/y/0", "a/y/1", "b/x/0", "b/x/1", "b/y/0", "b/y/1"],
    images: ["eval-claude:2.1.197", "eval-codex:latest"],
  });
});

test("results come back in job order when later jobs finish first (--parallel 3)", async () => {
  using dir = tempDir("suite-run");
  // The first job's agent waits until the last job has FINISHED (its onFinish wrote the flag), so the
  // finishing order is reversed whatever the machine's load.
  const flag = join(dir.path, "last-done");
  const slowFirst: Driver = {
    ...stubDriver(),
    command: (input) => ({
      ...stubDriver().command(input),
      argv: [
        "sh",
        "-c",
        input.model === "first"
          ? `while [ ! -f '${flag}' ]; do sleep 0.05; done; echo '{"type":"result","total_cost_usd":0,"num_turns":1}'`
          : `echo '{"type":"result","total_cost_usd":0,"num_turns":1}'`,
      ],
    }),
  };
  const path = fixture(
    dir.path,
    "name: s\ntasks: [fix-add]\nvariants: [{name: a, harness: claude, model: first}, {name: b, harness: claude, model: last}]\n",
  );
  const finished: string[] = [];
  const { trials } = await runSuite(
    loadSuite(path),
    options({
      drivers: { claude: slowFirst },
      parallel: 3,
      onFinish: (_j, t) => {
        finished.push(t.variant);
        if (t.variant === "b") writeFileSync(flag, "");
      },
    }),
  );
  expect({ finished, order: trials.map((t) => t.variant) }).toEqual({
    finished: ["b", "a"],
    order: ["a", "b"],
  });
});

describe("TestRunSuiteErrors", () => {
  test("a missing driver stops the suite before any trial", async () => {
    using dir = tempDir("suite-run");
    const rec = recording(localRunner());
    const suite = loadSuite(fixture(dir.path));
    const err = await runSuite(suite, options({ runner: rec, drivers: {} })).catch((e) => e);
    expect({ isConfig: err instanceof ConfigError, message: err.message, calls: rec.calls.length }).toEqual({
      isConfig: true,
      message: 'suite fixture: no driver for harness "claude" (variant "control")',
      calls: 0,
    });
  });

  test("a cancelled run is an error and starts no trial", async () => {
    using dir = tempDir("suite-run");
    const rec = recording(localRunner());
    const controller = new AbortController();
    controller.abort();
    const err = await runSuite(
      loadSuite(fixture(dir.path)),
      options({ runner: rec, signal: controller.signal }),
    ).catch((e) => e);
    expect({ isTool: err instanceof ToolError, message: err.message, calls: rec.calls.length }).toEqual({
      isTool: true,
      message: "suite fixture: cancelled",
      calls: 0,
    });
  });

  test("cancelled midway: the run stops starting trials, the finished ones are in the trials file", async () => {
    using dir = tempDir("suite-run");
    const controller = new AbortController();
    const trialsFile = join(dir.path, "trials.jsonl");
    const err = await runSuite(
      loadSuite(fixture(dir.path)),
      options({ parallel: 1, trialsFile, signal: controller.signal, onFinish: () => controller.abort() }),
    ).catch((e) => e);
    expect({
      message: err.message,
      kept: parseTrials(readFileSync(trialsFile, "utf8"), trialsFile).map(keyOf),
    }).toEqual({ message: "suite fixture: cancelled", kept: ["fix-add/control/0"] });
  });

  test("an unreadable variant settings file is a config error naming the variant", async () => {
    using dir = tempDir("suite-run");
    const path = fixture(
      dir.path,
      "name: s\ntasks: [fix-add]\nvariants: [{name: v, harness: claude, settings: bad.json}]\n",
    );
    writeFileSync(join(dir.path, "suites", "bad.json"), "[1,2]");
    const err = await runSuite(loadSuite(path), options()).catch((e) => e);
    expect({
      isConfig: err instanceof ConfigError,
      starts: err.message.startsWith("suite s: variant v: "),
    }).toEqual({
      isConfig: true,
      starts: true,
    });
  });
});

describe("--resume", () => {
  test("finished trials are kept; a torn last line and infrastructure failures run again", async () => {
    using dir = tempDir("suite-run");
    const suite = loadSuite(fixture(dir.path));
    const trialsFile = join(dir.path, "trials.jsonl");
    const first = await runSuite(suite, options({ trialsFile }));
    // The crash: the file holds two finished trials, an infra failure and half a line.
    const [a, b, c] = first.trials;
    const infra = { ...c!, pass: false, error: "start: docker run: exit 125", infra: "start" as const };
    writeFileSync(
      trialsFile,
      `${JSON.stringify(a)}\n${JSON.stringify(b)}\n${JSON.stringify(infra)}\n${JSON.stringify(first.trials[3]).slice(0, 30)}`,
    );
    const rec = recording(localRunner());
    const again = await runSuite(suite, options({ runner: rec, trialsFile, resume: true }));
    const lines = parseTrials(readFileSync(trialsFile, "utf8"), trialsFile);
    expect({
      resumed: again.resumed,
      agentRuns: rec.calls.filter((x) => x.phase === "agent").length,
      order: again.trials.map(keyOf),
      kept: [again.trials[0], again.trials[1]],
      file: lines.map(keyOf).sort(),
      verdict: again.scorecard.comparisons![0]!.verdict,
    }).toEqual({
      resumed: 2,
      agentRuns: 4,
      order: first.trials.map(keyOf),
      kept: [a, b],
      file: first.trials.map(keyOf).sort(),
      verdict: "insufficient",
    });
  });

  test("a trials file of another suite refuses the resume", async () => {
    using dir = tempDir("suite-run");
    const trialsFile = join(dir.path, "trials.jsonl");
    const stray: Trial = {
      task: "other",
      variant: "control",
      repeat: 0,
      pass: true,
      costUSD: 0,
      turns: 0,
      wallMs: 0,
      tokens: 0,
      toolErrors: 0,
    };
    writeFileSync(trialsFile, `${JSON.stringify(stray)}\n`);
    const err = await runSuite(loadSuite(fixture(dir.path)), options({ trialsFile, resume: true })).catch(
      (e) => e,
    );
    expect({ isConfig: err instanceof ConfigError, message: err.message }).toEqual({
      isConfig: true,
      message: `Cannot resume from "${trialsFile}": trial 1 (task "other", variant "control", repeat 0) is no job of suite fixture`,
    });
  });

  test("a line that is no trial refuses the resume, naming the line", async () => {
    using dir = tempDir("suite-run");
    const trialsFile = join(dir.path, "trials.jsonl");
    writeFileSync(trialsFile, '{"task": "fix-add"}\n');
    const err = await runSuite(loadSuite(fixture(dir.path)), options({ trialsFile, resume: true })).catch(
      (e) => e,
    );
    expect({ isConfig: err instanceof ConfigError, line: /line 1: .* at variant/.test(err.message) }).toEqual(
      {
        isConfig: true,
        line: true,
      },
    );
  });

  test("without --resume an earlier file is refused, never overwritten, and no trial runs", async () => {
    using dir = tempDir("suite-run");
    const trialsFile = join(dir.path, "trials.jsonl");
    writeFileSync(trialsFile, "an earlier run's trials\n");
    const rec = recording(localRunner());
    const err = await runSuite(loadSuite(fixture(dir.path)), options({ runner: rec, trialsFile })).catch(
      (e: unknown) => e,
    );
    expect({
      error: err instanceof ConfigError,
      message: (err as Error).message,
      kept: readFileSync(trialsFile, "utf8"),
      phases: rec.calls.length,
    }).toEqual({
      error: true,
      message: `trials file "${trialsFile}" exists: --resume continues it; to start over remove it, or write another with --trials FILE`,
      kept: "an earlier run's trials\n",
      phases: 0,
    });
  });

  test("without --resume a missing file is created, its folder too", async () => {
    using dir = tempDir("suite-run");
    const trialsFile = join(dir.path, "new", "trials.jsonl");
    const { trials } = await runSuite(loadSuite(fixture(dir.path)), options({ trialsFile }));
    expect(parseTrials(readFileSync(trialsFile, "utf8"), trialsFile).length).toEqual(trials.length);
  });
});

test("each trial's log and transcript are written beside the trials file, key redacted, and the HTML report links to its transcript's page, which links to the log", async () => {
  using dir = tempDir("suite-run");
  const secret = "sk-stub-9f8e7d6c5b4a39281706";
  const before = process.env.PROCTOR_STUB_KEY;
  process.env.PROCTOR_STUB_KEY = secret;
  const leaky: Driver = {
    ...stubDriver(),
    command: (input) => ({
      ...stubDriver().command(input),
      argv: [
        "sh",
        "-c",
        `echo "agent saw key=$PROCTOR_STUB_KEY"; echo '{"type":"result","total_cost_usd":0,"num_turns":1}'`,
      ],
    }),
  };
  try {
    const path = fixture(
      dir.path,
      "name: s\ntasks: [fix-add]\nvariants: [{name: only one, harness: claude, model: noop}]\n",
    );
    const trialsFile = join(dir.path, "out", "s.trials.jsonl");
    const { trials, scorecard } = await runSuite(
      loadSuite(path),
      options({ drivers: { claude: leaky }, trialsFile, passEnv: [] }),
    );
    const rel = "s.trials.logs/fix-add/only_one/0.log";
    const text = readFileSync(join(dir.path, "out", rel), "utf8");
    const reportPath = join(dir.path, "report", "r.html");
    mkdirSync(join(dir.path, "report"));
    await writeReport(reportPath, scorecard, trials, trialsFile);
    const html = readFileSync(reportPath, "utf8");
    const transcript = "s.trials.logs/fix-add/only_one/0.transcript.json";
    const written = ["json", "html"].map((x) =>
      readFileSync(join(dir.path, "out", transcript.replace(/json$/, x)), "utf8"),
    );
    expect({
      log: trials.map((t) => t.log),
      transcript: trials.map((t) => t.transcript),
      streamed: parseTrials(readFileSync(trialsFile, "utf8"), trialsFile).map((t) => t.log),
      header: text.split("\n")[0],
      sections: text
        .split("\n")
        .filter((l) => l.startsWith("== "))
        .map((l) => l.replace(/, \d+ ms$/, "")),
      agentLine: text.includes("agent saw key="),
      secretInLog: text.includes(secret),
      linked: html.includes(`href="../out/${transcript.replace(/json$/, "html")}"`),
      pageLinksLog: written[1]?.includes('href="0.log"'),
      secretInTranscript: written.some((w) => w.includes(secret)),
    }).toEqual({
      log: [rel],
      transcript: [transcript],
      streamed: [rel],
      header: "fix-add / only one / repeat 0",
      sections: ["== agent: exit 0", "== check: exit 1"],
      agentLine: true,
      secretInLog: false,
      linked: true,
      pageLinksLog: true,
      secretInTranscript: false,
    });
  } finally {
    if (before === undefined) delete process.env.PROCTOR_STUB_KEY;
    else process.env.PROCTOR_STUB_KEY = before;
  }
});

describe("the run id", () => {
  const outcome = (env: Record<string, string | undefined>) => {
    try {
      const id = newRunId(env);
      return env.PROCTOR_RUN_ID ? id : /^suite-[0-9a-z]+-[0-9a-f]{1,8}$/.test(id);
    } catch (error) {
      return `${(error as ConfigError).name}: ${(error as Error).message}`;
    }
  };
  test.each([
    { name: "fresh without PROCTOR_RUN_ID", env: {}, expected: true },
    { name: "fresh when it is empty", env: { PROCTOR_RUN_ID: "" }, expected: true },
    {
      name: "PROCTOR_RUN_ID names it",
      env: { PROCTOR_RUN_ID: "nightly-shard-3" },
      expected: "nightly-shard-3",
    },
    {
      name: "no label value is refused",
      env: { PROCTOR_RUN_ID: "a b" },
      expected: 'ConfigError: Cannot use PROCTOR_RUN_ID "a b": expected 1-64 characters of [A-Za-z0-9_-]',
    },
    {
      name: "65 characters are refused",
      env: { PROCTOR_RUN_ID: "x".repeat(65) },
      expected: `ConfigError: Cannot use PROCTOR_RUN_ID "${"x".repeat(65)}": expected 1-64 characters of [A-Za-z0-9_-]`,
    },
  ])("$name", ({ env, expected }) => {
    expect(outcome(env)).toEqual(expected);
  });
});

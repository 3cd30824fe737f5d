// One trial's semantics (originals.md §6.3, the original's TestRunTrial, TestRunTrialSetupFailure and
// TestSecretsOnlyInAgentStep) on the LocalRunner with the stub driver: what passes, what each failure
// is called, that the check always runs, and that infrastructure failures are marked apart.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { localRunner } from "../../lib/isolation/local.ts";
import type { Trial } from "../../lib/suite/scorecard/index.ts";
import { loadTask } from "../../lib/suite/task.ts";
import { runTrial, staged, stderrTail, type TrialContext } from "../../lib/suite/trial.ts";
import { PLACEHOLDER_KEY } from "../../lib/wire/credential.ts";
import { tempDir } from "../support/tmp.ts";
import { ADD_REPO, evalsTree, infraResult, recording, stubContext } from "./_support.ts";

const TASK = "id: fix-add\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n";

const context = stubContext;

async function trialOf(
  root: string,
  model: string,
  opts: { task?: string; settings?: Record<string, unknown>; ctx?: Partial<TrialContext> } = {},
): Promise<Trial> {
  const dir = evalsTree(root).task("t", opts.task ?? TASK, ADD_REPO);
  const task = loadTask(dir);
  return runTrial(
    { task, variant: { name: model, harness: "claude", model }, repeat: 0 },
    context({
      repoDir: task.repoDir ?? undefined,
      ...(opts.settings ? { settings: opts.settings } : {}),
      ...opts.ctx,
    }),
  );
}

const base = (variant: string) => ({
  task: "fix-add",
  variant,
  repeat: 0,
  version: 1 as const,
  wallMs: expect.any(Number) as unknown as number,
});
const claudeMetrics = { tokens: 115, toolErrors: 0, toolCalls: 0 };
/** A run that printed no result: nothing reported, so the zeros are marked unreported. */
const noResult = {
  costUSD: 0,
  turns: 0,
  tokens: 0,
  toolErrors: 0,
  toolCalls: 0,
  unreported: ["cost", "turns", "tokens"] as Trial["unreported"],
};

// The original's figures come from the agent's output: these trials bridge no model (modelUrl ""),
// so nothing meters them. A bridged trial's figures are the bridge's (the last case; meter-e2e.test.ts).
describe("TestRunTrial", () => {
  const cases: {
    name: string;
    model: string;
    settings?: Record<string, unknown>;
    task?: string;
    ctx?: Partial<TrialContext>;
    want: Trial;
  }[] = [
    {
      name: "the fixer passes, cost 0.25",
      model: "fixer",
      want: { ...base("fixer"), pass: true, costUSD: 0.25, turns: 4, ...claudeMetrics },
    },
    {
      name: "the noop fails, cost 0.05, no error (the agent did its best)",
      model: "noop",
      want: { ...base("noop"), pass: false, costUSD: 0.05, turns: 2, ...claudeMetrics },
    },
    {
      name: "settings given to the driver: passes",
      model: "settings",
      settings: { fix: true },
      want: { ...base("settings"), pass: true, costUSD: 0.1, turns: 3, ...claudeMetrics },
    },
    {
      name: "settings missing: agent exit, and the check still ran",
      model: "settings",
      want: {
        ...base("settings"),
        pass: false,
        ...noResult,
        error: "agent exit 1: settings missing",
      },
    },
    {
      name: "the agent crashes after fixing: partial work still passes, the exit is recorded",
      model: "crash",
      want: {
        ...base("crash"),
        pass: true,
        ...noResult,
        error: "agent exit 2: it broke",
      },
    },
    {
      name: "output that is no run: parse error",
      model: "garbage",
      want: {
        ...base("garbage"),
        pass: false,
        ...noResult,
        error: "parse: claude: no result message in stream output",
      },
    },
    {
      name: "error_max_turns: harness reported failure, metrics kept",
      model: "maxturns",
      want: {
        ...base("maxturns"),
        pass: false,
        costUSD: 0.3,
        turns: 10,
        tokens: 0,
        toolErrors: 0,
        toolCalls: 0,
        error: "harness reported failure: error_max_turns",
      },
    },
    {
      name: "timeout 300ms: agent timed out, check still runs",
      model: "sleep",
      task: `${TASK}timeout: 300ms\n`,
      want: {
        ...base("sleep"),
        pass: false,
        ...noResult,
        error: "agent: timed out after 0.3s",
      },
    },
    {
      name: "bridged, the fixer that never called its model: the bridge's zeros, its own figures flagged",
      model: "fixer",
      ctx: { modelUrl: "http://127.0.0.1:9" },
      want: {
        ...base("fixer"),
        pass: true,
        costUSD: 0,
        turns: 0,
        tokens: 0,
        toolErrors: 0,
        toolCalls: 0,
        meter: {
          source: "bridge",
          requests: 0,
          turns: 0,
          failed: 0,
          unread: 0,
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          reasoning: 0,
          costUSD: 0,
          prices: expect.stringMatching(/^default \d{4}-\d{2}-\d{2}$/) as unknown as string,
        },
        mismatch: [
          { metric: "cost", bridge: 0, agent: 0.25 },
          { metric: "tokens", bridge: 0, agent: 115 },
          { metric: "turns", bridge: 0, agent: 4 },
        ],
      },
    },
  ];
  for (const c of cases)
    test.concurrent(c.name, async () => {
      using dir = tempDir("suite-trial");
      const got = await trialOf(dir.path, c.model, {
        ...(c.settings ? { settings: c.settings } : {}),
        ...(c.task ? { task: c.task } : {}),
        ctx: c.ctx ?? { modelUrl: "" },
      });
      expect(got).toEqual(c.want);
    });
});

describe("TestRunTrialSetupFailure", () => {
  test("a failing setup stops the trial before the agent: a scored fail (the original's), marked setupFailed", async () => {
    using dir = tempDir("suite-trial");
    const rec = recording(localRunner());
    const got = await trialOf(dir.path, "fixer", {
      task: `${TASK}setup: ["true", "echo no >&2; exit 3", "true"]\n`,
      ctx: { runner: rec },
    });
    expect({ got, phases: rec.calls.map((c) => c.phase) }).toEqual({
      got: {
        ...base("fixer"),
        wallMs: 0,
        pass: false,
        costUSD: 0,
        turns: 0,
        tokens: 0,
        toolErrors: 0,
        error: 'setup "echo no >&2; exit 3" failed (exit 3, err <nil>): no',
        setupFailed: true,
      },
      phases: ["setup"],
    });
  });

  test("a repository that could not be checked out: start error, nothing runs", async () => {
    using dir = tempDir("suite-trial");
    const rec = recording(localRunner());
    const got = await trialOf(dir.path, "fixer", {
      ctx: { runner: rec, repoError: 'clone "https://127.0.0.1:1/x.git": exit 128: fatal' },
    });
    expect({ error: got.error, infra: got.infra, pass: got.pass, calls: rec.calls.length }).toEqual({
      error: 'start: clone "https://127.0.0.1:1/x.git": exit 128: fatal',
      infra: "start",
      pass: false,
      calls: 0,
    });
  });
});

describe("infrastructure failures from the runner are kept apart", () => {
  const infra = (phase: string, message: string) => (spec: { phase: string }) =>
    spec.phase === phase ? infraResult(message, 5) : undefined;
  const cases = [
    { name: "image missing", phase: "agent", message: "image eval-claude:9 not found", want: "image" },
    { name: "container start", phase: "agent", message: "docker run: exit 125", want: "start" },
    { name: "copy of /work", phase: "check", message: "docker cp: no space left", want: "copy" },
  ];
  for (const c of cases)
    test.concurrent(c.name, async () => {
      using dir = tempDir("suite-trial");
      const rec = recording(localRunner(), infra(c.phase, c.message));
      const got = await trialOf(dir.path, "noop", { ctx: { runner: rec } });
      expect({ infra: got.infra, error: got.error, pass: got.pass }).toEqual({
        infra: c.want as Trial["infra"],
        error: `${c.phase}: ${c.message}`,
        pass: false,
      });
    });

  test("prepare throwing is a start failure", async () => {
    using dir = tempDir("suite-trial");
    const runner = {
      ...localRunner(),
      prepare: () => Promise.reject(new Error("Cannot reach the Docker engine")),
    };
    const got = await trialOf(dir.path, "noop", { ctx: { runner } });
    expect({ infra: got.infra, error: got.error }).toEqual({
      infra: "start",
      error: "start: Cannot reach the Docker engine",
    });
  });
});

test("TestSecretsOnlyInAgentStep: setup and check get no secret names; the agent gets --pass-env by name and a placeholder for the key, the bridge the key's variable", async () => {
  using dir = tempDir("suite-trial");
  const rec = recording(localRunner());
  process.env.PROCTOR_STUB_KEY = "stub-secret-value-1234";
  process.env.PROCTOR_EXTRA = "extra-secret-5678";
  try {
    await trialOf(dir.path, "noop", {
      task: `${TASK}setup: ["true", "true"]\n`,
      ctx: { runner: rec, passEnv: ["PROCTOR_EXTRA", "PROCTOR_UNSET_VAR"] },
    });
  } finally {
    delete process.env.PROCTOR_STUB_KEY;
    delete process.env.PROCTOR_EXTRA;
  }
  expect(
    rec.calls.map((c) => ({
      phase: c.phase,
      secrets: c.secretEnvNames ?? null,
      n: c.commands?.length,
      key: c.env?.PROCTOR_STUB_KEY ?? null,
      model: c.model ?? null,
    })),
  ).toEqual([
    { phase: "setup", secrets: null, n: 2, key: null, model: null },
    {
      phase: "agent",
      secrets: ["PROCTOR_EXTRA"],
      n: undefined,
      key: PLACEHOLDER_KEY,
      // The bridge also meters the phase: onExchange is the trial's meter.
      model: {
        url: "http://127.0.0.1:9",
        credential: { wire: "anthropic", keyEnv: "PROCTOR_STUB_KEY" },
        onExchange: expect.any(Function),
      },
    },
    { phase: "check", secrets: null, n: undefined, key: null, model: null },
  ]);
  expect(JSON.stringify(rec.calls)).not.toContain("secret-");
});

test("a secret echoed by the agent never reaches the trial's error", async () => {
  using dir = tempDir("suite-trial");
  process.env.PROCTOR_STUB_KEY = "stub-secret-value-1234";
  let got: Trial;
  try {
    got = await trialOf(dir.path, "leak", { ctx: { passEnv: ["PROCTOR_STUB_KEY"] } });
  } finally {
    delete process.env.PROCTOR_STUB_KEY;
  }
  expect(got.error).toEqual("agent exit 1: key is [REDACTED:PROCTOR_STUB_KEY]");
});

test("stderrTail keeps the last 300 characters of the trimmed stderr, marked when cut", () => {
  expect([stderrTail("  short \n"), stderrTail(`${"a".repeat(10)}${"b".repeat(300)}\n`)]).toEqual([
    "short",
    `...${"b".repeat(300)}`,
  ]);
});

test("staged: the driver's dirs and files are made by the exec user, then the CLI is exec'd", async () => {
  using dir = tempDir("suite-trial");
  const stage = join(dir.path, "stage");
  const home = join(dir.path, "h o m e");
  const out = staged(
    {
      argv: [
        "sh",
        "-c",
        'ls -ld "$1/tmp" | cut -c1-10; stat -c %a "$1/.cli/settings.json"; cat "$1/.cli/settings.json"',
        "x",
        home,
      ],
      dirs: [home, join(home, "tmp")],
      files: [{ path: join(home, ".cli", "settings.json"), content: "{}\n" }],
    },
    stage,
  );
  for (const f of out.files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content, { mode: f.mode });
  }
  const r = await run(out.argv);
  expect({
    exitCode: r.exitCode,
    stdout: r.stdout,
    files: out.files.map((f) => f.path),
    bare: staged({ argv: ["x"], dirs: [], files: [] }),
  }).toEqual({
    exitCode: 0,
    stdout: "drwx------\n600\n{}\n",
    files: [join(stage, home, ".cli", "settings.json")],
    bare: { argv: ["x"], files: [] },
  });
});

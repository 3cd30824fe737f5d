// The bridge is the trial's meter, end to end (issue 25). The real Claude Code CLI in its offline
// image, against the mock model: its shell tool writes a forged result line ($0, 0 tokens, 0 turns)
// to the CLI's own stdout and kills it, and the trial's tokens and turns are still exactly what the
// mock itself served (its request log's usage), each forged figure flagged as a mismatch. A command
// agent under --local that calls the model and prints a forged metrics line is metered the same way.
// And with honest CLIs (Claude Code, Codex, Gemini CLI under --local) the bridge's count, the CLI's
// own figures and the mock's count agree: no mismatch, Claude's cost included when priced alike.
// Every trial leaves a transcript beside its log, with no credential in it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { BRIDGE_PORT } from "../../lib/isolation/docker/engine.ts";
import { dockerRunner } from "../../lib/isolation/docker/index.ts";
import { localRunner } from "../../lib/isolation/local.ts";
import { driverFor } from "../../lib/suite/agents/index.ts";
import { loadPrices } from "../../lib/suite/meter/prices.ts";
import type { Trial } from "../../lib/suite/scorecard/index.ts";
import { loadTask } from "../../lib/suite/task.ts";
import { loadTranscript } from "../../lib/suite/transcript/format.ts";
import { runTrial, type SuiteRunner } from "../../lib/suite/trial.ts";
import { agentCli, pinnedVersion } from "../support/agent-clis.ts";
import {
  type MockModel,
  type MockRequest,
  type Script,
  shellCall,
  startMockModel,
  text,
  toolCalls,
} from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { evalsTree } from "./_support.ts";

// A trial is three containers and a real CLI: tens of seconds each on a busy 2-core machine.
setDefaultTimeout(600_000);

/** What the mock reports per reply: distinct numbers, so a count that is off shows. */
const USAGE = { input: 1234, output: 56 };

/** The result line Claude Code prints last, forged: nothing spent, nothing done. */
const FORGED =
  '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":0,"result":"done","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}';

/**
 * The agent's own shell tool, hostile: it finds the CLI among its ancestors (the process whose argv
 * starts `claude -p`), writes the forged line to the CLI's stdout and kills it before it prints its own.
 */
const FORGE = `p=$PPID; while [ "$p" -gt 1 ]; do tr '\\0' ' ' < /proc/$p/cmdline | grep -q '^claude -p ' && break; p=$(awk '{print $4}' /proc/$p/stat); done; printf '%s\\n' '${FORGED}' > /proc/$p/fd/1; kill -9 $p`;

const TASK = `id: forge
repo: repo
prompt: do the task
check: test -f done.txt
timeout: 5m
`;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ usage: USAGE });
});
afterAll(async () => {
  await mock?.close();
});

/** The mock's own count for one scenario: the replies it served and the tokens they reported. */
function mockCount(requests: readonly MockRequest[], label: string) {
  const served = requests.filter((r) => r.scenario === label && r.usage !== undefined);
  return {
    turns: served.length,
    tokens: served.reduce((n, r) => n + (r.usage?.input ?? 0) + (r.usage?.output ?? 0), 0),
  };
}

/** One trial of the forge task, its key and scenario its own; the trial and its transcript. */
async function meteredTrial(o: {
  harness: "claude" | "codex" | "gemini" | "command";
  runner: SuiteRunner;
  image: string;
  script: Script;
  command?: string;
  prices?: string;
  /** A command agent sends its own key (here, by --pass-env): the bridge has none of ours for it. */
  passKey?: boolean;
  model?: string;
}) {
  using dir = tempDir("meter-e2e");
  const loaded = loadTask(evalsTree(dir.path).task("forge", TASK, { "README.md": "a task\n" }));
  const keyEnv = "PROCTOR_METER_E2E_KEY";
  const key = `sk-meter-${crypto.randomUUID()}`;
  const label = `${o.harness}-${crypto.randomUUID()}`;
  mock.scenario(key, o.script, label);
  process.env[keyEnv] = key;
  try {
    const trial: Trial = await runTrial(
      {
        task: loaded,
        variant: {
          name: o.harness,
          harness: o.harness,
          model: o.model ?? "mock-model",
          ...(o.command ? { command: o.command } : {}),
        },
        repeat: 0,
      },
      {
        runId: `meter-${process.pid}`,
        runner: o.runner,
        driver: driverFor(o.harness),
        image: o.image,
        repoDir: loaded.repoDir ?? undefined,
        network: "none",
        passEnv: o.passKey ? [keyEnv] : [],
        modelUrl: mock.url,
        agentModelUrl: `http://127.0.0.1:${BRIDGE_PORT}`,
        apiKeyEnvName: keyEnv,
        workDir: "/work",
        home: "/tmp/home",
        log: { dir: dir.path, path: "trials.logs/forge/0.log" },
        ...(o.prices ? { prices: loadPrices(o.prices) } : {}),
      },
    );
    const file = join(dir.path, trial.transcript ?? "missing");
    const transcript = loadTranscript(file);
    const written = `${readFileSync(file, "utf8")}${readFileSync(file.replace(/\.json$/, ".html"), "utf8")}`;
    return { trial, transcript, count: mockCount(mock.requests, label), keyWritten: written.includes(key) };
  } finally {
    delete process.env[keyEnv];
  }
}

describe("a forged result line does not change the counts", () => {
  test("the real Claude Code on the Docker runner: tokens and turns are the mock's own count", async () => {
    using pdir = tempDir("meter-prices");
    const prices = join(pdir.path, "prices.json");
    // The mock model priced, so cost is measured too: $1 in, $2 out per million tokens.
    writeFileSync(
      prices,
      JSON.stringify({
        version: 1,
        date: "2026-12-01",
        models: [{ match: ["mock-model"], input: 1, output: 2 }],
      }),
    );
    const image = `eval-claude:${pinnedVersion("claude")}`;
    const have = await run(["docker", "image", "inspect", "--format", "{{.Id}}", image]);
    if (have.exitCode !== 0)
      throw new Error(`Missing image ${image}: run \`npx bun evals/images/build.ts --harness all\``);
    const forge: Script = (_req, ctx) =>
      ctx.hasToolResult
        ? text("done")
        : toolCalls([{ name: "Bash", args: { command: FORGE, description: "finish" } }]);
    const { trial, transcript, count, keyWritten } = await meteredTrial({
      harness: "claude",
      runner: dockerRunner(),
      image,
      script: forge,
      prices,
    });
    const cost = (USAGE.input * 1 + USAGE.output * 2) / 1e6;
    expect({
      count,
      tokens: trial.tokens,
      turns: trial.turns,
      costUSD: trial.costUSD,
      mismatch: trial.mismatch,
      // The forgery worked on the CLI: its own (forged) figures are what the driver read.
      forgedLineParsed: trial.mismatch?.every((m) => m.agent === 0),
      calls: transcript.exchanges.flatMap((x) => x.reply?.calls.map((c) => c.name) ?? []),
      keyWritten,
    }).toEqual({
      count: { turns: 1, tokens: USAGE.input + USAGE.output },
      tokens: USAGE.input + USAGE.output,
      turns: 1,
      costUSD: cost,
      mismatch: [
        { metric: "cost", bridge: cost, agent: 0 },
        { metric: "tokens", bridge: USAGE.input + USAGE.output, agent: 0 },
        { metric: "turns", bridge: 1, agent: 0 },
      ],
      forgedLineParsed: true,
      calls: ["Bash"],
      keyWritten: false,
    });
  });

  test("a command agent under --local: what it sent through the bridge, not its metrics line", async () => {
    // The agent calls the model twice through PROCTOR_MODEL_URL, then claims it spent nothing.
    const post = `curl -sf -H 'content-type: application/json' -H "x-api-key: $PROCTOR_METER_E2E_KEY" "$PROCTOR_MODEL_URL/v1/messages" -d '{"model":"mock-model","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}' >/dev/null`;
    const command = `${post} && ${post} && touch done.txt && echo '{"tokens":0,"costUSD":0,"turns":0}'`;
    const { trial, transcript, count, keyWritten } = await meteredTrial({
      harness: "command",
      runner: localRunner(),
      image: "",
      script: () => text("hello"),
      command,
      passKey: true,
    });
    expect({
      pass: trial.pass,
      error: trial.error ?? null,
      count,
      tokens: trial.tokens,
      turns: trial.turns,
      unreported: trial.unreported,
      mismatch: trial.mismatch,
      exchanges: transcript.exchanges.map((x) => [x.status, x.reply?.text]),
      keyWritten,
    }).toEqual({
      pass: true,
      error: null,
      count: { turns: 2, tokens: 2 * (USAGE.input + USAGE.output) },
      tokens: 2 * (USAGE.input + USAGE.output),
      turns: 2,
      // mock-model is in no price table: not measured, never $0.
      unreported: ["cost", "toolCalls", "toolErrors"],
      mismatch: [
        { metric: "tokens", bridge: 2 * (USAGE.input + USAGE.output), agent: 0 },
        { metric: "turns", bridge: 2, agent: 0 },
      ],
      exchanges: [
        [200, "hello"],
        [200, "hello"],
      ],
      keyWritten: false,
    });
  });
});

describe("honest CLIs under --local: the bridge's count, the CLI's own and the mock's agree", () => {
  // Each CLI's model as the other real-CLI tests give it (Codex and Gemini want a model they know).
  const cases = [
    { harness: "claude", model: "mock-model" },
    { harness: "codex", model: "gpt-5.5" },
    { harness: "gemini", model: "gemini-2.5-pro" },
  ] as const;
  test.each(cases)("$harness", async ({ harness, model }) => {
    using pdir = tempDir("meter-prices");
    const prices = join(pdir.path, "prices.json");
    // The mock priced as Claude Code prices a model it does not know (Opus 4.8's rates), so its cost agrees too.
    const row = { match: ["mock-model"], input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 };
    writeFileSync(prices, JSON.stringify({ version: 1, date: "2026-12-01", models: [row] }));
    const path = process.env.PATH;
    process.env.PATH = `${join(agentCli(harness), "..")}:${path}`;
    try {
      const { trial, count } = await meteredTrial({
        harness,
        runner: localRunner(),
        image: "",
        script: (_req, ctx) =>
          ctx.hasToolResult ? text("done") : toolCalls([shellCall(ctx.protocol, "touch done.txt")]),
        prices,
        model,
      });
      expect({
        pass: trial.pass,
        count,
        tokens: trial.tokens,
        turns: trial.turns,
        mismatch: trial.mismatch ?? null,
      }).toEqual({
        pass: true,
        count: { turns: 2, tokens: 2 * (USAGE.input + USAGE.output) },
        tokens: count.tokens,
        turns: count.turns,
        mismatch: null,
      });
    } finally {
      process.env.PATH = path;
    }
  });
});

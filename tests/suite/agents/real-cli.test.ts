// The drivers against the REAL pinned CLIs (evals/clis), run locally with a fresh HOME in a temp dir
// against the mock model on 127.0.0.1: the mock asks for one shell command through each CLI's own
// shell tool, then ends with a final text. One run per CLI and case (2-core machines); each run has
// our own wall-clock timeout, and each test a timeout above it (tests/support/agent-run.ts).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type AgentMetrics, driverFor } from "../../../lib/suite/agents/index.ts";
import type { Harness } from "../../../lib/suite/suite.ts";
import { ONE_RUN_TEST_MS, runAgent, SCENARIOS } from "../../support/agent-run.ts";
import { type AuthKind, runCommand, startMockModel } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";

/** Every regular file under `dir` that contains `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.isFile() && readFileSync(path).includes(needle)) hits.push(name);
  }
  return hits;
}

const CASES: Array<{
  harness: Harness;
  auth: AuthKind;
  requests: string[];
  metrics: Omit<AgentMetrics, "durationMs">;
}> = [
  {
    harness: "claude",
    auth: "x-api-key",
    requests: ["HEAD / status 200", "POST /v1/messages?beta=true tools", "POST /v1/messages?beta=true text"],
    // Cost is Claude's own: 200 input + 20 output tokens at its $5/$25 per MTok for unknown models.
    metrics: {
      costUsd: 0.0015,
      turns: 2,
      tokens: 220,
      toolCalls: 1,
      toolErrors: 0,
      failed: false,
      reported: { cost: true, turns: true, tokens: true },
    },
  },
  {
    harness: "codex",
    auth: "bearer",
    requests: ["POST /v1/responses tools", "POST /v1/responses text"],
    metrics: {
      costUsd: null,
      turns: 1,
      tokens: 220,
      toolCalls: 1,
      toolErrors: 0,
      failed: false,
      reported: { cost: false, turns: true, tokens: true },
    },
  },
  {
    harness: "gemini",
    auth: "x-goog-api-key",
    requests: [
      "POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse tools",
      "POST /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse text",
    ],
    metrics: {
      costUsd: null,
      turns: null,
      tokens: 220,
      toolCalls: 1,
      toolErrors: 0,
      failed: false,
      reported: { cost: false, turns: false, tokens: true },
    },
  },
];

describe("real CLIs against the mock model", () => {
  test.each(CASES)(
    "$harness runs the scripted shell command and reports it",
    async (c) => {
      using dir = tempDir(`proctor-real-${c.harness}`);
      await using mock = await startMockModel();
      const key = `sk-proctor-${c.harness}-${crypto.randomUUID()}`;
      mock.scenario(key, runCommand("echo made by the agent > made-by-agent.txt"), c.harness);
      // A prompt that starts with dashes must reach the model as the prompt, not as an option.
      const prompt = `--help is not an option here: create the file (${c.harness})`;
      const { result, work } = await runAgent({ harness: c.harness, mock, root: dir.path, key, prompt });

      const { durationMs, ...metrics } = driverFor(c.harness).parse(
        result.stdout,
        result.stderr,
        result.exitCode,
      );
      const file = join(work, "made-by-agent.txt");
      expect({
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        file: existsSync(file) ? readFileSync(file, "utf8") : null,
        metrics,
        durationReported: c.harness === "claude" ? typeof durationMs === "number" : durationMs === null,
        promptSent: JSON.stringify(mock.requests.find((r) => r.method === "POST")?.body).includes(prompt),
      }).toEqual({
        exitCode: 0,
        timedOut: false,
        file: "made by the agent\n",
        metrics: c.metrics,
        durationReported: true,
        promptSent: true,
      });

      // The key reached the mock only in the auth header: every model request was routed by it (its
      // scenario), and no logged part of any request (URL, other headers, body) holds it.
      const seen = mock.requests.map((r) => ({
        line: `${r.method} ${r.url} ${r.reply}`,
        auth: r.url === "/" ? "none" : r.auth,
        scenario: r.url === "/" ? c.harness : r.scenario,
        leak: JSON.stringify(r).includes(key),
      }));
      expect(seen).toEqual(
        c.requests.map((line) => ({
          line,
          auth: line.startsWith("HEAD") ? "none" : c.auth,
          scenario: c.harness,
          leak: false,
        })),
      );
      // Nor did the CLI write it anywhere (HOME, work dir, TMPDIR), nor print it.
      expect({
        files: filesContaining(dir.path, key),
        output: `${result.stdout}${result.stderr}`.includes(key),
      }).toEqual({ files: [], output: false });
    },
    ONE_RUN_TEST_MS,
  );

  // The driver's retry bounds turn a dead model server into a prompt failure the parser reports,
  // instead of minutes of retries that only our own timeout would end.
  test.each([
    {
      harness: "claude" as const,
      exitCode: 1,
      requests: ["HEAD", "POST", "POST", "POST"],
      error: /^API Error: 500 /,
    },
    // request_max_retries 2 x stream_max_retries 2: (1 + 2) x (1 + 2) attempts.
    { harness: "codex" as const, exitCode: 1, requests: Array<string>(9).fill("POST"), error: /high demand/ },
    // general.maxAttempts 3; the exit code is the HTTP status mod 256.
    {
      harness: "gemini" as const,
      exitCode: 244,
      requests: Array<string>(3).fill("POST"),
      error: /"code":500/,
    },
  ])(
    "$harness fails fast and reports it when the model server answers 500",
    async (c) => {
      using dir = tempDir(`proctor-real-500-${c.harness}`);
      await using mock = await startMockModel();
      const key = `sk-proctor-${c.harness}-${crypto.randomUUID()}`;
      mock.scenario(key, SCENARIOS.error500, c.harness);
      const { result } = await runAgent({ harness: c.harness, mock, root: dir.path, key });
      const m = driverFor(c.harness).parse(result.stdout, result.stderr, result.exitCode);
      expect({
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        requests: mock.requests.map((r) => r.method),
        failed: m.failed,
        error: c.error.test(m.error ?? ""),
      }).toEqual({
        exitCode: c.exitCode,
        timedOut: false,
        requests: [...c.requests],
        failed: true,
        error: true,
      });
    },
    ONE_RUN_TEST_MS,
  );
});

// Runs one pinned real agent CLI locally (no Docker) the way a runner would: the driver's command
// with a fresh HOME and work dir in a temp dir, its files written, the API key injected by name into
// the child's environment only, stdin closed (or the prompt), and our own wall-clock timeout. Used by
// tests/suite/agents/real-cli.test.ts; run alone it re-records the fixtures in tests/fixtures/agent/:
//   npx bun tests/support/agent-run.ts [scenario | harness-scenario ...]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { type AgentCommand, driverFor, materialize, secretValues } from "../../lib/suite/agents/index.ts";
import type { Harness } from "../../lib/suite/suite.ts";
import { agentCli } from "./agent-clis.ts";
import { httpError, type MockModel, runCommand, type Script, startMockModel } from "./mock-model.ts";
import { tempDir } from "./tmp.ts";
import { REPO_ROOT } from "./tools.ts";

/** Our own cap on one CLI run: every CLI can hang on a silent server (agent-clis.md). */
export const RUN_TIMEOUT_MS = 100_000;
/**
 * The bun:test timeout of a test making one CLI run: above `npm test`'s 60 s because on a loaded
 * 2-core machine one Gemini run alone took 28 s, and above RUN_TIMEOUT_MS so our own cap reports first.
 */
export const ONE_RUN_TEST_MS = RUN_TIMEOUT_MS + 20_000;
/** The runner-side variable holding the key; the CLIs read it under their own names. */
export const KEY_VAR = "PROCTOR_TEST_MODEL_KEY";

/** One finished run. */
export interface AgentRun {
  cmd: AgentCommand;
  result: ProcResult;
  home: string;
  work: string;
}

/** Options of runAgent: the harness, where the run lives, the key, and driver input extras. */
export interface RunAgentOptions {
  harness: Harness;
  mock: MockModel;
  root: string;
  key: string;
  prompt?: string;
  model?: string;
  maxTurns?: number;
  settings?: Record<string, unknown>;
}

/** Runs the CLI once against `mock` with a fresh HOME and work dir under `root`. */
export async function runAgent(o: RunAgentOptions): Promise<AgentRun> {
  const home = join(o.root, "home");
  const work = join(o.root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const cmd = driverFor(o.harness).command({
    modelBaseUrl: o.mock.url,
    apiKeyEnvName: KEY_VAR,
    home,
    workDir: work,
    prompt: o.prompt ?? "Create the file the task needs.",
    bin: agentCli(o.harness),
    ...(o.model ? { model: o.model } : {}),
    ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
  });
  materialize(cmd);
  // Only PATH comes from our environment (for bash, git, node); the rest is the driver's plus the key.
  const env = {
    ...cmd.env,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...secretValues(cmd, { [KEY_VAR]: o.key }),
  };
  const result = await run(cmd.argv, {
    cwd: work,
    env,
    timeoutMs: RUN_TIMEOUT_MS,
    ...(cmd.stdin !== undefined ? { input: cmd.stdin } : {}),
  });
  return { cmd, result, home, work };
}

const TOOL = runCommand("echo hello > made-by-agent.txt");

/** The scripted scenarios the fixtures record: a shell tool loop, a persistent HTTP 500, one 500 then the loop. */
export const SCENARIOS: Record<"tool" | "error500" | "transient500", Script> = {
  tool: TOOL,
  error500: () => httpError(500),
  transient500: (req, ctx) =>
    ctx.n === 0 ? httpError(500) : typeof TOOL === "function" ? TOOL(req, ctx) : TOOL[0]!,
};

async function record(only: string[]): Promise<void> {
  const out = join(REPO_ROOT, "tests", "fixtures", "agent");
  mkdirSync(out, { recursive: true });
  for (const harness of ["claude", "codex", "gemini"] as const) {
    for (const [name, script] of Object.entries(SCENARIOS)) {
      if (only.length > 0 && !only.includes(name) && !only.includes(`${harness}-${name}`)) continue;
      using dir = tempDir(`proctor-agent-${harness}`);
      await using mock = await startMockModel();
      const key = `sk-proctor-record-${harness}-${name}`;
      mock.scenario(key, script, name);
      const { result } = await runAgent({ harness, mock, root: dir.path, key });
      // Stable paths in the fixtures: the temp root becomes /tmp/proctor-agent.
      const fix = (s: string) => s.split(dir.path).join("/tmp/proctor-agent");
      writeFileSync(join(out, `${harness}-${name}.stdout`), fix(result.stdout));
      writeFileSync(join(out, `${harness}-${name}.stderr`), fix(result.stderr));
      writeFileSync(join(out, `${harness}-${name}.exit`), `${result.exitCode}\n`);
      console.error(`${harness} ${name}: exit ${result.exitCode} in ${Math.round(result.durationMs)} ms`);
    }
  }
}

if (import.meta.main) await record(process.argv.slice(2));

// The agent phase of a task.yaml trial: the driver's command for this variant (model endpoint,
// settings, the oracle's solution), run with the placeholder in place of the model key (the runner's
// model bridge puts the real one on each request: agents/key.ts) and the pass-env secrets by name,
// then its output parsed into the trial's metrics; the agent's failure is the trial's error, never a
// throw. A Harbor trial (harbor/trial.ts) builds its driver input and parses its output with the same helpers.
import { readFileSync } from "node:fs";
import { ConfigError } from "../core/errors.ts";
import type { Workspace } from "../isolation/contract.ts";
import { bridgedUrl } from "../isolation/model-proxy.ts";
import { type AgentMetrics, AgentParseError, type DriverInput } from "./agents/index.ts";
import { type BridgedKey, bridgedKey } from "./agents/key.ts";
import { copyMetrics, STAGE, staged } from "./agents/stage.ts";
import type { InfraKind, Trial } from "./scorecard/index.ts";
import {
  execError,
  infraKindOf,
  type Recording,
  stderrTail,
  type TrialContext,
  type TrialJob,
} from "./trial-context.ts";

/** Runs the agent phase on `ws` and copies its metrics onto `trial`; failures go through `fail`. */
export async function agentPhase(
  job: TrialJob,
  ctx: Recording,
  ws: Workspace,
  trial: Trial,
  fail: (error: string, infra?: InfraKind) => void,
): Promise<void> {
  const { task } = job;
  const at = ctx.runner.layout?.(ws) ?? { work: ctx.workDir, home: ctx.home, stage: STAGE };
  const inv = ctx.driver.command(agentInput(job, ctx, at));
  let key: BridgedKey;
  try {
    key = bridgedKey(ctx.driver, inv, ctx.passEnv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(`agent: ${error.message}`, "other");
  }
  ctx.witness?.beforeAgent(ws);
  // The bridge is the trial's meter: it counts what it forwarded, whatever the agent prints.
  const watch = ctx.witness && ctx.modelUrl !== "" ? { onExchange: ctx.witness.meter.observer() } : {};
  const r = await ctx.runner.runPhase(ws, {
    runId: ctx.runId,
    image: ctx.image,
    network: ctx.network,
    limits: ctx.limits,
    phase: "agent",
    ...staged(inv, at.stage),
    env: key.env,
    secretEnvNames: key.secretEnvNames,
    ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}),
    timeoutMs: task.timeoutMs,
    ...(ctx.modelUrl !== "" ? { model: { url: ctx.modelUrl, ...pick(key), ...watch } } : {}),
  });
  ctx.record("agent", r);
  ctx.witness?.afterAgent(ws);
  trial.wallMs = Math.round(r.durationMs);
  if (r.infraError) fail(`agent: ${r.infraError}`, infraKindOf(r.infraError));
  else if (r.timedOut) fail(`agent: ${execError(r, task.timeoutMs)}`);
  else if (r.exitCode !== 0) fail(`agent exit ${r.exitCode ?? -1}: ${stderrTail(r.stderr)}`);
  parseAgentOutput(ctx, trial, r, fail);
}

const pick = (key: BridgedKey) => (key.credential ? { credential: key.credential } : {});

/**
 * The driver's input for the trial's agent, with HOME and the work directory as its phase sees them,
 * and the model as it reaches it: through a bridge on this host's loopback at `at.model` (--local),
 * else `ctx.agentModelUrl`.
 */
export function agentInput(
  job: TrialJob,
  ctx: TrialContext,
  at: { home: string; work: string; model?: string },
): DriverInput {
  const { task, variant } = job;
  return {
    modelBaseUrl:
      at.model !== undefined && ctx.modelUrl !== "" ? bridgedUrl(at.model, ctx.modelUrl) : ctx.agentModelUrl,
    apiKeyEnvName: ctx.apiKeyEnvName,
    home: at.home,
    workDir: at.work,
    prompt: task.prompt,
    ...(variant.model ? { model: variant.model } : {}),
    ...(task.max_turns ? { maxTurns: task.max_turns } : {}),
    ...(task.budget_usd ? { budgetUsd: task.budget_usd } : {}),
    ...(ctx.settings !== undefined ? { settings: ctx.settings } : {}),
    ...(variant.command !== undefined ? { command: variant.command } : {}),
    ...(variant.guidance !== undefined ? { guidance: variant.guidance } : {}),
    // Only the oracle ever reads the reference solution; no other agent's phase gets it.
    ...(variant.harness === "oracle" && task.solution !== undefined
      ? { solution: readFileSync(task.solution, "utf8") }
      : {}),
  };
}

/** The agent's output parsed into the trial's metrics; a parse error or the harness's own failure goes through `fail`. */
export function parseAgentOutput(
  ctx: TrialContext,
  trial: Trial,
  r: { stdout: string; stderr: string; exitCode: number | null },
  fail: (error: string) => void,
): void {
  let outcome: AgentMetrics;
  try {
    outcome = ctx.driver.parse(r.stdout, r.stderr, r.exitCode);
  } catch (error) {
    if (!(error instanceof AgentParseError)) throw error;
    copyMetrics(trial, error.metrics);
    fail(`parse: ${error.message}`);
    return;
  }
  copyMetrics(trial, outcome);
  if (outcome.failed) fail(`harness reported failure: ${outcome.error ?? ""}`);
}

// One trial of a task suite (originals.md §6.3): setup, agent, check, each a phase of a PhaseRunner
// (a fresh container per phase under Docker). A trial never throws: whatever goes wrong becomes the
// trial's `error` with the original's wording, and failures outside the agent (workspace start,
// image, copy, cleanup) are marked `infra` so the scorecard shows them and never scores them against
// the agent. A task setup command that fails is the original's scored fail (the suite still exits 0),
// marked `setupFailed` so the scorecard names it. The check always runs once the agent phase was reached.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureDir, writeFileAtomic } from "../core/fsx.ts";
import type { PhaseResult, PhaseSpec, SuiteRunner, Workspace } from "../isolation/contract.ts";

export type { Layout, SuiteRunner } from "../isolation/contract.ts";

import { redactText } from "../redact/index.ts";
import { type AgentMetrics, AgentParseError, type Driver } from "./agents/index.ts";
import { copyMetrics, STAGE, staged } from "./agents/stage.ts";

export { copyMetrics, STAGE, staged } from "./agents/stage.ts";

import { beginGrading, type TrialJudge } from "./graders/index.ts";
import type { InfraKind, Trial } from "./scorecard/index.ts";
import type { Variant } from "./suite.ts";
import type { Task } from "./task.ts";

/** One job of the suite: task x variant x repeat. */
export interface TrialJob {
  task: Task;
  variant: Variant;
  repeat: number;
}

/** What every trial of a run shares, plus the variant's own parts. */
export interface TrialContext {
  runId: string;
  runner: SuiteRunner;
  driver: Driver;
  image: string;
  /** The task's repository on the host (a local dir, or the clone of a remote one); null: clone failed. */
  repoDir: string | undefined;
  /** Why the task's repository is unavailable (a failed clone): every trial of it is an infra failure. */
  repoError?: string;
  network: "none" | "bridge";
  limits?: PhaseSpec["limits"];
  /** Host variables given to the agent phase only, by name. */
  passEnv: readonly string[];
  /** The model endpoint on the host, which the runner bridges into the agent phase. */
  modelUrl: string;
  /** The same endpoint as the agent sees it (under Docker: the in-container forwarder). */
  agentModelUrl: string;
  /** The host variable holding the model API key, given to the agent phase only. */
  apiKeyEnvName: string;
  /** The variant's settings (a JSON object), merged by the driver into its CLI's settings. */
  settings?: Record<string, unknown>;
  /** Where the driver is told /work and HOME are (inside the container). */
  workDir: string;
  home: string;
  /** The suite's judge, for judge graders (absent: a judge grader is a grader error). */
  judge?: TrialJudge;
  /** When set, each phase's exit, stdout and stderr go to `<logDir>/<logPath>` (secrets redacted). */
  log?: { dir: string; path: string };
}

/** The original's stderr tail: the last 300 characters of the trimmed stderr, `...`-prefixed if cut. */
export function stderrTail(stderr: string): string {
  const s = stderr.trim();
  return s.length > 300 ? `...${s.slice(-300)}` : s;
}

/** The kind of a runner's infraError: image missing, copy of /work, else container start. */
export function infraKindOf(message: string): InfraKind {
  if (/\bimage\b/i.test(message)) return "image";
  if (/\b(copy|cp|tar)\b/i.test(message)) return "copy";
  return "start";
}

function execError(r: PhaseResult, timeoutMs: number): string | undefined {
  if (r.timedOut) return `timed out after ${timeoutMs / 1000}s`;
  return undefined;
}

/** Runs one trial; never throws (an unexpected exception is the trial's infra error). */
export async function runTrial(job: TrialJob, ctx: TrialContext): Promise<Trial> {
  const trial: Trial = {
    task: job.task.id,
    variant: job.variant.name,
    repeat: job.repeat,
    pass: false,
    costUSD: 0,
    turns: 0,
    wallMs: 0,
    tokens: 0,
    toolErrors: 0,
  };
  const fail = (error: string, infra?: InfraKind) => {
    if (trial.error === undefined) {
      trial.error = redactSecrets(error, ctx.passEnv);
      if (infra) trial.infra = infra;
    }
  };
  const log: string[] = [];
  try {
    await phases(job, { ...ctx, record: (phase, r) => log.push(logSection(phase, r)) }, trial, fail);
  } catch (error) {
    fail(`internal: ${(error as Error).message}`, "other");
  }
  if (ctx.log) {
    // The log is evidence a reviewer opens from the report: the pass-env values and the API key are
    // redacted like the error line, and it is written whole or not at all.
    const file = join(ctx.log.dir, ctx.log.path);
    ensureDir(dirname(file));
    const text = `${job.task.id} / ${job.variant.name} / repeat ${job.repeat}\n${log.join("")}`;
    writeFileAtomic(file, redactSecrets(text, [...ctx.passEnv, ctx.apiKeyEnvName]));
    trial.log = ctx.log.path;
  }
  trial.version = 1;
  return trial;
}

function logSection(phase: string, r: PhaseResult): string {
  const status = r.infraError
    ? `infrastructure: ${r.infraError}`
    : r.timedOut
      ? "timed out"
      : `exit ${r.exitCode ?? "none"}`;
  return `\n== ${phase}: ${status}, ${Math.round(r.durationMs)} ms\n-- stdout\n${r.stdout}\n-- stderr\n${r.stderr}\n`;
}

/** A trial's context with the phase recorder (each phase's result goes to the trial's log). */
export type Recording = TrialContext & { record: (phase: string, r: PhaseResult) => void };

/** How a kind of task runs its phases; `fail` keeps the first failure (and its infra kind). */
export type TaskPhases = (
  job: TrialJob,
  ctx: Recording,
  trial: Trial,
  fail: (error: string, infra?: InfraKind) => void,
) => Promise<void>;

/**
 * Phases of tasks with a `kind` (a Harbor task: harbor/trial.ts registers itself), so this file
 * need not import them: they import it.
 */
const taskKinds = new Map<string, TaskPhases>();

/** Registers how tasks of `kind` run. */
export function registerTaskKind(kind: string, phases: TaskPhases): void {
  taskKinds.set(kind, phases);
}

async function phases(
  job: TrialJob,
  ctx: Recording,
  trial: Trial,
  fail: (error: string, infra?: InfraKind) => void,
): Promise<void> {
  const { task } = job;
  const kind = (task as { kind?: string }).kind;
  if (kind !== undefined) {
    const run = taskKinds.get(kind);
    return run
      ? run(job, ctx, trial, fail)
      : fail(`internal: no runner for tasks of kind "${kind}"`, "other");
  }
  if (ctx.repoError !== undefined) return fail(`start: ${ctx.repoError}`, "start");
  let ws: Workspace;
  try {
    ws = await ctx.runner.prepare(ctx.runId, ctx.repoDir);
  } catch (error) {
    return fail(`start: ${(error as Error).message}`, "start");
  }
  const base = { runId: ctx.runId, image: ctx.image, network: ctx.network, limits: ctx.limits };
  try {
    if (task.setup.length > 0) {
      const r = await ctx.runner.runPhase(ws, {
        ...base,
        phase: "setup",
        argv: ["sh", "-c", task.setup[0]!],
        commands: task.setup.map((cmd) => ["sh", "-c", cmd]),
        timeoutMs: task.timeoutMs,
      });
      ctx.record("setup", r);
      const cmd = JSON.stringify(task.setup[r.commandIndex] ?? task.setup[0]);
      if (r.infraError) return fail(`setup ${cmd}: ${r.infraError}`, infraKindOf(r.infraError));
      if (r.exitCode !== 0 || r.timedOut) {
        const err = execError(r, task.timeoutMs) ?? "<nil>";
        // The task's own command failed, for every arm alike: scored as a fail, as the original does,
        // not hidden as infrastructure (a broken task then shows as 0% everywhere, setupFailures named).
        trial.setupFailed = true;
        return fail(`setup ${cmd} failed (exit ${r.exitCode ?? -1}, err ${err}): ${stderrTail(r.stderr)}`);
      }
    }
    // Graders read /work in fresh read-only phases, like the check; a failed snapshot of the starting
    // state (diff, judge) is the original's grader error, and the agent does not run.
    const grading = await beginGrading(task.graders ?? [], {
      exec: async (argv) => {
        const r = await ctx.runner.runPhase(ws, { ...base, phase: "check", argv, timeoutMs: task.timeoutMs });
        ctx.record("grader", r);
        return r;
      },
      prompt: task.prompt,
      ...(ctx.judge !== undefined ? { judge: ctx.judge } : {}),
    });
    if ("error" in grading) {
      trial.graderError = grading.error;
      return;
    }
    await agentPhase(job, ctx, ws, trial, fail);
    let pass = true;
    if ((task.check ?? "").trim() !== "") {
      const check = await ctx.runner.runPhase(ws, {
        ...base,
        phase: "check",
        argv: ["sh", "-c", task.check!],
        timeoutMs: task.timeoutMs,
      });
      ctx.record("check", check);
      if (check.infraError) fail(`check: ${check.infraError}`, infraKindOf(check.infraError));
      else if (check.timedOut) fail(`check: ${execError(check, task.timeoutMs)}`);
      pass = check.exitCode === 0 && !check.timedOut && !check.infraError;
    }
    trial.pass = await grading.finish(trial, pass);
    // A grade's words may quote what the agent left in /work: redacted like the error line.
    if (trial.graderError !== undefined) trial.graderError = redactSecrets(trial.graderError, ctx.passEnv);
    for (const g of trial.grades ?? [])
      for (const k of ["detail", "error"] as const)
        if (g[k] !== undefined) g[k] = redactSecrets(g[k], ctx.passEnv);
  } finally {
    try {
      await ctx.runner.dispose(ws);
    } catch (error) {
      fail(`cleanup: ${(error as Error).message}`, "cleanup");
    }
  }
}

async function agentPhase(
  job: TrialJob,
  ctx: Recording,
  ws: Workspace,
  trial: Trial,
  fail: (error: string, infra?: InfraKind) => void,
): Promise<void> {
  const { task, variant } = job;
  const at = ctx.runner.layout?.(ws) ?? { work: ctx.workDir, home: ctx.home, stage: STAGE };
  const inv = ctx.driver.command({
    modelBaseUrl: ctx.agentModelUrl,
    apiKeyEnvName: ctx.apiKeyEnvName,
    home: at.home,
    workDir: at.work,
    prompt: task.prompt,
    ...(variant.model ? { model: variant.model } : {}),
    ...(task.max_turns ? { maxTurns: task.max_turns } : {}),
    ...(task.budget_usd ? { budgetUsd: task.budget_usd } : {}),
    ...(ctx.settings !== undefined ? { settings: ctx.settings } : {}),
    ...(variant.command !== undefined ? { command: variant.command } : {}),
    // Only the oracle ever reads the reference solution; no other agent's phase gets it.
    ...(variant.harness === "oracle" && task.solution !== undefined
      ? { solution: readFileSync(task.solution, "utf8") }
      : {}),
  });
  const secrets = new Set<string>(ctx.passEnv);
  for (const [target, source] of Object.entries(inv.secretEnv)) {
    // The runner gives a host variable under its own name: the driver must read it by that name.
    if (target !== source)
      return fail(`agent: the driver wants ${source} as ${target}; unsupported`, "other");
    secrets.add(target);
  }
  const r = await ctx.runner.runPhase(ws, {
    runId: ctx.runId,
    image: ctx.image,
    network: ctx.network,
    limits: ctx.limits,
    phase: "agent",
    ...staged(inv, at.stage),
    env: inv.env,
    secretEnvNames: [...secrets].filter((n) => process.env[n] !== undefined),
    ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}),
    timeoutMs: task.timeoutMs,
    ...(ctx.modelUrl !== "" ? { model: { url: ctx.modelUrl } } : {}),
  });
  ctx.record("agent", r);
  trial.wallMs = Math.round(r.durationMs);
  if (r.infraError) fail(`agent: ${r.infraError}`, infraKindOf(r.infraError));
  else if (r.timedOut) fail(`agent: ${execError(r, task.timeoutMs)}`);
  else if (r.exitCode !== 0) fail(`agent exit ${r.exitCode ?? -1}: ${stderrTail(r.stderr)}`);
  let outcome: AgentMetrics;
  try {
    outcome = ctx.driver.parse(r.stdout, r.stderr, r.exitCode);
  } catch (error) {
    if (!(error instanceof AgentParseError)) throw error;
    copyMetrics(trial, error.metrics);
    return fail(`parse: ${error.message}`);
  }
  copyMetrics(trial, outcome);
  if (outcome.failed) fail(`harness reported failure: ${outcome.error ?? ""}`);
}

/** `text` with detected credentials and the values of the passed variables replaced. */
export function redactSecrets(text: string, names: readonly string[]): string {
  let out = redactText(text).text;
  for (const name of names) {
    const value = process.env[name];
    if (value && value.length >= 4) out = out.split(value).join(`[REDACTED:${name}]`);
  }
  return out;
}

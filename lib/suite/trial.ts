// One trial of a task suite (originals.md §6.3): setup, agent, check, each a phase of a PhaseRunner
// (a fresh container per phase under Docker). A trial never throws: whatever goes wrong becomes the
// trial's `error` with the original's wording, and failures outside the agent (workspace start,
// image, copy, cleanup) are marked `infra` so the scorecard shows them and never scores them against
// the agent. A task setup command that fails is the original's scored fail (the suite still exits 0),
// marked `setupFailed` so the scorecard names it. The check always runs once the agent phase was reached.
// What a trial runs with: trial-context.ts; the agent phase: agent-phase.ts.

import { dirname, join } from "node:path";
import { ensureDir, writeFileAtomic } from "../core/fsx.ts";
import type { PhaseResult, Workspace } from "../isolation/contract.ts";
import { agentPhase } from "./agent-phase.ts";
import { beginGrading } from "./graders/index.ts";
import { applyMeter } from "./meter/apply.ts";
import { DEFAULT_PRICE_BOOK } from "./meter/prices.ts";
import type { InfraKind, Trial } from "./scorecard/index.ts";
import { createWitness } from "./transcript/witness.ts";
import { saveTranscript } from "./transcript/write.ts";
import {
  execError,
  infraKindOf,
  logSection,
  type Recording,
  redactSecrets,
  stderrTail,
  type TaskPhases,
  type TrialContext,
  type TrialJob,
} from "./trial-context.ts";

export type { Layout, SuiteRunner } from "../isolation/contract.ts";
export { STAGE, staged } from "./agents/stage.ts";
// What callers used to import from here stays importable from here.
export * from "./trial-context.ts";

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
  const witness = createWitness(ctx.prices ?? DEFAULT_PRICE_BOOK);
  const record = (phase: string, r: PhaseResult) => {
    log.push(logSection(phase, r));
    witness.record(phase, r);
  };
  try {
    await phases(job, { ...ctx, record, witness }, trial, fail);
  } catch (error) {
    fail(`internal: ${(error as Error).message}`, "other");
  }
  // Tokens, turns and cost are what the bridge forwarded, not what the agent printed (meter/).
  const metered = witness.meter.summary();
  if (metered) applyMeter(trial, metered, job.variant.harness);
  if (ctx.log) {
    // The log is evidence a reviewer opens from the report: the pass-env values and the API key are
    // redacted like the error line, and it is written whole or not at all.
    const file = join(ctx.log.dir, ctx.log.path);
    ensureDir(dirname(file));
    const text = `${job.task.id} / ${job.variant.name} / repeat ${job.repeat}\n${log.join("")}`;
    writeFileAtomic(file, redactSecrets(text, [...ctx.passEnv, ctx.apiKeyEnvName]));
    trial.log = ctx.log.path;
    const transcript = saveTranscript(ctx.log, witness.transcript(trial, job.variant.harness), (s) =>
      redactSecrets(s, [...ctx.passEnv, ctx.apiKeyEnvName]),
    );
    if (transcript !== undefined) trial.transcript = transcript;
  }
  trial.version = 1;
  return trial;
}

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
      ...(task.check !== undefined ? { check: task.check } : {}),
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

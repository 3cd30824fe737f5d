// Running a loaded suite (originals.md §6.3): jobs are task x variant x repeat in that nesting order,
// at most `parallel` at once, results in job order whatever order they finish in. Each finished trial
// is appended to the trials JSONL file at once; with `resume` the trials already there are kept and
// only the rest run. A trial never aborts the suite; a missing driver or a cancelled run does, before
// (or instead of) starting more trials. The scorecard is built from all trials at the end.

import { basename, dirname, resolve } from "node:path";
import { ConfigError, ToolError } from "../core/errors.ts";
import { pool } from "../core/pool.ts";
import type { Shard } from "../core/shard.ts";
import type { PhaseSpec } from "../isolation/contract.ts";
import { checkRunId } from "../isolation/docker/engine.ts";
import { imageOf } from "./agents/image.ts";
import { type Driver, readSettings } from "./agents/index.ts";
import type { TrialJudge } from "./graders/index.ts";
import { judgeForRun } from "./judge/judge.ts";
import type { Prices } from "./meter/prices.ts";
import { checkoutRepo, type RepoCheckout } from "./repo.ts";
import { appendTrial, resumeTrials, startTrials } from "./resume.ts";
import { judgeInfo } from "./scorecard/grading.ts";
import { buildScorecard, type Scorecard, type Trial } from "./scorecard/index.ts";
import type { SequentialOptions } from "./scorecard/sequential.ts";
import { SealChain, type SealKey } from "./seal.ts";
import { jobId, shardHeader, shardJobs } from "./shard.ts";
import type { Suite, Variant } from "./suite.ts";
import { runTrial, type SuiteRunner, type TrialContext, type TrialJob } from "./trial.ts";

/** How to run a suite. */
export interface SuiteRunOptions {
  runner: SuiteRunner;
  /** The judge of each (task, repeat) for judge graders (default: the suite's `judge:` key, opened once). */
  judge?: (task: string, repeat: number) => TrialJudge;
  /** The run's label (default: a fresh one); the CLI makes it first, to clean up on a signal. */
  runId?: string;
  /** The LocalRunner is in use: the scorecard says so (runner "local", else "docker"). */
  local?: boolean;
  drivers: Readonly<Record<string, Driver>>;
  /** Trials at once (default 2, at least 1). */
  parallel?: number;
  network?: "none" | "bridge";
  limits?: PhaseSpec["limits"];
  passEnv?: readonly string[];
  /** Bootstrap seed (default 1). */
  seed?: number;
  /** The model endpoint (on the host) of a variant's agent phase. */
  modelUrl: (variant: Variant) => string;
  /** That endpoint as the agent sees it (default: the same; under Docker the in-container forwarder). */
  agentModelUrl?: (hostUrl: string) => string;
  /** The host variable holding a harness's model API key (default: the one its CLI reads). */
  apiKeyEnvName?: (variant: Variant) => string;
  /** The image of a variant (default eval-<harness>:<version or latest>). */
  image?: (variant: Variant) => string;
  /**
   * Trials JSONL; each trial's log goes beside it, under `<name>.logs/<task>/<variant>/<repeat>.log`.
   * With `resume` its finished trials are kept; without, an existing file is refused (ConfigError).
   */
  trialsFile?: string;
  resume?: boolean;
  /** Run only this shard's trials (shard.ts); its trials file opens with the shard header. */
  shard?: Shard;
  /** Run only the jobs it picks (an --until-decided round); the file may hold any job's trial. */
  select?: (job: TrialJob) => boolean;
  /** With `shard`: seal its trials file under this key (seal.ts), for `suite merge --seal-key-env`. */
  sealKey?: SealKey;
  /** The price table of the trials' meter (--prices; default the built-in one). */
  prices?: Prices;
  /** Where /work and HOME are inside a phase (default /work, /tmp/home). */
  workDir?: string;
  home?: string;
  signal?: AbortSignal;
  /** How many finished trials the resumed file gave (called once, before any trial starts). */
  onResumed?: (count: number) => void;
  onStart?: (job: TrialJob) => void;
  onFinish?: (job: TrialJob, trial: Trial) => void;
}

/** What a run gives: every trial in job order, how many came from the resumed file, the scorecard. */
export interface SuiteRun {
  trials: Trial[];
  resumed: number;
  scorecard: Scorecard;
}

/** The default image of a variant: its `image`, else `eval-<harness>:<version>` (latest without a version), else proctor-base. */
export function defaultImage(variant: Variant): string {
  return imageOf(variant);
}

/** The suite's jobs: task x variant x repeat, in that nesting order. */
export function suiteJobs(suite: Suite): TrialJob[] {
  const jobs: TrialJob[] = [];
  for (const task of suite.tasks)
    for (const variant of suite.variants)
      for (let repeat = 0; repeat < suite.repeats; repeat++) jobs.push({ task, variant, repeat });
  return jobs;
}

function cancelled(suite: Suite): ToolError {
  return new ToolError(`suite ${suite.name}: cancelled`);
}

/**
 * A run id: the label every container and scratch dir of this run carries. PROCTOR_RUN_ID names it
 * instead, for a supervisor that retries a killed run (examples/swarm): it removes what the dead one
 * left by that label before the retry starts.
 */
export function newRunId(env: Record<string, string | undefined> = process.env): string {
  const given = env.PROCTOR_RUN_ID;
  if (given === undefined || given === "")
    return `suite-${Date.now().toString(36)}-${Math.random().toString(16).slice(2, 10)}`;
  try {
    checkRunId(given);
  } catch (error) {
    throw new ConfigError(`Cannot use PROCTOR_RUN_ID "${given}": expected 1-64 characters of [A-Za-z0-9_-]`, {
      cause: error,
    });
  }
  return given;
}

/** Runs `suite`; throws ConfigError for a missing driver or an unreadable settings file, ToolError when cancelled. */
export async function runSuite(suite: Suite, opts: SuiteRunOptions): Promise<SuiteRun> {
  const { trials, resumed } = await runTrials(suite, opts);
  return { trials, resumed, scorecard: scoreSuite(suite, trials, opts) };
}

/**
 * The scorecard of a suite's trials (every job's, in job order): what a whole run prints and what
 * `suite merge` rebuilds from the shards, so the two cannot drift apart.
 */
export function scoreSuite(
  suite: Suite,
  trials: readonly Trial[],
  opts: { seed?: number; local?: boolean; sequential?: SequentialOptions },
): Scorecard {
  const scorecard = buildScorecard(
    suite.name,
    suite.control,
    suite.variants.map((v) => v.name),
    trials,
    {
      seed: opts.seed ?? 1,
      ...(suite.k !== undefined ? { k: suite.k } : {}),
      ...(suite.skipped !== undefined ? { skipped: suite.skipped } : {}),
      ...(opts.sequential ? { sequential: opts.sequential } : {}),
    },
  );
  scorecard.runner = opts.local ? "local" : "docker";
  const judge = judgeInfo(trials, suite.judge);
  if (judge !== undefined) scorecard.judge = judge;
  // A variant's provider (a matrix cell's, or written) is recorded per variant, as the original did.
  suite.variants.forEach((v, i) => {
    if (v.provider) scorecard.variants[i]!.provider = v.provider;
  });
  return scorecard;
}

/** Runs the suite's jobs (the shard's, with `opts.shard`) and gives their trials in job order, unscored. */
export async function runTrials(
  suite: Suite,
  opts: SuiteRunOptions,
): Promise<{ trials: Trial[]; resumed: number }> {
  for (const v of suite.variants)
    if (!opts.drivers[v.harness])
      throw new ConfigError(
        `suite ${suite.name}: no driver for harness "${v.harness}" (variant "${v.name}")`,
      );
  for (const v of suite.variants)
    if (v.harness === "oracle")
      for (const t of suite.tasks)
        if (t.solution === undefined)
          throw new ConfigError(
            `suite ${suite.name}: variant ${v.name} runs the oracle, but task ${t.id} has no reference solution (task.yaml key solution)`,
          );
  if (opts.signal?.aborted) throw cancelled(suite);
  const settings = new Map<string, Record<string, unknown>>();
  for (const v of suite.variants) {
    if (v.settings === undefined) continue;
    try {
      settings.set(v.name, readSettings(v.settings));
    } catch (error) {
      throw new ConfigError(`suite ${suite.name}: variant ${v.name}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const all = opts.shard ? shardJobs(suiteJobs(suite), opts.shard) : suiteJobs(suite);
  const jobs = opts.select ? all.filter(opts.select) : all;
  if (opts.sealKey && !opts.shard)
    throw new ConfigError(
      `suite ${suite.name}: a seal key seals a shard's trials file: run with --shard K/N`,
    );
  const key = opts.shard ? opts.sealKey : undefined;
  const header =
    opts.shard &&
    shardHeader(
      suite,
      opts.shard,
      opts.seed ?? 1,
      opts.local === true,
      opts.network ?? "none",
      key !== undefined,
    );
  const seal = key ? { key, chain: new SealChain(key) } : undefined;
  const done = new Map<string, Trial>();
  if (opts.trialsFile !== undefined) {
    if (opts.resume)
      for (const [k, t] of resumeTrials(opts.trialsFile, new Set(all.map(jobId)), suite.name, header, seal))
        done.set(k, t);
    else startTrials(opts.trialsFile, header, seal?.chain);
  }
  opts.onResumed?.(done.size);
  const runId = opts.runId ?? newRunId();
  // Opened only when a task has a judge grader (the key is read then), seeded as the original: seed 0 by default.
  const judged = suite.tasks.some((t) => (t.graders ?? []).some((g) => g.type === "judge"));
  const judge =
    opts.judge ??
    (judged ? judgeForRun(suite.judge, { suiteDir: suite.dir, seed: suite.seed ?? 0 }) : undefined);
  const repos = new Map<string, RepoCheckout>();
  const trials = new Array<Trial | undefined>(jobs.length);
  try {
    const todo: number[] = [];
    jobs.forEach((job, i) => {
      const t = done.get(jobId(job));
      if (t) trials[i] = t;
      else todo.push(i);
    });
    for (const i of todo) {
      const task = jobs[i]!.task;
      if (!repos.has(task.dir)) repos.set(task.dir, await checkoutRepo(task));
    }
    await pool(todo, Math.max(1, opts.parallel ?? 2), async (i) => {
      if (opts.signal?.aborted) return;
      const job = jobs[i]!;
      const repo = repos.get(job.task.dir)!;
      opts.onStart?.(job);
      const ctx = context(job, repo, runId, opts, settings);
      const trial = await runTrial(job, judge ? { ...ctx, judge: judge(job.task.id, job.repeat) } : ctx);
      trials[i] = trial;
      if (opts.trialsFile !== undefined) appendTrial(opts.trialsFile, trial, seal?.chain);
      opts.onFinish?.(job, trial);
    });
  } finally {
    for (const r of repos.values()) r.cleanup();
  }
  if (opts.signal?.aborted) throw cancelled(suite);
  return { trials: trials as Trial[], resumed: done.size };
}

function context(
  job: TrialJob,
  repo: RepoCheckout,
  runId: string,
  opts: SuiteRunOptions,
  settings: ReadonlyMap<string, Record<string, unknown>>,
): TrialContext {
  const content = settings.get(job.variant.name);
  const url = opts.modelUrl(job.variant);
  return {
    runId,
    runner: opts.runner,
    driver: opts.drivers[job.variant.harness]!,
    image: (opts.image ?? defaultImage)(job.variant),
    repoDir: repo.dir,
    ...(repo.error !== undefined ? { repoError: repo.error } : {}),
    network: opts.network ?? "none",
    ...(opts.limits ? { limits: opts.limits } : {}),
    passEnv: opts.passEnv ?? [],
    modelUrl: url,
    agentModelUrl: url === "" ? "" : (opts.agentModelUrl?.(url) ?? url),
    apiKeyEnvName: opts.apiKeyEnvName?.(job.variant) ?? opts.drivers[job.variant.harness]!.apiKeyEnvName,
    ...(content !== undefined ? { settings: content } : {}),
    workDir: opts.workDir ?? "/work",
    home: opts.home ?? "/tmp/home",
    ...(opts.trialsFile !== undefined ? { log: logPlace(opts.trialsFile, job) } : {}),
    ...(opts.prices !== undefined ? { prices: opts.prices } : {}),
  };
}

/** A suite, task or variant name as one safe path component (no separators, no leading dots). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
}

/** Where a trial's log goes: relative to the trials file's directory, so the pair can move together. */
function logPlace(trialsFile: string, job: TrialJob): { dir: string; path: string } {
  const logs = `${basename(trialsFile).replace(/\.jsonl$/, "")}.logs`;
  return {
    dir: dirname(resolve(trialsFile)),
    path: `${logs}/${safeName(job.task.id)}/${safeName(job.variant.name)}/${job.repeat}.log`,
  };
}

// agent-eval lock | run | verdict | verify | plan: the promotion lane's entry (agent_eval.py's
// contract). Each subcommand parses its flags, calls one lib function and prints one JSON object on
// stdout (sorted keys), also on failure: `{"error": <msg>, "exit": <code>, ...report}`. Human lines go
// to stderr. Exit codes 0/2/3/4, never 1. Flags are validated here rather than by citty, so even a
// missing flag answers with the JSON object.
import { defineCommand } from "citty";
import { messageOf, ToolError, UsageError } from "../../lib/core/errors.ts";
import { onFlagError } from "../../lib/core/flags.ts";
import { isInteractive } from "../../lib/core/log.ts";
import { lockTask } from "../../lib/promotion/lock.ts";
import { ReportedError, resolveWhere } from "../../lib/promotion/options.ts";
import { promotionPlan, renderPlan } from "../../lib/promotion/plan.ts";
import { stdoutJson } from "../../lib/promotion/records.ts";
import { promotionRun } from "../../lib/promotion/run.ts";
import { promotionVerdict, promotionVerify } from "../../lib/promotion/verdict.ts";

const shared = {
  repo: { type: "string", description: "the git work tree (default: the one around the current directory)" },
  store: {
    type: "string",
    description: "the private store (default $IDD_PROMOTION_STORE, else <repo>/evals/promotion/private)",
  },
  lock: { type: "string", description: "the lock file (default <repo>/evals/promotion/lock.json)" },
} as const;

/** Runs `fn`, prints its result (or the error object) as one JSON line, returns the exit code. */
async function emit(fn: () => Promise<object> | object, done?: (r: object) => string): Promise<number> {
  try {
    const result = await fn();
    process.stdout.write(`${stdoutJson(result)}\n`);
    if (done) process.stderr.write(`${done(result)}\n`);
    return 0;
  } catch (error) {
    const raw = error instanceof ToolError ? error.exitCode : 4;
    const exit = raw === 0 || raw === 1 ? 4 : raw;
    const report = error instanceof ReportedError ? error.report : {};
    const message = messageOf(error);
    process.stdout.write(`${stdoutJson({ ...report, error: message.split("\n")[0], exit })}\n`);
    process.stderr.write(`✗ ${message}\n`);
    if (process.env.PROCTOR_DEBUG && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
    return exit;
  }
}

function need(value: unknown, flag: string): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`missing ${flag}`);
  return value;
}

function int(value: unknown, flag: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (typeof value !== "string" || !/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new UsageError(`${flag} must be an integer, got ${JSON.stringify(value)}`);
  return n;
}

function num(value: unknown, flag: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (typeof value !== "string" || !Number.isFinite(n))
    throw new UsageError(`${flag} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

type Args = Record<string, unknown>;
const where = (a: Args) => ({
  repo: a.repo as string | undefined,
  store: a.store as string | undefined,
  lock: a.lock as string | undefined,
});

export const lock = defineCommand({
  meta: { name: "lock", description: "record a task's and rubric's digests in lock.json (commit it)" },
  args: { "task-id": { type: "string", description: "the task to lock" }, ...shared },
  run: ({ args }) =>
    emit(
      async () => {
        const id = need(args["task-id"], "--task-id");
        const w = await resolveWhere(where(args));
        return lockTask(w.store, id, w.lock);
      },
      (r) => `✓ locked ${(r as { task_id: string }).task_id}: commit ${(r as { lock: string }).lock}`,
    ),
});

export const run = defineCommand({
  meta: {
    name: "run",
    description: "run both arms blind on a locked held-out task (needs IDD_EVAL_AGENT=1)",
  },
  args: {
    "task-id": { type: "string", description: "the locked task" },
    baseline: { type: "string", description: "git ref of the baseline skills/" },
    candidate: { type: "string", description: "git ref of the candidate skills/" },
    "agent-config": { type: "string", description: "the agent config JSON" },
    runs: { type: "string", description: "runs per arm (default: the task's min_runs)" },
    seed: { type: "string", description: "the shuffle seed (default: random; omit it when you also grade)" },
    timeout: {
      type: "string",
      description: "seconds per run before its process group is killed (default 1800)",
    },
    sandbox: {
      type: "boolean",
      default: true,
      description: "sandbox the agent (bubblewrap); --no-sandbox opts out, recorded",
    },
    ...shared,
  },
  run: ({ args }) =>
    emit(
      () =>
        promotionRun({
          ...where(args),
          taskId: need(args["task-id"], "--task-id"),
          baseline: need(args.baseline, "--baseline"),
          candidate: need(args.candidate, "--candidate"),
          agentConfig: need(args["agent-config"], "--agent-config"),
          runs: int(args.runs, "--runs"),
          seed: int(args.seed, "--seed"),
          timeoutS: num(args.timeout, "--timeout"),
          sandbox: args.sandbox !== false,
          progress: isInteractive() ? (line) => process.stderr.write(`● ${line}\n`) : undefined,
        }),
      (r) => {
        const x = r as { run_dir: string; leaks: number; scores_template: string };
        return `${x.leaks ? "⚠" : "✓"} ${x.run_dir} (${x.leaks} leak(s)); graders fill ${x.scores_template}`;
      },
    ),
});

export const verdict = defineCommand({
  meta: { name: "verdict", description: "decide once from the graders' scores" },
  args: {
    "run-dir": { type: "string", description: "the run directory" },
    scores: { type: "string", description: "the filled scores JSON" },
    legacy: {
      type: "boolean",
      default: false,
      description: "decide a run written before sealed manifests (it stays unsealed)",
    },
    ...shared,
  },
  run: ({ args }) =>
    emit(
      () =>
        promotionVerdict({
          ...where(args),
          runDir: need(args["run-dir"], "--run-dir"),
          scores: need(args.scores, "--scores"),
          legacy: args.legacy === true,
        }),
      (r) => `● verdict: ${(r as { result: string }).result}`,
    ),
});

export const verify = defineCommand({
  meta: {
    name: "verify",
    description: "check every file and provenance against the sealed manifest, the sealed key and seed",
  },
  args: {
    "run-dir": { type: "string", description: "the run directory" },
    legacy: {
      type: "boolean",
      default: false,
      description: "a run written before sealed manifests: check provenance's artifacts only",
    },
    ...shared,
  },
  run: ({ args }) =>
    emit(
      () => promotionVerify(need(args["run-dir"], "--run-dir"), { legacy: args.legacy === true }),
      (r) => {
        const x = r as { verified: boolean; reason: string };
        return `${x.verified ? "✓" : "✗"} ${x.reason}`;
      },
    ),
});

export const plan = defineCommand({
  meta: { name: "plan", description: "runs per arm needed for 80% power, before spending money" },
  args: {
    baseline: { type: "string", description: "expected baseline pass rate (default 0.5)" },
    candidate: { type: "string", description: "one candidate pass rate (default: a grid 0.1..1.0)" },
    runs: { type: "string", description: "planned runs per arm: also print the smallest detectable rise" },
  },
  run: ({ args }) =>
    emit(
      () =>
        promotionPlan({
          baseline: num(args.baseline, "--baseline") ?? 0.5,
          candidate: num(args.candidate, "--candidate"),
          runs: int(args.runs, "--runs"),
        }),
      (r) => renderPlan(r as ReturnType<typeof promotionPlan>).trimEnd(),
    ),
});

// A repeated or unknown flag is refused before run(); it still answers with the JSON object.
for (const c of [lock, run, verdict, verify, plan])
  onFlagError(c, (e) =>
    emit(() => {
      throw e;
    }),
  );

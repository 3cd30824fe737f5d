// `agent-eval lock | run | verdict | verify | plan | report`: the promotion lane's command bodies
// (agent_eval.py's contract). Each prints one JSON object on stdout (sorted keys) and a human line on
// stderr; on failure the edge (lib/core/cli.ts, with PROMOTION_EDGE) prints `{"error", "exit",
// ...report}` instead. Exit codes 0/2/3/4, never 1. Flags are checked here rather than by citty
// (none is `required`), so even a missing flag answers with the JSON object.
import { resolve } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import type { ToolEdge } from "../core/cli.ts";
import { messageOf, UsageError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { createLogger, isInteractive } from "../core/log.ts";
import { checkReportPath, writeReport } from "../report/index.ts";
import { lockTask } from "./lock.ts";
import { ReportedError, resolveWhere } from "./options.ts";
import { promotionPlan, renderPlan } from "./plan.ts";
import { resultJson, stdoutJson, verdictJson } from "./records.ts";
import { loadPromotionRun, renderPromotionReportHtml } from "./report.ts";
import { promotionRun } from "./run.ts";
import { promotionVerdict, promotionVerify } from "./verdict.ts";

/** Every promotion subcommand's edge: the JSON object on stdout also on failure, exit 4 for 0/1/unexpected. */
export const PROMOTION_EDGE: ToolEdge = {
  remap: (e) => (e.exitCode === 0 || e.exitCode === 1 ? 4 : undefined),
  unexpectedExit: 4,
  envelope: (error, exit) => {
    const report = error instanceof ReportedError ? error.report : {};
    return `${stdoutJson({ ...report, error: messageOf(error).split("\n")[0], exit })}\n`;
  },
};

/** What each subcommand says of itself in --help. */
export const ABOUT = {
  lock: "record a task's and rubric's digests in lock.json (commit it)",
  run: "run both arms blind on a locked held-out task (needs IDD_EVAL_AGENT=1)",
  verdict: "decide once from the graders' scores",
  verify: "check every file and provenance against the sealed manifest, the sealed key and seed",
  plan: "runs per arm needed for 80% power, before spending money",
  report: "render a promotion run as one self-contained HTML file",
} as const;

const WHERE = {
  repo: { type: "string", description: "the git work tree (default: the one around the current directory)" },
  store: {
    type: "string",
    description: "the private store (default $IDD_PROMOTION_STORE, else <repo>/evals/promotion/private)",
  },
  lock: { type: "string", description: "the lock file (default <repo>/evals/promotion/lock.json)" },
} as const satisfies ArgsDef;

const runDir = { type: "string", description: "the run directory" } as const;

/** The flags of each subcommand. */
export const ARGS = {
  lock: { "task-id": { type: "string", description: "the task to lock" }, ...WHERE },
  run: {
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
    ...WHERE,
  },
  verdict: {
    "run-dir": runDir,
    scores: { type: "string", description: "the filled scores JSON" },
    legacy: {
      type: "boolean",
      default: false,
      description: "decide a run written before sealed manifests (it stays unsealed)",
    },
    ...WHERE,
  },
  verify: {
    "run-dir": runDir,
    legacy: {
      type: "boolean",
      default: false,
      description: "a run written before sealed manifests: check provenance's artifacts only",
    },
    ...WHERE,
  },
  plan: {
    baseline: { type: "string", description: "expected baseline pass rate (default 0.5)" },
    candidate: { type: "string", description: "one candidate pass rate (default: a grid 0.1..1.0)" },
    runs: { type: "string", description: "planned runs per arm: also print the smallest detectable rise" },
  },
  report: {
    run_dir: {
      type: "positional",
      required: false,
      description: "the run directory (<store>/runs/<run-id>)",
    },
    out: { type: "string", description: "where to write the report (default: RUN_DIR/report.html)" },
  },
} as const satisfies Record<string, ArgsDef>;

type Args<K extends keyof typeof ARGS> = ParsedArgs<(typeof ARGS)[K]>;

const log = () => createLogger("agent-eval");

/** Prints the result as the one JSON line and `line(result)` for people; exit 0. */
function emit<T extends object>(
  result: T,
  line: (r: T) => string,
  json: (r: T) => unknown = (r) => r,
): number {
  process.stdout.write(`${resultJson(json(result))}\n`);
  log().log(line(result));
  return 0;
}

function need(value: unknown, flag: string): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`missing ${flag}`);
  return value;
}

const where = (a: { repo?: string; store?: string; lock?: string }) => ({
  repo: a.repo,
  store: a.store,
  lock: a.lock,
});

/** `agent-eval lock`. */
export async function lockCmd(args: Args<"lock">): Promise<number> {
  const id = need(args["task-id"], "--task-id");
  const w = await resolveWhere(where(args));
  return emit(lockTask(w.store, id, w.lock), (r) => `✓ locked ${r.task_id}: commit ${r.lock}`);
}

/** `agent-eval run`. */
export async function runCmd(args: Args<"run">): Promise<number> {
  const progress = isInteractive() ? (line: string) => log().log(`● ${line}`) : undefined;
  const r = await promotionRun({
    ...where(args),
    taskId: need(args["task-id"], "--task-id"),
    baseline: need(args.baseline, "--baseline"),
    candidate: need(args.candidate, "--candidate"),
    agentConfig: need(args["agent-config"], "--agent-config"),
    runs: numberFlag("--runs", args.runs),
    seed: numberFlag("--seed", args.seed),
    timeoutS: numberFlag("--timeout", args.timeout, { integer: false }),
    sandbox: args.sandbox !== false,
    progress,
  });
  return emit(
    r,
    (x) => `${x.leaks ? "⚠" : "✓"} ${x.run_dir} (${x.leaks} leak(s)); graders fill ${x.scores_template}`,
  );
}

/** `agent-eval verdict`. */
export async function verdictCmd(args: Args<"verdict">): Promise<number> {
  const r = await promotionVerdict({
    ...where(args),
    runDir: need(args["run-dir"], "--run-dir"),
    scores: need(args.scores, "--scores"),
    legacy: args.legacy === true,
  });
  return emit(r, (x) => `● verdict: ${x.result}`, verdictJson);
}

/** `agent-eval verify`. */
export function verifyCmd(args: Args<"verify">): number {
  const r = promotionVerify(need(args["run-dir"], "--run-dir"), { legacy: args.legacy === true });
  return emit(r, (x) => `${x.verified ? "✓" : "✗"} ${x.reason}`);
}

/** `agent-eval plan`. */
export function planCmd(args: Args<"plan">): number {
  const r = promotionPlan({
    baseline: numberFlag("--baseline", args.baseline, { integer: false, fallback: 0.5 }),
    candidate: numberFlag("--candidate", args.candidate, { integer: false }),
    runs: numberFlag("--runs", args.runs),
  });
  return emit(r, (x) => renderPlan(x).trimEnd());
}

/** `agent-eval report RUN_DIR [--out FILE.html]`: one self-contained HTML page of a promotion run. */
export function reportCmd(args: Args<"report">): number {
  if (!args.run_dir) throw new UsageError("missing RUN_DIR: agent-eval report RUN_DIR [--out FILE.html]");
  const run = loadPromotionRun(args.run_dir);
  const out = resolve(args.out ?? `${run.runDir}/report.html`);
  checkReportPath(out, "--out");
  writeReport(out, renderPromotionReportHtml(run));
  const verdict = run.provenance.verdict?.result ?? null;
  return emit({ report: out, run_dir: run.runDir, verdict }, () => `✓ report written: ${out}`);
}

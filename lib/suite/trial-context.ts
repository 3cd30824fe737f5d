// What a trial of a task suite runs with: the job (task x variant x repeat), the context every trial
// of a run shares, the phase recorder and the shape of a task kind's phases; and how a phase's result
// reads in the trial: the original's stderr tail, the infra kind of a runner error, a timeout's words,
// the trial log's section, and secrets redacted. Split from trial.ts (which re-exports what others use)
// so agent-phase.ts and trial.ts share them without importing each other.
import type { PhaseResult, PhaseSpec, SuiteRunner } from "../isolation/contract.ts";
import { redactText } from "../redact/index.ts";
import type { Driver } from "./agents/index.ts";
import type { TrialJudge } from "./graders/index.ts";
import type { Prices } from "./meter/prices.ts";
import type { InfraKind, Trial } from "./scorecard/index.ts";
import type { Variant } from "./suite.ts";
import type { Task } from "./task.ts";
import type { Witness } from "./transcript/witness.ts";

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
  /** The host variable holding the model API key: the model bridge reads it, the agent gets a placeholder. */
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
  /** The price table the trial's meter uses (default: the built-in one, meter/prices.ts). */
  prices?: Prices;
}

/**
 * A trial's context with the phase recorder (each phase's result goes to the trial's log) and its
 * witness: the meter an agent phase puts on its model bridge, /work before and after the agent.
 */
export type Recording = TrialContext & { record: (phase: string, r: PhaseResult) => void; witness?: Witness };

/** How a kind of task runs its phases; `fail` keeps the first failure (and its infra kind). */
export type TaskPhases = (
  job: TrialJob,
  ctx: Recording,
  trial: Trial,
  fail: (error: string, infra?: InfraKind) => void,
) => Promise<void>;

/** The original's stderr tail (graders/exec.ts, so graders word a failed phase alike). */
export { stderrTail } from "./graders/exec.ts";

/** The kind of a runner's infraError: the run stopping under it, image missing, copy of /work, else container start. */
export function infraKindOf(message: string): InfraKind {
  if (/^cancelled\b/.test(message)) return "cancelled";
  if (/\bimage\b/i.test(message)) return "image";
  if (/\b(copy|cp|tar)\b/i.test(message)) return "copy";
  return "start";
}

/** A phase's timeout in the original's words, or undefined when it did not time out. */
export function execError(r: PhaseResult, timeoutMs: number): string | undefined {
  if (r.timedOut) return `timed out after ${timeoutMs / 1000}s`;
  return undefined;
}

/** The trial log's section for one phase: its status and duration, then stdout and stderr. */
export function logSection(phase: string, r: PhaseResult): string {
  const status = r.infraError
    ? `infrastructure: ${r.infraError}`
    : r.timedOut
      ? "timed out"
      : `exit ${r.exitCode ?? "none"}`;
  return `\n== ${phase}: ${status}, ${Math.round(r.durationMs)} ms\n-- stdout\n${r.stdout}\n-- stderr\n${r.stderr}\n`;
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

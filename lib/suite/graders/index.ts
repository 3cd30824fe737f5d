// The dispatch that grades one trial after its check: each of the task's graders (its own, then the
// suite's) in order, one Grade each. A grader that fails says why in `detail`; one that could not
// give a verdict sets `error` and never passes (the trial's graderError names the first). The judge
// grader hands the task prompt and the changed files to the suite's judge (lib/suite/judge/), given
// here as a function so this folder stays free of HTTP.
import type { Grade } from "../scorecard/schema.ts";
import { commandGrade } from "./command.ts";
import { changedPaths, diffGrade, type Snapshot, snapshot } from "./diff.ts";
import type { Exec } from "./exec.ts";
import { fileGrade } from "./file.ts";
import { type AnyGrader, needsSnapshot } from "./spec.ts";

export { type Snapshot, snapshot } from "./diff.ts";
export type { Exec } from "./exec.ts";
export { type AnyGrader, checkGraders, GraderSpec, needsSnapshot } from "./spec.ts";

/** What a judge sees of a trial: the task's prompt and each changed file (null content: deleted). */
export interface JudgeInput {
  prompt: string;
  changed: { path: string; content: string | null }[];
}

/** A judge's verdict on one trial against one rubric. */
export interface JudgeVerdict {
  /** The weighted score in [0, 1]. */
  score: number;
  /** Whether the score reaches the rubric's pass threshold. */
  pass: boolean;
  /** The rubric's `id@version`. */
  rubric: string;
  rationale: string;
  /** The seeded order the judge was shown the criteria and changed files in, kept on the grade. */
  order: { criteria: string[]; files: string[] };
}

/** Scores one trial against the rubric at `rubricPath`; throws when it cannot (a grader error). */
export type TrialJudge = (rubricPath: string, input: JudgeInput) => Promise<JudgeVerdict>;

/** What one trial's grading needs. */
export interface GradeContext {
  exec: Exec;
  prompt: string;
  /** The snapshot taken before the agent, when a diff or judge grader needs one. */
  before?: Snapshot;
  judge?: TrialJudge;
}

/** Where a trial's grades land: its `grades` and `graderError` (absent for check-only tasks). */
export interface Graded {
  grades?: Grade[];
  graderError?: string;
}

/**
 * Grading around the agent: called after setup, it snapshots /work when a grader needs the starting
 * state (or says why it could not); `finish` then runs the graders after the check, records their
 * grades on `trial` and returns the trial's pass: the check's and every grade's.
 */
export async function beginGrading(
  graders: readonly AnyGrader[],
  ctx: Omit<GradeContext, "before">,
): Promise<{ error: string } | { finish: (trial: Graded, checkPass: boolean) => Promise<boolean> }> {
  let before: Snapshot | undefined;
  if (needsSnapshot(graders)) {
    const snap = await snapshot(ctx.exec);
    if (!snap.ok) return { error: snap.error };
    before = snap.files;
  }
  return {
    async finish(trial, checkPass) {
      if (graders.length === 0) return checkPass;
      const grades = await gradeTrial(graders, { ...ctx, ...(before !== undefined ? { before } : {}) });
      trial.grades = grades;
      const error = firstGraderError(grades);
      if (error !== undefined) trial.graderError = error;
      return checkPass && grades.every((g) => g.pass);
    },
  };
}

/** The most of the change a judge is shown (the original's cap). */
export const JUDGE_INPUT_CAP = 64 * 1024;

/** The most changed files read for a judge: their paths go in one argv, which must stay small. */
export const JUDGE_MAX_FILES = 256;

/**
 * Reads the changed files (base64 per line, "-" when gone) in one phase, up to the cap; past
 * JUDGE_MAX_FILES paths the rest are left out (the content cap would have cut them anyway).
 */
async function readChanged(exec: Exec, all: readonly string[]): Promise<JudgeInput["changed"]> {
  const paths = all.slice(0, JUDGE_MAX_FILES);
  if (paths.length === 0) return [];
  const script =
    'for f in "$@"; do if [ -f "$f" ]; then base64 < "$f" | tr -d "\\n"; echo; else echo -; fi; done';
  const r = await exec(["sh", "-c", script, "sh", ...paths]);
  if (r.exitCode !== 0 || r.infraError || r.timedOut)
    throw new Error(`read the changed files: exit ${r.exitCode ?? -1}`);
  const lines = r.stdout.split("\n");
  let used = 0;
  return paths.map((path, i) => {
    const line = lines[i] ?? "-";
    if (line === "-") return { path, content: null };
    let content = Buffer.from(line, "base64").toString("utf8");
    const room = Math.max(JUDGE_INPUT_CAP - used, 0);
    if (content.length > room) content = `${content.slice(0, room)}\n[... truncated ...]`;
    used += content.length;
    return { path, content };
  });
}

/** Runs every grader on the trial's /work; never throws (whatever goes wrong is a grade's error). */
export async function gradeTrial(graders: readonly AnyGrader[], ctx: GradeContext): Promise<Grade[]> {
  let changed: string[] | undefined;
  let diffError: string | undefined;
  if (ctx.before !== undefined) {
    const after = await snapshot(ctx.exec);
    if (after.ok) changed = changedPaths(ctx.before, after.files);
    else diffError = after.error;
  }
  // Read in one phase the first time a judge grader asks: every judge grader of the trial is shown
  // the same /work, so a second rubric does not start another phase.
  let files: Promise<JudgeInput["changed"]> | undefined;
  const changedFiles = () => {
    files ??= readChanged(ctx.exec, changed ?? []);
    return files;
  };
  const out: Grade[] = [];
  for (const g of graders) {
    let grade: Grade;
    try {
      grade = await gradeOne(g, ctx, changed, diffError, changedFiles);
    } catch (error) {
      grade = { grader: g.type, pass: false, error: (error as Error).message };
    }
    if (grade.error !== undefined) grade.pass = false;
    out.push(grade);
  }
  return out;
}

async function gradeOne(
  g: AnyGrader,
  ctx: GradeContext,
  changed: string[] | undefined,
  diffError: string | undefined,
  changedFiles: () => Promise<JudgeInput["changed"]>,
): Promise<Grade> {
  switch (g.type) {
    case "command":
      return commandGrade(g.run, ctx.exec);
    case "file":
      return fileGrade(g, ctx.exec);
    case "diff":
      if (changed === undefined) return { grader: "diff", pass: false, error: diffError ?? "no snapshot" };
      return diffGrade(g, changed);
    case "judge": {
      const grader = `judge:${g.rubric}`;
      if (ctx.judge === undefined)
        return { grader, rubric: g.rubric, pass: false, error: "no judge configured (suite judge: block)" };
      if (changed === undefined)
        return { grader, rubric: g.rubric, pass: false, error: diffError ?? "no snapshot" };
      const v = await ctx.judge(g.rubricPath, {
        prompt: ctx.prompt,
        changed: await changedFiles(),
      });
      return {
        grader: `judge:${v.rubric}`,
        pass: v.pass,
        score: v.score,
        rubric: v.rubric,
        detail: v.rationale,
        order: v.order,
      };
    }
  }
}

/** The trial's graderError: the first grade without a verdict, as `<grader>: <why>`. */
export function firstGraderError(grades: readonly Grade[]): string | undefined {
  const g = grades.find((x) => x.error !== undefined && x.error !== "");
  return g ? `${g.grader ?? "grader"}: ${g.error}` : undefined;
}

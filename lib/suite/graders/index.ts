// The dispatch that grades one trial after its check: each of the task's graders (its own, then the
// suite's) in order, one Grade each. A grader that fails says why in `detail`; one that could not
// give a verdict sets `error` and never passes (the trial's graderError names the first). The judge
// grader hands the task prompt and its view of the change (view.ts) to the suite's judge
// (lib/suite/judge/), given here as a function so this folder stays free of HTTP.
import type { ChangedFile, ChangeView } from "../judge/prompt.ts";
import type { Grade } from "../scorecard/schema.ts";
import { commandGrade } from "./command.ts";
import { diffGrade, snapshot } from "./diff.ts";
import type { Exec } from "./exec.ts";
import { fileGrade } from "./file.ts";
import { type Change, changes, type Snapshot } from "./snapshot.ts";
import { type AnyGrader, needsSnapshot } from "./spec.ts";
import { judgeView, type ShownRecord } from "./view.ts";

export { snapshot } from "./diff.ts";
export type { Exec } from "./exec.ts";
export type { Snapshot } from "./snapshot.ts";
export { type AnyGrader, checkGraders, GraderSpec, needsSnapshot } from "./spec.ts";
export { JUDGE_INPUT_CAP, JUDGE_MAX_FILES, OMITTED_LISTED } from "./view.ts";

/** What a judge sees of a trial: the task's prompt, the changed files shown, the whole change's view. */
export interface JudgeInput {
  prompt: string;
  changed: ChangedFile[];
  view: ChangeView;
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
  /** The task's check command, whose named paths the judge is shown early. */
  check?: string;
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

/** Runs every grader on the trial's /work; never throws (whatever goes wrong is a grade's error). */
export async function gradeTrial(graders: readonly AnyGrader[], ctx: GradeContext): Promise<Grade[]> {
  let changed: Change[] | undefined;
  let diffError: string | undefined;
  if (ctx.before !== undefined) {
    const after = await snapshot(ctx.exec);
    if (after.ok) changed = changes(ctx.before, after.files);
    else diffError = after.error;
  }
  // Read in one phase the first time a judge grader asks: every judge grader of the trial is shown
  // the same /work, so a second rubric does not start another phase.
  let view: ReturnType<typeof judgeView> | undefined;
  const changedFiles = () => {
    view ??= judgeView(ctx.exec, changed ?? [], {
      graders,
      ...(ctx.check !== undefined ? { check: ctx.check } : {}),
    });
    return view;
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
  changed: Change[] | undefined,
  diffError: string | undefined,
  changedFiles: () => ReturnType<typeof judgeView>,
): Promise<Grade> {
  switch (g.type) {
    case "command":
      return commandGrade(g.run, ctx.exec);
    case "file":
      return fileGrade(g, ctx.exec);
    case "diff":
      if (changed === undefined) return { grader: "diff", pass: false, error: diffError ?? "no snapshot" };
      return diffGrade(
        g,
        changed.map((c) => c.path),
      );
    case "judge": {
      const grader = `judge:${g.rubric}`;
      if (ctx.judge === undefined)
        return { grader, rubric: g.rubric, pass: false, error: "no judge configured (suite judge: block)" };
      if (changed === undefined)
        return { grader, rubric: g.rubric, pass: false, error: diffError ?? "no snapshot" };
      const { changed: files, view, shown } = await changedFiles();
      const v = await ctx.judge(g.rubricPath, { prompt: ctx.prompt, changed: files, view });
      return {
        grader: `judge:${v.rubric}`,
        pass: v.pass,
        score: v.score,
        rubric: v.rubric,
        detail: v.rationale,
        order: v.order,
        shown: shown satisfies ShownRecord,
      };
    }
  }
}

/** The trial's graderError: the first grade without a verdict, as `<grader>: <why>`. */
export function firstGraderError(grades: readonly Grade[]): string | undefined {
  const g = grades.find((x) => x.error !== undefined && x.error !== "");
  return g ? `${g.grader ?? "grader"}: ${g.error}` : undefined;
}

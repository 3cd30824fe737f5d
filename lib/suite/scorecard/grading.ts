// A variant's grading and tool-use figures, as the newer original reports them per variant:
// `toolCalls` (the sum over its trials), `gradeErrors` (trials whose graderError is set: a grader gave
// no verdict, counted as not passed and apart from failures) and `judgeScore` (the mean judge score
// over every judged grade). Each appears only when the trials carry it, so a scorecard of a run
// without graders, or of trials written before tool calls were counted, keeps its old bytes.
import type { JudgeInfo, Trial, VariantScore } from "./schema.ts";

/** The fields a run's trials support: graders ran when any trial of the run carries grades. */
export interface GradingScope {
  graded: boolean;
}

/** Whether any trial of a run was graded (it then reports gradeErrors for every variant, 0 included). */
export function gradingScope(trials: readonly Trial[]): GradingScope {
  return { graded: trials.some((t) => t.grades !== undefined || t.graderError !== undefined) };
}

/** toolCalls, gradeErrors and judgeScore of one variant's trials (all of them, infra failures too). */
export function gradingFields(
  trials: readonly Trial[],
  scope: GradingScope,
): Pick<VariantScore, "toolCalls" | "gradeErrors" | "judgeScore"> {
  const out: Pick<VariantScore, "toolCalls" | "gradeErrors" | "judgeScore"> = {};
  const counted = trials.filter((t) => t.toolCalls !== undefined && !t.unreported?.includes("toolCalls"));
  if (counted.length > 0) out.toolCalls = counted.reduce((n, t) => n + t.toolCalls!, 0);
  if (scope.graded) out.gradeErrors = trials.filter((t) => (t.graderError ?? "") !== "").length;
  const scores = trials.flatMap((t) =>
    (t.grades ?? []).flatMap((g) => (g.score === undefined ? [] : [g.score])),
  );
  // Summed as x/n term by term, as the original did, so the mean has its exact bits.
  if (scores.length > 0) out.judgeScore = scores.reduce((m, x) => m + x / scores.length, 0);
  return out;
}

/**
 * The run's judge as the original's scorecard names it: the suite's judge model and wire, and every
 * rubric id@version that graded a trial, sorted; undefined when no grade names a rubric.
 */
export function judgeInfo(
  trials: readonly Trial[],
  judge: { model: string; wire: string } | undefined,
): JudgeInfo | undefined {
  const refs = new Set<string>();
  for (const t of trials) for (const g of t.grades ?? []) if (g.rubric) refs.add(g.rubric);
  if (refs.size === 0) return undefined;
  const rubrics = [...refs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { model: judge?.model ?? "", ...(judge ? { wire: judge.wire } : {}), rubrics };
}

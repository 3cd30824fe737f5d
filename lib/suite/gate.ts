// The release gate: the suite's `gate:` key (the original halo eval's keys, unchanged) and the
// ship / hold / block decision of one candidate against the control. Pass-rate margins are absolute
// (0.05 = 5 points); cost, tokens, wall and tool-call limits are relative increases over the
// baseline mean (0.2 = +20%) and gate only when set.
import { z } from "zod";

const share = z.number().min(0);

/** The `gate:` key of a suite.yaml. */
export const GateFile = z
  .object({
    max_pass_drop: share
      .optional()
      .describe(
        "non-inferiority margin on the paired pass rate: ship needs the interval's low end >= -this (default 0.05)",
      ),
    max_cost_increase: share
      .optional()
      .describe("relative cost increase allowed (0.25 = +25%); unset: not gated"),
    max_tokens_increase: share.optional(),
    max_wall_increase: share.optional(),
    max_tool_calls_increase: share.optional(),
    task_regression: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("per-task pass-rate drop that marks a task regressed (default 0.5)"),
    max_regressed_tasks: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("more regressed tasks than this blocks (default 0)"),
    min_tasks: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("fewest non-flaky tasks a ship or block needs (default 1)"),
  })
  .strict();
export type GateFile = z.infer<typeof GateFile>;

/** The gate with defaults applied, as the original's (0 in task_regression/min_tasks means the default). */
export interface Thresholds {
  maxPassDrop: number;
  maxCostIncrease?: number;
  maxTokensIncrease?: number;
  maxWallIncrease?: number;
  maxToolCallsIncrease?: number;
  taskRegression: number;
  maxRegressedTasks: number;
  minTasks: number;
}

/** Defaults as the original: 5-point margin, a task regressed at a 50-point drop, none allowed, 1 task. */
export function thresholdsOf(gate: GateFile | undefined): Thresholds {
  const g = gate ?? {};
  const t: Thresholds = {
    maxPassDrop: g.max_pass_drop ?? 0.05,
    taskRegression: g.task_regression || 0.5,
    maxRegressedTasks: g.max_regressed_tasks ?? 0,
    minTasks: g.min_tasks || 1,
  };
  if (g.max_cost_increase !== undefined) t.maxCostIncrease = g.max_cost_increase;
  if (g.max_tokens_increase !== undefined) t.maxTokensIncrease = g.max_tokens_increase;
  if (g.max_wall_increase !== undefined) t.maxWallIncrease = g.max_wall_increase;
  if (g.max_tool_calls_increase !== undefined) t.maxToolCallsIncrease = g.max_tool_calls_increase;
  return t;
}

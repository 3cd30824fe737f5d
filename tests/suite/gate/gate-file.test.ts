// The `gate:` key: the original's keys load, defaults are the original's, bad values are refused.
import { describe, expect, test } from "bun:test";
import { GateFile, thresholdsOf } from "../../../lib/suite/gate.ts";

describe("GateFile", () => {
  const cases = [
    {
      name: "absent: the original's defaults",
      gate: undefined,
      want: { maxPassDrop: 0.05, taskRegression: 0.5, maxRegressedTasks: 0, minTasks: 1 },
    },
    {
      name: "the matrix fixture's gate",
      gate: { max_pass_drop: 0.1, max_cost_increase: 0.25 },
      want: {
        maxPassDrop: 0.1,
        maxCostIncrease: 0.25,
        taskRegression: 0.5,
        maxRegressedTasks: 0,
        minTasks: 1,
      },
    },
    {
      name: "every key",
      gate: {
        max_pass_drop: 0,
        max_cost_increase: 0.2,
        max_tokens_increase: 0.3,
        max_wall_increase: 0.4,
        max_tool_calls_increase: 0.5,
        task_regression: 0.34,
        max_regressed_tasks: 2,
        min_tasks: 5,
      },
      want: {
        maxPassDrop: 0,
        maxCostIncrease: 0.2,
        maxTokensIncrease: 0.3,
        maxWallIncrease: 0.4,
        maxToolCallsIncrease: 0.5,
        taskRegression: 0.34,
        maxRegressedTasks: 2,
        minTasks: 5,
      },
    },
    {
      name: "zero task_regression and min_tasks mean the default",
      gate: { task_regression: 0, min_tasks: 0 },
      want: { maxPassDrop: 0.05, taskRegression: 0.5, maxRegressedTasks: 0, minTasks: 1 },
    },
  ];
  test.each(cases)("$name", ({ gate, want }) => {
    expect(thresholdsOf(gate === undefined ? undefined : GateFile.parse(gate))).toEqual(want);
  });

  const bad = [
    { name: "negative margin", gate: { max_pass_drop: -0.1 }, path: ["max_pass_drop"] },
    { name: "task_regression above 1", gate: { task_regression: 1.5 }, path: ["task_regression"] },
    {
      name: "fractional max_regressed_tasks",
      gate: { max_regressed_tasks: 1.5 },
      path: ["max_regressed_tasks"],
    },
    { name: "negative min_tasks", gate: { min_tasks: -1 }, path: ["min_tasks"] },
    { name: "unknown key", gate: { max_pass_dorp: 0.1 }, path: [] },
    { name: "string for a number", gate: { max_cost_increase: "20%" }, path: ["max_cost_increase"] },
  ];
  test.each(bad)("refuses $name", ({ gate, path }) => {
    const r = GateFile.safeParse(gate);
    expect(r.success).toEqual(false);
    expect(r.error?.issues[0]?.path).toEqual(path);
  });
});

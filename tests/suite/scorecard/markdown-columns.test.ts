// The Markdown scorecard at repeats: 1 (issue 26): pass@1 and pass^1 beside pass@1, and a task
// interval that is the pass@1 interval again, were columns that only repeated one; both layouts drop
// them when k is 1 (or each task ran once) and keep them above. And a per-task table says which tasks
// each pass rate is made of: passed/scored trials, infrastructure failures beside.
import { expect, test } from "bun:test";
import { applyGate, thresholdsOf } from "../../../lib/suite/gate.ts";
import { buildScorecard, renderMarkdown, type Trial } from "../../../lib/suite/scorecard/index.ts";

function trials(repeats: number): Trial[] {
  const out: Trial[] = [];
  for (const task of ["t1", "t2"])
    for (const variant of ["control", "new"])
      for (let repeat = 0; repeat < repeats; repeat++)
        out.push({
          task,
          variant,
          repeat,
          pass: variant === "new" || task === "t1",
          costUSD: 0.1,
          turns: 2,
          wallMs: 1000,
          tokens: 10,
          toolErrors: 0,
          toolCalls: 1,
          ...(task === "t2" && variant === "new" && repeat === 0
            ? { infra: "start" as const, pass: false }
            : {}),
        });
  return out;
}

const headerOf = (md: string) => md.split("\n").find((l) => l.startsWith("| Variant | Trials")) ?? "";
const section = (md: string, title: string) => {
  const at = md.indexOf(title);
  return at < 0 ? "" : md.slice(at, md.indexOf("\n\n", md.indexOf("|", at)) + 1);
};

test.each([
  {
    repeats: 1,
    plain:
      "| Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool errors | Errors | Mean turns | Cost/task (task CI) | Wall mean (task CI) | Infra failures |",
    gated:
      "| Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool calls | Tool errors | Errors |",
    tasks:
      "## Per task (passed/scored trials)\n\n| Task | control | new |\n|---|---|---|\n| t1 | 1/1 | 1/1 |\n| t2 | 0/1 | 0/0 +1 infra |\n",
  },
  {
    repeats: 2,
    plain:
      "| Variant | Trials | pass@1 (95% CI) | Cost/task | Wall p50 | Wall p95 | Tool errors | Errors | Mean turns | pass@2 | pass^2 | pass@1 (task CI) | Cost/task (task CI) | Wall mean (task CI) | Infra failures |",
    gated:
      "| Variant | Trials | pass@1 (95% CI) | pass@2 | pass^2 | Cost/task | Wall p50 | Wall p95 | Tool calls | Tool errors | Errors |",
    tasks:
      "## Per task (passed/scored trials)\n\n| Task | control | new |\n|---|---|---|\n| t1 | 2/2 | 2/2 |\n| t2 | 0/2 | 1/1 +1 infra |\n",
  },
])("repeats: $repeats", ({ repeats, plain, gated, tasks }) => {
  const sc = buildScorecard("s", "control", ["control", "new"], trials(repeats), { seed: 1, k: repeats });
  const withGate = applyGate(sc, thresholdsOf({}));
  const md = renderMarkdown(sc);
  expect({
    plain: headerOf(md),
    gated: headerOf(renderMarkdown(withGate)),
    tasks: section(md, "## Per task"),
    gatedTasks: section(renderMarkdown(withGate), "## Per task"),
  }).toEqual({ plain, gated, tasks, gatedTasks: tasks });
});

// What a run sets aside before its first trial, without an engine: a task that needs the internet
// under --network none (named by the key that asks for it), the suite left with the others and the
// skipped lines, refused when nothing is left; and `tasks check`'s rows for tasks it could not check.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { judge, renderCheck, skippedRow } from "../../../lib/suite/harbor/check.ts";
import { keep, skipByNetwork } from "../../../lib/suite/harbor/preflight.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import { scoreSuite } from "../../../lib/suite/run.ts";
import type { Trial } from "../../../lib/suite/scorecard/index.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { trialOf } from "../_support.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const tasks = ["fix-add", "needs-internet", "partial-credit"].map((n) => loadHarborTask(join(FIXTURES, n)));
const INTERNET = {
  task: "needs-internet",
  reason:
    "task.toml: environment.allow_internet: the task reaches the internet; run with --network bridge to let it",
  broken: false,
};

test.each<{ name: string; network: "none" | "bridge"; expected: unknown }>([
  {
    name: "--network none sets the internet task aside",
    network: "none",
    expected: { tasks: ["fix-add", "partial-credit"], skipped: [INTERNET] },
  },
  {
    name: "--network bridge keeps it",
    network: "bridge",
    expected: { tasks: ["fix-add", "needs-internet", "partial-credit"], skipped: [] },
  },
])("$name", ({ network, expected }) => {
  const kept = skipByNetwork(tasks, network);
  expect({ tasks: kept.tasks.map((t) => t.id), skipped: kept.skipped } as unknown).toEqual(expected);
});

test("a suite keeps the rest and adds the skipped lines to its own; nothing left is refused", () => {
  const earlier = { task: "web-stack", reason: "environment/docker-compose.yaml: x", broken: false };
  const suite = { name: "s", tasks, skipped: [earlier] };
  const kept = keep(suite, skipByNetwork(tasks, "none"));
  let none = "";
  try {
    keep({ name: "s", tasks: [tasks[1]!] }, skipByNetwork([tasks[1]!], "none"));
  } catch (error) {
    none = (error as Error).message;
  }
  expect({ tasks: kept.tasks.map((t) => t.id), skipped: kept.skipped, none }).toEqual({
    tasks: ["fix-add", "partial-credit"],
    skipped: [earlier, INTERNET],
    none: `suite s: every task is skipped: needs-internet: ${INTERNET.reason}`,
  });
});

const trial = (o: Partial<Trial>): Trial => trialOf("v", "t", { wallMs: 0, ...o });

test("the scorecard lists the tasks a run went without, with their lines (loaded, then set aside)", () => {
  using tmp = tempDir("harbor-skip-scorecard");
  const file = join(tmp.path, "suite.yaml");
  writeFileSync(
    file,
    "name: s\ntasks: [tb-dataset, needs-internet]\nvariants:\n  - {name: a, harness: nop}\n",
  );
  const loaded = loadSuite(file, { tasksDir: FIXTURES });
  const suite = keep(loaded, skipByNetwork(loaded.tasks, "none"));
  const trials = suite.tasks.map((t) => trialOf("a", t.id, { wallMs: 1 }));
  expect({
    tasks: suite.tasks.map((t) => t.id),
    skipped: scoreSuite(suite, trials, { seed: 1 }).skipped,
  }).toEqual({
    tasks: ["hello-file", "sum-numbers"],
    skipped: [
      {
        task: "web-stack",
        reason:
          "environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
      },
      { task: "needs-internet", reason: INTERNET.reason },
    ],
  });
});

test("tasks check: a skipped task is its own row, counted apart; only a task at fault is broken", () => {
  const rows = [
    judge("fix-add", trial({}), trial({ pass: true, reward: 1 })),
    skippedRow({
      task: "bad-toml",
      reason: "task.toml: agent.timeout_sec: expected > 0, got -5",
      broken: true,
    }),
    skippedRow(INTERNET),
    skippedRow({
      task: "web-stack",
      reason:
        "environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
      broken: false,
    }),
  ];
  expect(renderCheck(rows)).toEqual(
    [
      "task            nop     oracle  status",
      "fix-add         fail    pass    ok",
      "bad-toml        -       -       broken: task.toml: agent.timeout_sec: expected > 0, got -5",
      `needs-internet  -       -       skipped: ${INTERNET.reason}`,
      "web-stack       -       -       skipped: environment/docker-compose.yaml: multi-container environments (docker compose) are not supported here",
      "1 of 4 tasks ok, 1 broken, 2 skipped",
      "",
    ].join("\n"),
  );
});

// Graders wired into trials and runs on the LocalRunner (--local) with the stub agent: a graded task
// without a check passes only when every grader does; the suite's graders apply to every task; a
// judge grader goes through the suite's `judge:` key to the mock model over the real wire; and the
// scorecard gains toolCalls, gradeErrors and judgeScore per variant (Markdown columns too).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localRunner } from "../../../lib/isolation/local.ts";
import { runSuite, type SuiteRunOptions } from "../../../lib/suite/run.ts";
import { renderMarkdown } from "../../../lib/suite/scorecard/index.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { loadTask } from "../../../lib/suite/task.ts";
import { runTrial } from "../../../lib/suite/trial.ts";
import { type MockModel, startMockModel, text } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";
import { ADD_REPO, evalsTree, recording, stubContext, stubDriver } from "../_support.ts";

const GRADED = `id: fix-add
repo: repo
prompt: fix add.sh
graders:
  - {type: command, run: sh test.sh}
  - {type: file, path: add.sh, contains: ["$1 + $2"], not_contains: ["$1 - $2"]}
  - {type: diff, max_files_changed: 1, must_change: [add.sh], must_not_change: ["test*"]}
`;

const context = (runner = localRunner()) => stubContext({ runId: "g1", runner });

describe("a graded task without a check", () => {
  const cases = [
    {
      model: "fixer",
      want: {
        pass: true,
        grades: [
          { grader: "command", pass: true },
          { grader: "file:add.sh", pass: true },
          { grader: "diff", pass: true, detail: "1 files changed" },
        ],
      },
    },
    {
      model: "noop",
      want: {
        pass: false,
        grades: [
          { grader: "command", pass: false, detail: "exit 1: " },
          { grader: "file:add.sh", pass: false, detail: 'add.sh does not contain "$1 + $2"' },
          { grader: "diff", pass: false, detail: "nothing matching add.sh changed" },
        ],
      },
    },
  ];
  for (const c of cases)
    test.concurrent(`${c.model}: the grades decide; phases: snapshot, agent, snapshot, command, file`, async () => {
      using dir = tempDir("graded-trial");
      const task = loadTask(evalsTree(dir.path).task("fix-add", GRADED, ADD_REPO));
      const rec = recording(localRunner());
      const trial = await runTrial(
        { task, variant: { name: c.model, harness: "claude", model: c.model }, repeat: 0 },
        { ...context(rec), repoDir: task.repoDir ?? undefined },
      );
      expect({
        pass: trial.pass,
        grades: trial.grades,
        graderError: trial.graderError,
        phases: rec.calls.map((k) => `${k.phase}:${k.argv[0]}`),
      }).toEqual({
        ...c.want,
        graderError: undefined,
        phases: ["check:sh", "agent:sh", "check:sh", "check:sh", "check:cat"],
      });
    });
});

test("a grade quoting a --pass-env value the agent left in /work is redacted", async () => {
  using dir = tempDir("graded-trial");
  process.env.PROCTOR_GRADER_SECRET = "s3cr3t-grader-value";
  const task = loadTask(
    evalsTree(dir.path).task(
      "fix-add",
      "id: fix-add\nrepo: repo\nprompt: p\ngraders:\n  - {type: command, run: 'sed -n s/^PROCTOR_GRADER_SECRET=//p agent-env.txt >&2; exit 1'}\n",
      ADD_REPO,
    ),
  );
  const trial = await runTrial(
    { task, variant: { name: "env", harness: "claude", model: "env" }, repeat: 0 },
    { ...context(), repoDir: task.repoDir ?? undefined, passEnv: ["PROCTOR_GRADER_SECRET"] },
  );
  delete process.env.PROCTOR_GRADER_SECRET;
  expect(trial.grades).toEqual([
    {
      grader: "command",
      pass: false,
      detail: "exit 1: [REDACTED:PROCTOR_GRADER_SECRET]",
    },
  ]);
});

describe("a suite with graders and a judge over the mock model", () => {
  let mock: MockModel;
  beforeAll(async () => {
    // Only a request whose auth header carries the key reaches the verdict script ("keyed").
    mock = await startMockModel({ script: () => text("no key, no verdict") });
    mock.scenario(
      "judge-key-123456",
      (req) =>
        text(
          JSON.stringify({
            scores: { correctness: JSON.stringify(req.body).includes("$1 + $2") ? 1 : 0 },
            rationale: "looked at add.sh",
          }),
        ),
      "keyed",
    );
  });
  afterAll(async () => {
    delete process.env.PROCTOR_GRADER_JUDGE_KEY;
    await mock.close();
  });

  function suite(root: string, judge: string): string {
    const tree = evalsTree(root);
    tree.task("fix-add", "id: fix-add\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n", ADD_REPO);
    tree.task("other", "id: other\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n", ADD_REPO);
    mkdirSync(join(root, "rubrics"));
    writeFileSync(
      join(root, "rubrics", "q.yaml"),
      'id: q\nversion: "3"\npass_threshold: 0.5\ncriteria: [{name: correctness}]\n',
    );
    return tree.suite(
      "graded",
      `name: graded
tasks: [fix-add, other]
repeats: 2
k: 1
seed: 7
${judge}
graders:
  - {type: diff, must_not_change: ["test.sh"]}
  - {type: judge, rubric: ../rubrics/q.yaml}
variants:
  - {name: control, harness: claude, model: noop}
  - {name: fixer, harness: claude, model: fixer, provider: stub}
`,
    );
  }

  const options = (): SuiteRunOptions => ({
    runner: localRunner(),
    local: true,
    drivers: { claude: stubDriver() },
    modelUrl: () => "http://127.0.0.1:9",
    seed: 7,
  });

  test("the judge scores each trial; pass needs the check and every grade; the scorecard counts them", async () => {
    using dir = tempDir("graded-suite");
    process.env.PROCTOR_GRADER_JUDGE_KEY = "judge-key-123456";
    const s = loadSuite(
      suite(
        dir.path,
        `judge: {url: "${mock.url}", wire: anthropic-messages, model: judge-1, api_key_env: PROCTOR_GRADER_JUDGE_KEY}`,
      ),
    );
    const { trials, scorecard } = await runSuite(s, options());
    const row = (name: string) => {
      const v = scorecard.variants.find((x) => x.name === name)!;
      return {
        k: v.k,
        toolCalls: v.toolCalls,
        gradeErrors: v.gradeErrors,
        judgeScore: v.judgeScore,
        pass1: v.pass1,
      };
    };
    const md = renderMarkdown(scorecard);
    expect({
      grades: trials.map(
        (t) =>
          `${t.variant}:${t.pass}:${(t.grades ?? []).map((g) => `${g.grader}=${g.pass}/${g.score ?? "-"}`).join(",")}`,
      ),
      control: row("control"),
      fixer: row("fixer"),
      md: md
        .split("\n")
        .filter((l) => l.startsWith("| control") || l.startsWith("| Variant |"))[0]!
        .includes("Grade errors | Judge score"),
      auth: [mock.requests.at(-1)!.auth, mock.requests.at(-1)!.scenario],
      judge: scorecard.judge,
      providers: scorecard.variants.map((v) => v.provider),
    }).toEqual({
      grades: [
        "control:false:diff=true/-,judge:q@3=false/0",
        "control:false:diff=true/-,judge:q@3=false/0",
        "fixer:true:diff=true/-,judge:q@3=true/1",
        "fixer:true:diff=true/-,judge:q@3=true/1",
        "control:false:diff=true/-,judge:q@3=false/0",
        "control:false:diff=true/-,judge:q@3=false/0",
        "fixer:true:diff=true/-,judge:q@3=true/1",
        "fixer:true:diff=true/-,judge:q@3=true/1",
      ],
      control: { k: 1, toolCalls: 0, gradeErrors: 0, judgeScore: 0, pass1: 0 },
      fixer: { k: 1, toolCalls: 0, gradeErrors: 0, judgeScore: 1, pass1: 1 },
      md: true,
      auth: ["x-api-key", "keyed"],
      judge: { model: "judge-1", wire: "anthropic-messages", rubrics: ["q@3"] },
      providers: [undefined, "stub"],
    });
  });

  test("a judge that answers out of schema is a grade error: counted, never a pass", async () => {
    using dir = tempDir("graded-suite");
    await using bad = await startMockModel({ script: () => text("looks fine to me") });
    process.env.PROCTOR_GRADER_JUDGE_KEY = "judge-key-123456";
    const s = loadSuite(
      suite(
        dir.path,
        `judge: {url: "${bad.url}", wire: openai-responses, model: judge-1, api_key_env: PROCTOR_GRADER_JUDGE_KEY}`,
      ),
    );
    const { trials, scorecard } = await runSuite(s, { ...options(), parallel: 1 });
    expect({
      passes: trials.map((t) => t.pass),
      errors: [...new Set(trials.map((t) => t.graderError?.split(":")[0]))],
      gradeErrors: scorecard.variants.map((v) => [v.name, v.gradeErrors, v.judgeScore]),
    }).toEqual({
      passes: [false, false, false, false, false, false, false, false],
      errors: ["judge"],
      gradeErrors: [
        ["control", 4, undefined],
        ["fixer", 4, undefined],
      ],
    });
  });
});

// Per-variant toolCalls, gradeErrors and judgeScore (the newer original's VariantScore fields):
// present only when the trials carry them, so an ungraded run's scorecard keeps its bytes; a grader
// error counts once per trial; the judge score is the mean over every judged grade of the variant.
import { expect, test } from "bun:test";
import { judgeInfo } from "../../../lib/suite/scorecard/grading.ts";
import { buildScorecard, renderMarkdown, type Trial } from "../../../lib/suite/scorecard/index.ts";
import type { Grade, JudgeInfo } from "../../../lib/suite/scorecard/schema.ts";
import { trialOf } from "../_support.ts";

const trial = (variant: string, task: string, over: Partial<Trial> = {}): Trial =>
  trialOf(variant, task, { turns: 1, ...over });
const judged = (score: number) => ({ grader: "judge:q@1", pass: score >= 0.7, score, rubric: "q@1" });

const cases: { name: string; trials: Trial[]; want: Record<string, number>[] }[] = [
  {
    name: "no graders, no tool calls: none of the fields",
    trials: [trial("a", "t"), trial("b", "t")],
    want: [{}, {}],
  },
  {
    name: "tool calls summed; a trial whose CLI does not report them is left out",
    trials: [
      trial("a", "t", { toolCalls: 3 }),
      trial("a", "u", { toolCalls: 4 }),
      trial("b", "t", { toolCalls: 0, unreported: ["toolCalls"] }),
    ],
    want: [{ toolCalls: 7 }, {}],
  },
  {
    name: "graded run: every variant gets gradeErrors, 0 included; judgeScore only where judged",
    trials: [
      trial("a", "t", { grades: [{ grader: "diff", pass: true }] }),
      trial("b", "t", { grades: [judged(0.9), judged(0.3)] }),
      trial("b", "u", { grades: [judged(0.6)] }),
    ],
    want: [{ gradeErrors: 0 }, { gradeErrors: 0, judgeScore: 0.6 }],
  },
  {
    name: "grader errors: one per trial, whatever the number of failing grades",
    trials: [
      trial("a", "t", {
        graderError: "judge:q@1: judge: HTTP 500",
        grades: [
          { grader: "judge:q@1", pass: false, error: "judge: HTTP 500" },
          { grader: "file:a", pass: false, error: "read a: boom" },
        ],
      }),
      trial("a", "u", { graderError: "snapshot (exit 1, err <nil>): no find" }),
      trial("b", "t", { grades: [judged(1)] }),
    ],
    want: [{ gradeErrors: 2 }, { gradeErrors: 0, judgeScore: 1 }],
  },
];
test.each(cases)("$name", ({ trials, want }) => {
  const sc = buildScorecard("s", "a", ["a", "b"], trials);
  const pick = (v: (typeof sc.variants)[number]) =>
    Object.fromEntries(
      (["toolCalls", "gradeErrors", "judgeScore"] as const)
        .filter((k) => v[k] !== undefined)
        .map((k) => [k, v[k]]),
    );
  expect(sc.variants.map(pick)).toEqual(want);
});

test("the Markdown gains Grade errors and Judge score columns only for a graded run", () => {
  const graded = buildScorecard("s", "a", ["a"], [trial("a", "t", { grades: [judged(0.75)] })]);
  const plain = buildScorecard("s", "a", ["a"], [trial("a", "t", { toolCalls: 2 })]);
  const header = (md: string) => md.split("\n").find((l) => l.startsWith("| Variant | Trials"))!;
  const row = (md: string) => md.split("\n").find((l) => l.startsWith("| a |"))!;
  expect({
    graded: [
      header(renderMarkdown(graded)).endsWith("| Grade errors | Judge score |"),
      row(renderMarkdown(graded)).endsWith("| 0 | 0.75 |"),
    ],
    plain:
      header(renderMarkdown(plain)).includes("Grade errors") ||
      header(renderMarkdown(plain)).includes("Tool calls"),
  }).toEqual({ graded: [true, true], plain: false });
});

const infoCases: {
  name: string;
  grades: Grade[][];
  judge: { model: string; wire: string } | undefined;
  want: JudgeInfo | undefined;
}[] = [
  {
    name: "nothing judged: no judge",
    grades: [[{ grader: "diff", pass: true }]],
    judge: undefined,
    want: undefined,
  },
  {
    name: "rubrics sorted and once each, with the suite's judge",
    grades: [[judged(1), { grader: "judge:a@2", pass: true, rubric: "a@2" }], [judged(0)]],
    judge: { model: "m-1", wire: "anthropic-messages" },
    want: { model: "m-1", wire: "anthropic-messages", rubrics: ["a@2", "q@1"] },
  },
  {
    name: "a graded rubric without a suite judge (the grades' errors say why): model empty, as the original",
    grades: [
      [
        {
          grader: "judge:q@1",
          pass: false,
          rubric: "q@1",
          error: "no judge configured (suite judge: block)",
        },
      ],
    ],
    judge: undefined,
    want: { model: "", rubrics: ["q@1"] },
  },
];
test.each(infoCases)("judgeInfo: $name", ({ grades, judge, want }) => {
  expect(
    judgeInfo(
      grades.map((g, i) => trial("a", `t${i}`, { grades: g })),
      judge,
    ),
  ).toEqual(want);
});

// Issue 22: a tampered Harbor trial is a fail on the agent's merits: scored in pass@1 and the paired
// comparison like any fail, counted apart per variant, never an infrastructure failure, and named
// with its paths in the Markdown (plain and gated). Tasks the run went without are listed with their
// reasons. The JSON keeps both through the file and back.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildScorecard,
  loadScorecard,
  renderMarkdown,
  type Scorecard,
  type ScorecardOptions,
  type SkippedTask,
  scorecardJson,
  skippedField,
  type Trial,
} from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { trialOf } from "../_support.ts";

const trial = (variant: string, task: string, repeat: number, pass: boolean, over: Partial<Trial> = {}) =>
  trialOf(variant, task, { repeat, pass, ...over });

const BASH = "C /usr/bin/bash: the verifier's interpreter";
const tampered = (repeat: number, paths = [BASH]) =>
  trial("agent", "t", repeat, false, {
    tampered: paths,
    error: `tampered: the agent changed what the verifier relies on: ${paths.join("; ")}`,
  });
const passed = (repeat: number) => trial("agent", "t", repeat, true);

describe("a tampered trial is a scored fail, counted apart, never an infrastructure failure", () => {
  // The control passes task t twice; the agent's trials are the row's.
  const control = [trial("control", "t", 0, true), trial("control", "t", 1, true)];
  const table: {
    name: string;
    trials: Trial[];
    expected: {
      pass1: number;
      infraFailures: number;
      tampered: number | "absent";
      errors: number;
      delta: number;
    };
  }[] = [
    {
      name: "none tampered: no count",
      trials: [passed(0), trial("agent", "t", 1, false, { error: "check exited 1" })],
      expected: { pass1: 0.5, infraFailures: 0, tampered: "absent", errors: 1, delta: -0.5 },
    },
    {
      name: "one of two tampered: 50%, one tampered",
      trials: [passed(0), tampered(1)],
      expected: { pass1: 0.5, infraFailures: 0, tampered: 1, errors: 1, delta: -0.5 },
    },
    {
      name: "beside an infrastructure failure: each in its own count, only the tampered one scored",
      trials: [passed(0), tampered(1), trial("agent", "t", 2, false, { infra: "image", error: "build: x" })],
      expected: { pass1: 0.5, infraFailures: 1, tampered: 1, errors: 1, delta: -0.5 },
    },
    {
      name: "every trial tampered: 0%, not `no scored trials`",
      trials: [tampered(0), tampered(1, [BASH, "A /tests/test.sh: the verifier's own files"])],
      expected: { pass1: 0, infraFailures: 0, tampered: 2, errors: 2, delta: -1 },
    },
  ];
  for (const row of table)
    test(row.name, () => {
      const sc = buildScorecard("s", "control", ["control", "agent"], [...control, ...row.trials], {
        iterations: 100,
      });
      const v = sc.variants[1]!;
      expect({
        pass1: v.pass1,
        infraFailures: v.infraFailures,
        tampered: "tampered" in v ? v.tampered : "absent",
        errors: v.errors,
        delta: sc.comparisons![0]!.delta,
        control: "tampered" in sc.variants[0]!,
      }).toEqual({ ...row.expected, control: false });
    });
});

/** One scorecard with everything: a tampered trial whose paths hold a `|` and a line break, two skipped tasks. */
function mixed(over: ScorecardOptions = {}): Scorecard {
  const odd = [
    "A /usr/local/bin/a|b: shadows a program later on the verifier's PATH",
    "A /tests/x\ny: the verifier's own files",
  ];
  return buildScorecard(
    "harbor",
    "control",
    ["control", "agent"],
    [trial("control", "t", 0, true), passed(0), tampered(1, [BASH, ...odd])],
    {
      iterations: 50,
      skipped: [
        {
          task: "compose",
          reason: "environment/docker-compose.yaml: multi-container environments are not supported here",
        },
        { task: "steps", reason: "task.toml: steps: multi-step tasks ([[steps]]) are not supported here" },
      ],
      ...over,
    },
  );
}

const TAMPERED_MD = [
  "",
  "## Tampered trials (scored as fails)",
  "",
  "| Variant | Task | Repeat | What the agent changed that the verifier relies on |",
  "|---|---|---|---|",
  "| agent | t | 1 | C /usr/bin/bash: the verifier's interpreter; A /usr/local/bin/a\\|b: shadows a program later on the verifier's PATH; A /tests/x\\ny: the verifier's own files |",
  "",
  "## Skipped tasks (not run)",
  "",
  "- compose: environment/docker-compose.yaml: multi-container environments are not supported here",
  // Markdown's escapes (lib/report/markdown.ts): it renders as the reason's own text.
  "- steps: task.toml: steps: multi-step tasks (\\[\\[steps\\]\\]) are not supported here",
  "",
].join("\n");

describe("the Markdown names every tampered trial with its paths, and the skipped tasks", () => {
  const sc = mixed();
  const table = [
    { name: "plain: a Tampered column", sc, last: ["Tampered", "1"] },
    {
      name: "gated: its columns are the original's",
      sc: { ...sc, gate: { verdict: "hold" as const, reasons: null } },
      last: ["Errors", "1"],
    },
  ];
  for (const row of table)
    test(row.name, () => {
      const md = renderMarkdown(row.sc);
      const lastCell = (start: string) =>
        md
          .split("\n")
          .find((l) => l.startsWith(start))!
          .split(" | ")
          .at(-1)!
          .replace(" |", "");
      expect({
        tail: md.slice(md.indexOf("\n## Tampered"), md.indexOf("\n## Per task")),
        last: [lastCell("| Variant | Trials"), lastCell("| agent | 2 |")],
      }).toEqual({ tail: TAMPERED_MD, last: row.last });
    });

  test("neither list nor column without tampered trials or skipped tasks", () => {
    const clean = buildScorecard("s", "a", ["a"], [trial("a", "t", 0, true), trial("a", "t", 1, false)], {
      iterations: 20,
    });
    const md = renderMarkdown(clean) + renderMarkdown({ ...clean, gate: { verdict: "ship", reasons: null } });
    expect(["Tampered", "Skipped", "tampered", "skipped"].map((w) => md.includes(w))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("skipped tasks in the scorecard", () => {
  const table: { name: string; list: SkippedTask[] | undefined; expected: Pick<Scorecard, "skipped"> }[] = [
    { name: "none given", list: undefined, expected: {} },
    { name: "an empty list", list: [], expected: {} },
    {
      name: "the loader's lines, kept as {task, reason} in order",
      list: [
        { task: "b", reason: "task.toml: gpus: not here", broken: false },
        { task: "a", reason: "tests/test.sh: missing", broken: true },
      ],
      expected: {
        skipped: [
          { task: "b", reason: "task.toml: gpus: not here" },
          { task: "a", reason: "tests/test.sh: missing" },
        ],
      },
    },
  ];
  for (const { name, list, expected } of table)
    test(name, () => {
      const sc = buildScorecard("s", "a", ["a"], [trial("a", "t", 0, true)], {
        iterations: 10,
        ...(list ? { skipped: list } : {}),
      });
      expect({ field: skippedField(list), scorecard: sc.skipped }).toEqual({
        field: expected,
        scorecard: expected.skipped,
      });
    });

  test("the scorecard JSON keeps tampered counts and skipped tasks through the file and back", () => {
    using tmp = tempDir("scorecard-tampered");
    const sc = mixed();
    const path = join(tmp.path, "sc.json");
    writeFileSync(path, scorecardJson(sc));
    const back = loadScorecard(path);
    expect({ back, tampered: back.variants.map((v) => v.tampered), skipped: back.skipped?.length }).toEqual({
      back: sc,
      tampered: [undefined, 1],
      skipped: 2,
    });
  });
});

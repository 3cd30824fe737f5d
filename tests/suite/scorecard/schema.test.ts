// The scorecard and trial formats: the committed JSON Schemas stay generated, bad files are refused
// with the file and the field named, and numbers print as Go's fmt prints them.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goFixed } from "../../../lib/compat/go.ts";
import { ConfigError } from "../../../lib/core/errors.ts";
import {
  loadScorecard,
  loadTrials,
  parseTrials,
  scorecardJsonSchema,
  Trial,
  trialJsonSchema,
} from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");
const ORIGINAL = join(REPO, "tests", "fixtures", "scorecard", "original.json");

test.each([
  ["scorecard.schema.json", scorecardJsonSchema],
  ["trial.schema.json", trialJsonSchema],
] as const)("schemas/%s is the generated schema", (file, generate) => {
  const committed = readFileSync(join(REPO, "schemas", file), "utf8");
  expect(committed).toEqual(`${JSON.stringify(generate(), null, 2)}\n`);
});

function caught(fn: () => unknown): [boolean, string] {
  try {
    fn();
  } catch (error) {
    return [error instanceof ConfigError, (error as Error).message];
  }
  return [false, "no error"];
}

describe("loadScorecard refuses bad files, naming the file and the field", () => {
  const good = JSON.parse(readFileSync(ORIGINAL, "utf8"));
  // biome-ignore lint/suspicious/noExplicitAny: edits of raw JSON, shaped wrong on purpose
  const edit = (f: (sc: Record<string, any>) => void): string => {
    const sc = structuredClone(good);
    f(sc);
    return JSON.stringify(sc);
  };
  const table: { name: string; text: string; message: string }[] = [
    { name: "not JSON", text: "{", message: "" },
    {
      name: "no variants",
      text: edit((sc) => delete sc.variants),
      message: "Invalid input: expected array, received undefined at variants",
    },
    {
      name: "empty variants",
      text: edit((sc) => {
        sc.variants = [];
      }),
      message: "Too small: expected array to have >=1 items at variants",
    },
    {
      name: "pass1 missing",
      text: edit((sc) => delete sc.variants[1].pass1),
      message: "Invalid input: expected number, received undefined at variants.1.pass1",
    },
    {
      name: "pass1 above 1",
      text: edit((sc) => {
        sc.variants[0].pass1 = 1.5;
      }),
      message: "Too big: expected number to be <=1 at variants.0.pass1",
    },
    {
      name: "unknown verdict",
      text: edit((sc) => {
        sc.comparisons[0].verdict = "maybe";
      }),
      message:
        'Invalid option: expected one of "better"|"worse"|"no_significant_difference"|"insufficient" at comparisons.0.verdict',
    },
    {
      name: "comparisons missing",
      text: edit((sc) => delete sc.comparisons),
      message: "Invalid input: expected array, received undefined at comparisons",
    },
    {
      name: "trial pass not a boolean",
      text: edit((sc) => {
        sc.trials[2].pass = 1;
      }),
      message: "Invalid input: expected boolean, received number at trials.2.pass",
    },
    {
      name: "format version 2",
      text: edit((sc) => {
        sc.version = 2;
      }),
      message: "Invalid input: expected 1 at version",
    },
    {
      name: "a top-level array",
      text: "[]",
      message: "Invalid input: expected object, received array",
    },
  ];
  for (const row of table)
    test(row.name, () => {
      using tmp = tempDir("scorecard");
      const path = join(tmp.path, "sc.json");
      writeFileSync(path, row.text);
      const [isConfig, message] = caught(() => loadScorecard(path));
      const prefix = `Cannot ${row.name === "not JSON" ? "parse" : "load"} scorecard "${path}": `;
      expect([isConfig, message.startsWith(prefix + row.message)]).toEqual([true, true]);
      if (row.message) expect(message).toEqual(prefix + row.message);
    });

  test("a missing file", () => {
    using tmp = tempDir("scorecard");
    const path = join(tmp.path, "nope.json");
    const [isConfig, message] = caught(() => loadScorecard(path));
    expect([isConfig, message === `Cannot read scorecard "${path}": no such file`]).toEqual([true, true]);
  });
});

describe("trials JSONL", () => {
  const line = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      task: "t",
      variant: "v",
      repeat: 0,
      pass: true,
      costUSD: 0.1,
      turns: 2,
      wallMs: 10,
      tokens: 5,
      toolErrors: 0,
      ...over,
    });

  test("reads our fields and the original's, skipping blank lines", () => {
    using tmp = tempDir("scorecard");
    const path = join(tmp.path, "trials.jsonl");
    writeFileSync(
      path,
      `${line()}\n\n${line({ version: 1, infra: "copy", error: "copy: x", unreported: ["cost"] })}\n`,
    );
    expect(loadTrials(path)).toEqual([
      JSON.parse(line()),
      JSON.parse(line({ version: 1, infra: "copy", error: "copy: x", unreported: ["cost"] })),
    ]);
  });

  const bad: { name: string; text: string; message: string }[] = [
    { name: "not JSON", text: `${line()}\n{`, message: 'Cannot parse trials "t.jsonl": line 2: ' },
    {
      name: "missing task",
      text: line({ task: undefined }),
      message:
        'Cannot load trials "t.jsonl": line 1: Invalid input: expected string, received undefined at task',
    },
    {
      name: "negative repeat",
      text: line({ repeat: -1 }),
      message: 'Cannot load trials "t.jsonl": line 1: Too small: expected number to be >=0 at repeat',
    },
    {
      name: "fractional tokens",
      text: line({ tokens: 1.5 }),
      message: 'Cannot load trials "t.jsonl": line 1: Invalid input: expected int, received number at tokens',
    },
    {
      name: "unknown infra kind",
      text: line({ infra: "gremlins" }),
      message: 'Cannot load trials "t.jsonl": line 1: Invalid option: expected one of',
    },
    {
      name: "a tampered trial that passed",
      text: line({ tampered: ["C /usr/bin/bash: the verifier's interpreter"] }),
      message: 'Cannot load trials "t.jsonl": line 1: a tampered trial cannot pass at pass',
    },
    {
      name: "a tampered trial marked an infrastructure failure",
      text: line({ pass: false, tampered: ["A /tests/test.sh: the verifier's own files"], infra: "copy" }),
      message:
        'Cannot load trials "t.jsonl": line 1: a tampered trial is the agent\'s fail, not an infrastructure failure at infra',
    },
    {
      name: "an empty tampered list",
      text: line({ pass: false, tampered: [] }),
      message:
        'Cannot load trials "t.jsonl": line 1: Too small: expected array to have >=1 items at tampered',
    },
    {
      name: "unknown unreported metric",
      text: line({ unreported: ["mood"] }),
      message: 'Cannot load trials "t.jsonl": line 1: Invalid option: expected one of',
    },
  ];
  for (const row of bad)
    test(row.name, () => {
      const [isConfig, message] = caught(() => parseTrials(row.text, "t.jsonl"));
      expect([isConfig, message.startsWith(row.message)]).toEqual([true, true]);
    });

  test("the rich original's trial fields are kept as they are", () => {
    const rich = JSON.parse(
      line({ toolCalls: 3, grades: [{ name: "check", pass: true }], graderError: "x", extra: 1 }),
    );
    expect(Trial.parse(rich)).toEqual(rich);
  });
});

test("goFixed prints as Go's %.Nf: exact ties to even, signs kept", () => {
  const table: [number, number, boolean, string][] = [
    [1.25, 1, false, "1.2"],
    [3.25, 1, false, "3.2"],
    [0.75, 1, false, "0.8"],
    [1.35, 1, false, "1.4"],
    [2.5, 0, false, "2"],
    [3.5, 0, false, "4"],
    [0.31125, 4, false, "0.3113"],
    [100, 1, true, "+100.0"],
    [0, 1, true, "+0.0"],
    [-12.34, 1, true, "-12.3"],
    [-0.01, 1, false, "-0.0"],
    [-0.25, 1, true, "-0.2"],
  ];
  expect(table.map(([x, d, plus]) => goFixed(x, d, plus))).toEqual(table.map((r) => r[3]));
});

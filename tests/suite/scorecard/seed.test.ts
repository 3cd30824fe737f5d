// The newer original's per-trial `seed` (a uint64, FNV-1a of the suite seed, task and repeat; halos
// internal/eval/run.go): its trials load with it, --resume writes each kept line back byte for byte,
// and what JSON.parse cannot hold exactly (above 2^53) is the documented limit of a re-serialised
// trial. Ours never write a seed; a seed that is no number is refused naming the line and field.
import { describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import { resumeTrials, trialKey } from "../../../lib/suite/resume.ts";
import {
  buildScorecard,
  loadScorecard,
  loadTrials,
  scorecardJson,
} from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const FIXTURE = join(REPO_ROOT, "tests", "fixtures", "scorecard", "original-seed.trials.jsonl");
/** The fixture's seeds as the original wrote them (suite seed 7, task fix-add, repeats 0 and 1). */
const SEEDS = ["17033635024579947827", "17033633925068319616"];
const JOBS = new Set([0, 1].map((repeat) => trialKey({ task: "fix-add", variant: "control", repeat })));

describe("the original's per-trial seed", () => {
  test("loads as a number, the nearest double above 2^53", () => {
    const trials = loadTrials(FIXTURE);
    expect(trials.map((t) => t.seed)).toEqual([17033635024579949000, 17033633925068319000]);
    expect(SEEDS.map((s) => BigInt(s) > BigInt(Number.MAX_SAFE_INTEGER))).toEqual([true, true]);
  });

  test("--resume writes the kept lines back byte for byte, the seed digits included", () => {
    using tmp = tempDir("seed");
    const path = join(tmp.path, "t.jsonl");
    const text = readFileSync(FIXTURE, "utf8");
    const lines = text.split("\n");
    // An infrastructure failure after them runs again; a later line for a trial wins.
    const infra = lines[1]!.replace('"pass":true', '"pass":false,"infra":"start"');
    writeFileSync(path, `${lines[1]}\n${lines[0]}\n${infra}\n${lines[1]}\n`);
    const kept = resumeTrials(path, JOBS, "s");
    expect({ keys: [...kept.keys()].length, file: readFileSync(path, "utf8") }).toEqual({
      keys: 2,
      file: `${lines[0]}\n${lines[1]}\n`,
    });
    expect(SEEDS.every((s) => readFileSync(path, "utf8").includes(`"seed":${s}`))).toEqual(true);
  });

  test("a re-serialised trial (a scorecard's trials) carries the nearest double: the documented limit", () => {
    const trials = loadTrials(FIXTURE);
    const json = scorecardJson(buildScorecard("s", "control", ["control"], trials, { seed: 7 }));
    expect(["17033635024579949000", ...SEEDS].map((s) => json.includes(`"seed": ${s}`))).toEqual([
      true,
      false,
      false,
    ]);
  });

  test("an original scorecard whose trials carry it loads as JSON.parse reads it", () => {
    using tmp = tempDir("seed");
    const path = join(tmp.path, "sc.json");
    const trials = readFileSync(FIXTURE, "utf8").trim().split("\n").join(",\n    ");
    const text = readFileSync(join(REPO_ROOT, "tests", "fixtures", "scorecard", "original.json"), "utf8");
    const withSeeds = text.replace(/"trials": \[[\s\S]*\]\s*}\s*$/, `"trials": [\n    ${trials}\n  ]\n}\n`);
    writeFileSync(path, withSeeds);
    expect(withSeeds.includes(`"seed":${SEEDS[0]}`)).toEqual(true);
    expect(loadScorecard(path)).toEqual(JSON.parse(withSeeds));
  });

  test.each([
    { name: "negative", seed: "-1", message: "Too small: expected number to be >=0 at seed" },
    {
      name: "a string",
      seed: `"${SEEDS[0]}"`,
      message: "Invalid input: expected number, received string at seed",
    },
  ])("a seed that is $name is refused, naming the line and field", ({ seed, message }) => {
    using tmp = tempDir("seed");
    const path = join(tmp.path, "t.jsonl");
    copyFileSync(FIXTURE, path);
    const [first, second] = readFileSync(FIXTURE, "utf8").split("\n");
    writeFileSync(path, `${first}\n${second!.replace(`"seed":${SEEDS[1]}`, `"seed":${seed}`)}\n`);
    let got: unknown;
    try {
      loadTrials(path);
    } catch (error) {
      got = error instanceof ConfigError ? error.message : error;
    }
    expect(got).toEqual(`Cannot load trials "${path}": line 2: ${message}`);
  });
});

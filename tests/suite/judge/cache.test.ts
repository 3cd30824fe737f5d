// The README's promise about the judge's verdict cache, kept against someone who can write the cache
// directory: an entry edited by hand, copied under another judgement's key, sealed under another
// judge key, replaced by a link or a FIFO is asked again (one more judge call, the judge's answer
// recorded and the entry rewritten), never taken as a verdict; an untouched entry is still a hit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type JudgeFile, loadRubric } from "../../../lib/suite/judge/config.ts";
import { judgeTrial, openJudge } from "../../../lib/suite/judge/judge.ts";
import { type MockModel, startMockModel, text } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";

const FIXTURES = join(import.meta.dirname, "../../fixtures/judge/evals/rubrics");
const quality = loadRubric(join(FIXTURES, "quality.yaml"));
const TRIAL = { seed: 7, task: "fix-add", repeat: 0 };
const LOW = '{"scores": {"correctness": 0, "minimality": 0.5}, "rationale": "not fixed"}';
const HIGH = '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "fixed"}';
const NOT_FIXED = { path: "add.go", content: "return a - b\n" };
const FIXED = { path: "add.go", content: "return a + b\n" };

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ script: [] });
});
afterAll(() => mock.close());

/** One judgement of `file` with the cache in `dir`, the judge answering `reply`; the grade and the calls made. */
async function judged(
  dir: string,
  file: { path: string; content: string },
  reply: string,
  key = "sk-cache-1",
) {
  mock.scenario(key, [text(reply)], `cache-${mock.requests.length}`);
  const before = mock.requests.length;
  const config: JudgeFile = {
    url: mock.url,
    wire: "anthropic-messages",
    model: "judge-1",
    api_key_env: "K",
    cache: "cache",
  };
  const judge = openJudge(config, { suiteDir: dir, env: { K: key }, retries: 0 });
  const g = await judgeTrial(judge, { rubric: quality, prompt: "Fix Add", changed: [file], trial: TRIAL });
  return { score: g.score, cached: g.cached ?? false, calls: mock.requests.length - before };
}

/** The one cache file written for a judgement (its path). */
function entries(dir: string): string[] {
  return readdirSync(join(dir, "cache"))
    .sort()
    .map((f) => join(dir, "cache", f));
}

const LOW_SCORE = (2 * 0 + 0.5) / 3;

describe("the verdict cache keeps the README's promise: an edited entry is asked again", () => {
  test("untouched: the second judgement is a hit, no call", async () => {
    using dir = tempDir("judge-cache");
    const runs = [await judged(dir.path, NOT_FIXED, LOW), await judged(dir.path, NOT_FIXED, HIGH)];
    expect(runs).toEqual([
      { score: LOW_SCORE, cached: false, calls: 1 },
      { score: LOW_SCORE, cached: true, calls: 0 },
    ]);
  });

  const tamperings: Array<{ name: string; tamper: (dir: string) => void | Promise<void> }> = [
    {
      name: "scores raised by hand (still a valid verdict for the rubric)",
      tamper: (dir) => {
        const [path] = entries(dir);
        const entry = JSON.parse(readFileSync(path!, "utf8"));
        entry.scores = { correctness: 1, minimality: 1 };
        entry.score = 1;
        writeFileSync(path!, JSON.stringify(entry));
      },
    },
    {
      name: "another judgement's passing entry copied over it",
      tamper: async (dir) => {
        const [failing] = entries(dir);
        await judged(dir, FIXED, HIGH);
        const passing = entries(dir).find((p) => p !== failing)!;
        writeFileSync(failing!, readFileSync(passing));
      },
    },
    {
      name: "an entry written under another judge key",
      tamper: async (dir) => {
        const [path] = entries(dir);
        rmSync(path!);
        await judged(dir, NOT_FIXED, HIGH, "sk-cache-forger");
      },
    },
    {
      name: "an entry in the old unsealed format",
      tamper: (dir) => {
        const [path] = entries(dir);
        writeFileSync(
          path!,
          JSON.stringify({
            version: 1,
            score: 1,
            scores: { correctness: 1, minimality: 1 },
            rationale: "fixed",
          }),
        );
      },
    },
    {
      name: "a link to a passing entry",
      tamper: async (dir) => {
        const [failing] = entries(dir);
        await judged(dir, FIXED, HIGH);
        const passing = entries(dir).find((p) => p !== failing)!;
        rmSync(failing!);
        symlinkSync(passing, failing!);
      },
    },
    {
      name: "a FIFO (never opened)",
      tamper: (dir) => {
        const [path] = entries(dir);
        rmSync(path!);
        execFileSync("mkfifo", [path!]);
      },
    },
  ];
  for (const t of tamperings)
    test(t.name, async () => {
      using dir = tempDir("judge-cache");
      await judged(dir.path, NOT_FIXED, LOW);
      await t.tamper(dir.path);
      const again = await judged(dir.path, NOT_FIXED, LOW);
      const after = await judged(dir.path, NOT_FIXED, HIGH);
      expect({ again, after }).toEqual({
        again: { score: LOW_SCORE, cached: false, calls: 1 },
        after: { score: LOW_SCORE, cached: true, calls: 0 },
      });
    });
});

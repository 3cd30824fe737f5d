import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildStepScorecard,
  renderStepScorecard,
  StepScorecard,
  stepScorecardJsonSchema,
} from "../../lib/steps/scorecard.ts";
import { result } from "./_cases.ts";

test("rates, counts and the text form", () => {
  const results = [
    result("a", 1),
    result("b", 1, { pass: false, sameCalls: false }),
    result("c", 2, { prematureStop: null }),
    result("d", 3, {
      pass: false,
      sameTools: false,
      sameCalls: false,
      valid: false,
      prematureStop: null,
      error: "HTTP 500: x",
    }),
  ];
  const sc = buildStepScorecard("evals/steps/x", "opus", results, { iterations: 200 });
  expect(StepScorecard.parse(sc)).toEqual(sc);
  expect({
    cases: sc.cases,
    sessions: sc.sessions,
    errors: sc.errors,
    pass: sc.pass.rate,
    stop: sc.prematureStop,
  }).toEqual({
    cases: 4,
    sessions: 3,
    errors: 1,
    pass: 0.5,
    stop: {
      n: 2,
      rate: 0,
      lo: 0,
      hi: 0,
      note: "1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 0..98)",
    },
  });
  expect(renderStepScorecard(sc)).toBe(
    [
      "suite evals/steps/x  model opus  cases 4  sessions 3  errors 1",
      "",
      `PASS              50% (${Math.round(sc.pass.lo! * 100)}..${Math.round(sc.pass.hi! * 100)}) n=4  note: only 3 sessions: too few for the interval (at least 6)`,
      `SAME TOOLS        75% (${Math.round(sc.sameTools.lo! * 100)}..${Math.round(sc.sameTools.hi! * 100)}) n=4  note: only 3 sessions: too few for the interval (at least 6)`,
      `SAME CALLS        50% (${Math.round(sc.sameCalls.lo! * 100)}..${Math.round(sc.sameCalls.hi! * 100)}) n=4  note: only 3 sessions: too few for the interval (at least 6)`,
      `VALID CALLS       75% (${Math.round(sc.validCalls.lo! * 100)}..${Math.round(sc.validCalls.hi! * 100)}) n=4  note: only 3 sessions: too few for the interval (at least 6)`,
      "PREMATURE STOP    0% (0..0) n=2  note: 1 session, all alike: the interval cannot measure uncertainty (exact 95% over sessions: 0..98)",
      "",
    ].join("\n"),
  );
});

test("intervals resample sessions: one long session does not narrow the interval", () => {
  // 40 steps in 2 sessions (one all pass, one all fail) against 40 steps in 40 sessions.
  const clustered = Array.from({ length: 40 }, (_, i) => result(`s${i}`, i < 20 ? 1 : 2, { pass: i < 20 }));
  const spread = Array.from({ length: 40 }, (_, i) => result(`s${i}`, i, { pass: i < 20 }));
  const a = buildStepScorecard("s", "m", clustered).pass;
  const b = buildStepScorecard("s", "m", spread).pass;
  expect({ a: a.rate, b: b.rate }).toEqual({ a: 0.5, b: 0.5 });
  expect({ lo: a.lo, hi: a.hi }).toEqual({ lo: 0, hi: 1 });
  expect(b.hi! - b.lo!).toBeLessThan(0.4);
});

test("same results and seed, same scorecard; no cases gives empty rates", () => {
  const rs = [result("a", 1), result("b", 2, { pass: false })];
  expect(buildStepScorecard("s", "m", rs, { seed: 7 })).toEqual(
    buildStepScorecard("s", "m", rs, { seed: 7 }),
  );
  const empty = buildStepScorecard("s", "m", []);
  expect(empty.pass).toEqual({ n: 0, rate: null, lo: null, hi: null });
  expect(renderStepScorecard(empty)).toContain("PASS              - n=0");
});

test("judge scores are a secondary row and never change pass", () => {
  const rs = [
    result("a", 1, { pass: false, judge: { score: 1, reason: "fine" } }),
    result("b", 2, { judge: { error: "judge: HTTP 500: x" } }),
  ];
  const sc = buildStepScorecard("s", "m", rs, { judge: { model: "j", rubric: `sha256:${"0".repeat(64)}` } });
  expect(sc.judge).toEqual({
    model: "j",
    rubric: `sha256:${"0".repeat(64)}`,
    n: 1,
    errors: 1,
    mean: 1,
    lo: 1,
    hi: 1,
  });
  expect(sc.pass.rate).toBe(0.5);
  expect(renderStepScorecard(sc).split("\n").at(-2)).toBe(
    "JUDGE             1.00 (1.00..1.00) n=1 errors=1  (secondary: never changes pass)",
  );
});

test("thin evidence gets a note, as a suite's verdict does: PASS 100% (100..100) n=3 is not left bare", () => {
  const sessions = (count: number, steps: number, pass: (i: number) => boolean) =>
    Array.from({ length: count * steps }, (_, i) =>
      result(`c${i}`, Math.floor(i / steps), { pass: pass(i) }),
    );
  const cases = [
    { name: "3 steps of 1 session, all pass", results: sessions(1, 3, () => true) },
    { name: "10 sessions, all pass", results: sessions(10, 2, () => true) },
    { name: "10 sessions, all fail", results: sessions(10, 2, () => false) },
    { name: "4 sessions, mixed", results: sessions(4, 2, (i) => i % 3 !== 0) },
    { name: "8 sessions, mixed", results: sessions(8, 2, (i) => i % 3 !== 0) },
    { name: "6 sessions each half passing", results: sessions(6, 2, (i) => i % 2 === 0) },
  ];
  const got = cases.map(({ name, results }) => {
    const sc = buildStepScorecard("s", "m", results);
    return [name, renderStepScorecard(sc).split("\n")[2]];
  });
  const all = (s: string, range: string) =>
    `${s}, all alike: the interval cannot measure uncertainty (exact 95% over sessions: ${range})`;
  expect(got).toEqual([
    [
      "3 steps of 1 session, all pass",
      `PASS              100% (100..100) n=3  note: ${all("1 session", "3..100")}`,
    ],
    [
      "10 sessions, all pass",
      `PASS              100% (100..100) n=20  note: ${all("10 sessions", "69..100")}`,
    ],
    ["10 sessions, all fail", `PASS              0% (0..0) n=20  note: ${all("10 sessions", "0..31")}`],
    [
      "4 sessions, mixed",
      expect.stringMatching(/ n=8 {2}note: only 4 sessions: too few for the interval \(at least 6\)$/),
    ],
    ["8 sessions, mixed", expect.stringMatching(/^PASS {14}\d+% \(\d+\.\.\d+\) n=16$/)],
    [
      "6 sessions each half passing",
      "PASS              50% (50..50) n=12  note: 6 sessions, all alike: the interval cannot measure uncertainty",
    ],
  ]);
});

test("schemas/step-scorecard.schema.json is the generated schema", () => {
  const path = join(import.meta.dirname, "..", "..", "schemas", "step-scorecard.schema.json");
  expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(stepScorecardJsonSchema());
});

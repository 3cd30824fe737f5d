// The judge's reply read as strictly as the original reads it (its TestParseVerdict table, at its
// testdata rubric: correctness weight 2, minimality 1), plus the shapes a JSON decoder in Go refuses
// by type. Every refusal is a schema error line, never a throw.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadRubric } from "../../../lib/suite/judge/config.ts";
import { checkVerdict, parseVerdict, SCHEMA_ERROR } from "../../../lib/suite/judge/verdict.ts";

const rubric = loadRubric(join(import.meta.dirname, "../../fixtures/judge/evals/rubrics/quality.yaml"));
const ok = (correctness: number, minimality: number, rationale: string, score: number) => ({
  score,
  scores: { correctness, minimality },
  rationale,
});
const err = (why: string) => ({ error: `${SCHEMA_ERROR}: ${why}` });

const cases = [
  {
    name: "valid",
    reply: '{"scores": {"correctness": 1, "minimality": 0.4}, "rationale": "ok"}',
    want: ok(1, 0.4, "ok", (2 * 1 + 0.4) / 3),
  },
  {
    name: "surrounding whitespace ok",
    reply: '\n  {"scores": {"correctness": 0, "minimality": 0}, "rationale": "bad"}\n',
    want: ok(0, 0, "bad", 0),
  },
  {
    name: "code fence",
    reply: '```json\n{"scores": {"correctness": 1, "minimality": 1}, "rationale": "ok"}\n```',
    want: err('expected one JSON object, got "```json\\n{\\"scores\\": {"'),
  },
  {
    name: "prose before",
    reply: 'Sure! {"scores": {"correctness": 1, "minimality": 1}, "rationale": "ok"}',
    want: err('expected one JSON object, got "Sure! {\\"scores\\": {\\"c"'),
  },
  {
    name: "trailing data",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "ok"} thanks }',
    want: err("trailing data after the JSON object"),
  },
  {
    name: "two objects",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "ok"}{"x": 1}',
    want: err("trailing data after the JSON object"),
  },
  {
    name: "trailing data after a rationale of 70 braces: still an error (only 64 ends are tried)",
    reply: `{"scores": {"correctness": 1, "minimality": 1}, "rationale": "${"}".repeat(70)}"} thanks`,
    want: err("the reply is not valid JSON"),
  },
  {
    name: "braces inside the rationale are no trouble",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "uses {} and }{"}',
    want: ok(1, 1, "uses {} and }{", 1),
  },
  { name: "not closed", reply: '{"scores": {"correctness": 1', want: err("the reply is not valid JSON") },
  {
    name: "unknown field",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "ok", "pass": true}',
    want: err('unknown field "pass"'),
  },
  {
    name: "missing criterion",
    reply: '{"scores": {"correctness": 1}, "rationale": "ok"}',
    want: err("want scores for exactly 2 criteria, got 1"),
  },
  {
    name: "extra criterion",
    reply: '{"scores": {"correctness": 1, "minimality": 1, "style": 1}, "rationale": "ok"}',
    want: err("want scores for exactly 2 criteria, got 3"),
  },
  {
    name: "renamed criterion",
    reply: '{"scores": {"correctness": 1, "brevity": 1}, "rationale": "ok"}',
    want: err('criterion "minimality" needs a score in [0,1]'),
  },
  {
    name: "out of range",
    reply: '{"scores": {"correctness": 1.5, "minimality": 1}, "rationale": "ok"}',
    want: err('criterion "correctness" needs a score in [0,1]'),
  },
  {
    name: "null score",
    reply: '{"scores": {"correctness": null, "minimality": 1}, "rationale": "ok"}',
    want: err('criterion "correctness" needs a score in [0,1]'),
  },
  {
    name: "string score",
    reply: '{"scores": {"correctness": "1", "minimality": 1}, "rationale": "ok"}',
    want: err('criterion "correctness" needs a score in [0,1]'),
  },
  {
    name: "no rationale",
    reply: '{"scores": {"correctness": 1, "minimality": 1}}',
    want: err("rationale is required"),
  },
  {
    name: "blank rationale",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": "  "}',
    want: err("rationale is required"),
  },
  {
    name: "rationale not a string",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": 3}',
    want: err("rationale: expected a string"),
  },
  {
    name: "scores a list",
    reply: '{"scores": [1, 1], "rationale": "ok"}',
    want: err("scores: expected an object of criterion scores"),
  },
  {
    name: "field names in another case, as Go's decoder takes them",
    reply: '{"Scores": {"correctness": 1, "minimality": 1}, "RATIONALE": "ok"}',
    want: ok(1, 1, "ok", 1),
  },
  {
    name: "criterion names are exact",
    reply: '{"scores": {"Correctness": 1, "minimality": 1}, "rationale": "ok"}',
    want: err('criterion "correctness" needs a score in [0,1]'),
  },
  {
    name: "null rationale",
    reply: '{"scores": {"correctness": 1, "minimality": 1}, "rationale": null}',
    want: err("rationale is required"),
  },
  { name: "no scores", reply: '{"rationale": "ok"}', want: err("want scores for exactly 2 criteria, got 0") },
  { name: "a list", reply: "[1]", want: err('expected one JSON object, got "[1]"') },
  { name: "empty", reply: "", want: err("the reply is empty") },
];

describe("parseVerdict", () => {
  for (const c of cases) test(c.name, () => expect(parseVerdict(rubric, c.reply)).toEqual(c.want));
});

describe("checkVerdict (the cache's re-check)", () => {
  test("the score is recomputed from the criteria, never taken as given", () => {
    expect(checkVerdict(rubric, { correctness: 1, minimality: 0.5 }, "ok")).toEqual(
      ok(1, 0.5, "ok", 2.5 / 3),
    );
  });
  test("NaN is no score", () => {
    expect(checkVerdict(rubric, { correctness: Number.NaN, minimality: 1 }, "ok")).toEqual(
      err('criterion "correctness" needs a score in [0,1]'),
    );
  });
});

import { describe, expect, test } from "bun:test";
import { PyFloat, parsePyJson, pyInt, pyRepr, pySplitlines, pyStr, pyTruthy } from "../../lib/grade/_py.ts";

describe("pyInt (int() of expect_exit)", () => {
  const cases: { name: string; input: unknown; want: number | null }[] = [
    { name: "int", input: 1, want: 1 },
    { name: "negative int", input: -2, want: -2 },
    { name: "true", input: true, want: 1 },
    { name: "false", input: false, want: 0 },
    { name: "float truncates", input: new PyFloat(1.5), want: 1 },
    { name: "negative float truncates toward zero", input: new PyFloat(-1.5), want: -1 },
    { name: "digit string", input: "1", want: 1 },
    { name: "padded signed string", input: " +3\n", want: 3 },
    { name: "underscores", input: "1_0", want: 10 },
    { name: "float string", input: "1.5", want: null },
    { name: "word", input: "one", want: null },
    { name: "null", input: null, want: null },
    { name: "list", input: [1], want: null },
    { name: "NaN", input: new PyFloat(Number.NaN), want: null },
  ];
  for (const c of cases) test(c.name, () => expect(pyInt(c.input)).toEqual(c.want));
});

describe("pyStr / pyRepr", () => {
  const cases: { name: string; input: unknown; str: string; repr: string }[] = [
    { name: "string", input: "ab", str: "ab", repr: "'ab'" },
    { name: "string with a quote", input: "it's", str: "it's", repr: `"it's"` },
    { name: "control characters", input: "a\nb\x01", str: "a\nb\x01", repr: "'a\\nb\\x01'" },
    { name: "None", input: null, str: "None", repr: "None" },
    { name: "bools", input: true, str: "True", repr: "True" },
    { name: "int", input: 3, str: "3", repr: "3" },
    { name: "integral float", input: new PyFloat(1), str: "1.0", repr: "1.0" },
    { name: "list", input: ["a", 1, null], str: "['a', 1, None]", repr: "['a', 1, None]" },
    { name: "dict", input: { a: [true] }, str: "{'a': [True]}", repr: "{'a': [True]}" },
  ];
  for (const c of cases)
    test(c.name, () => expect([pyStr(c.input), pyRepr(c.input)]).toEqual([c.str, c.repr]));
});

test("pyTruthy follows Python", () => {
  const values = [null, false, 0, "", [], {}, new PyFloat(0), "0", [0], { a: 1 }, 1, true];
  expect(values.map(pyTruthy)).toEqual([
    false,
    false,
    false,
    false,
    false,
    false,
    false,
    true,
    true,
    true,
    true,
    true,
  ]);
});

test("pySplitlines splits like str.splitlines", () => {
  expect(pySplitlines("a\nb\r\nc\rd\x0be\x0cf\u2028g\n")).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  expect([pySplitlines(""), pySplitlines("\n"), pySplitlines("x")]).toEqual([[], [""], ["x"]]);
});

test("parsePyJson keeps floats apart from ints", () => {
  expect(parsePyJson('{"a": 1, "b": 1.0}')).toEqual({ a: 1, b: new PyFloat(1) });
});

import { describe, expect, test } from "bun:test";
import { isPyDict, isPyInt, num, PyFloat, pyEquals, pyInt, pyTruthy } from "../../../lib/compat/py/value.ts";

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

describe("pyEquals", () => {
  const cases: [unknown, unknown, boolean][] = [
    [1, new PyFloat(1), true],
    [true, 1, true],
    [false, 0, true],
    [12345678901234567890n, 12345678901234567890n, true],
    [2n ** 60n, 2 ** 60, true],
    [new PyFloat(Number.NaN), new PyFloat(Number.NaN), false],
    ["1", 1, false],
    [null, 0, false],
    [{ a: 1, b: [1, "x"] }, { b: [1, "x"], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: null }, false],
    [[1, 2], [2, 1], false],
  ];
  for (const [a, b, eq] of cases) {
    test(`${String(a)} == ${String(b)} is ${eq}`, () => expect(pyEquals(a, b)).toEqual(eq));
  }
});

test("type tests: dict is not a list or a float; int is not a bool or a float; num() of each kind", () => {
  expect({
    dict: [{}, [], null, new PyFloat(1), "x"].map(isPyDict),
    int: [1, 2n, true, new PyFloat(1), 1.5, "1"].map(isPyInt),
    num: [num(true), num(2n), num(new PyFloat(2.5)), num(3)],
  }).toEqual({
    dict: [true, false, false, false, false],
    int: [true, true, false, false, false, false],
    num: [1, 2, 2.5, 3],
  });
});

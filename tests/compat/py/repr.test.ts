import { describe, expect, test } from "bun:test";
import { formatG, pyFloatRepr, pyNumber, pyRepr, pyRound, pyStr } from "../../../lib/compat/py/repr.ts";
import { PyFloat } from "../../../lib/compat/py/value.ts";

describe("pyStr coerces cassette argv items like Python str()", () => {
  test.each([
    { name: "string", value: "7", expected: "7" },
    { name: "int", value: 7, expected: "7" },
    { name: "negative", value: -3, expected: "-3" },
    { name: "float", value: 1.5, expected: "1.5" },
    { name: "true", value: true, expected: "True" },
    { name: "false", value: false, expected: "False" },
    { name: "null", value: null, expected: "None" },
    { name: "list", value: [1, "a"], expected: "[1, 'a']" },
    { name: "object", value: { a: "b" }, expected: "{'a': 'b'}" },
  ])("$name", ({ value, expected }) => {
    expect(pyStr(value)).toEqual(expected);
  });
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

// Where the lanes' copies differed, checked against CPython 3.11 (`python3 -c 'print(repr(...))'`).
describe("the differences between the former copies, pinned to CPython", () => {
  test("repr() escapes every character str.isprintable() rejects, not only C0/C1 controls", () => {
    // The grade copy left \xa0 and \u200b raw; the idd copy escaped nothing but \\ and '.
    expect(["\xa0", "\u200b", "\x7f", "a\tb", "\u{e0001}", "é😀"].map(pyRepr)).toEqual([
      "'\\xa0'",
      "'\\u200b'",
      "'\\x7f'",
      "'a\\tb'",
      "'\\U000e0001'",
      "'é😀'",
    ]);
  });

  test("str() of a float is repr(): exponent from 1e16 and below 1e-4, -0.0, nan", () => {
    // The grade copy printed PyFloat(1e16) as 10000000000000000 and -0.0 as 0.0; the idd copy as
    // "10000000000000000.0" and NaN as "NaN"; the shim and grade printed 0.00001 as 0.00001.
    expect([
      pyStr(new PyFloat(1e16)),
      pyStr(new PyFloat(1e22)),
      pyStr(new PyFloat(-0)),
      pyStr(new PyFloat(Number.NaN)),
      pyStr(new PyFloat(Number.NEGATIVE_INFINITY)),
      pyStr(0.00001),
      pyStr(1.5e-5),
      pyStr(new PyFloat(12.5)),
    ]).toEqual(["1e+16", "1e+22", "-0.0", "nan", "-inf", "1e-05", "1.5e-05", "12.5"]);
  });

  test("str() of a container is its repr, not JSON (the idd copy used JSON.stringify)", () => {
    expect([pyStr([1, "a"]), pyStr({ k: new PyFloat(2) })]).toEqual(["[1, 'a']", "{'k': 2.0}"]);
  });
});

test("pyFloatRepr uses Python's names for non-finite floats; pyNumber prints integral numbers as ints", () => {
  expect({
    repr: [Number.NaN, Number.POSITIVE_INFINITY, 0.0001, 1234567890123456.0].map(pyFloatRepr),
    number: [1e21, -0, 2.5, Number.NaN].map(pyNumber),
  }).toEqual({
    repr: ["nan", "inf", "0.0001", "1234567890123456.0"],
    number: ["1000000000000000000000", "0", "2.5", "nan"],
  });
});

test("round half to even and :g", () => {
  expect({
    round: [0.5, 1.5, 2.5, 2.4999, -0.5].map(pyRound),
    g: [2, new PyFloat(2.5), new PyFloat(3), 1234567, 0.0001, 0.00001234, 100000, true].map((v) =>
      formatG(v),
    ),
  }).toEqual({
    round: [0, 2, 2, 2, 0],
    g: ["2", "2.5", "3", "1.23457e+06", "0.0001", "1.234e-05", "100000", "1"],
  });
});

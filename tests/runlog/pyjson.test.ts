import { describe, expect, test } from "bun:test";
import {
  PyFloat,
  PyJsonError,
  parsePyJson,
  pyDumps,
  pyEquals,
  pyFloatRepr,
} from "../../lib/runlog/_pyjson.ts";

describe("parsePyJson", () => {
  test("keeps Python's number types", () => {
    expect(parsePyJson("[1, 1.0, 1e2, -0, 12345678901234567890, NaN, Infinity, -Infinity]")).toEqual([
      1,
      new PyFloat(1),
      new PyFloat(100),
      0,
      12345678901234567890n,
      new PyFloat(Number.NaN),
      new PyFloat(Number.POSITIVE_INFINITY),
      new PyFloat(Number.NEGATIVE_INFINITY),
    ]);
  });

  test("objects: duplicate keys keep the first position and the last value; __proto__ is a plain key", () => {
    const v = parsePyJson('{"b": 1, "a": 2, "b": 3, "__proto__": 4}') as Record<string, unknown>;
    expect({
      keys: Object.keys(v),
      b: v.b,
      proto: Object.getOwnPropertyDescriptor(v, "__proto__")?.value,
    }).toEqual({
      keys: ["b", "a", "__proto__"],
      b: 3,
      proto: 4,
    });
  });

  test("strings: escapes and surrogate pairs", () => {
    expect(parsePyJson('"a\\/b\\u00e9\\ud83d\\ude00\\n\\ud800"')).toEqual("a/bé😀\n\ud800");
  });

  const errors = [
    { input: "", msg: "Expecting value" },
    { input: "nope", msg: "Expecting value" },
    { input: "{'a': 1}", msg: "Expecting property name enclosed in double quotes" },
    { input: '{"a" 1}', msg: "Expecting ':' delimiter" },
    { input: '{"a": 1 "b": 2}', msg: "Expecting ',' delimiter" },
    { input: '{"a": 1,}', msg: "Expecting property name enclosed in double quotes" },
    { input: "[1] [2]", msg: "Extra data" },
    { input: "01", msg: "Extra data" },
    { input: '"abc', msg: "Unterminated string starting at" },
    { input: '"a\tb"', msg: "Invalid control character at" },
    { input: '"\\x"', msg: "Invalid \\escape: 'x'" },
    { input: '"\\u12"', msg: "Invalid \\uXXXX escape" },
    { input: "\ufeff{}", msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)" },
  ];
  for (const c of errors) {
    test(`rejects ${JSON.stringify(c.input)}`, () => {
      let msg = "";
      try {
        parsePyJson(c.input);
      } catch (error) {
        if (error instanceof PyJsonError) msg = error.msg;
      }
      expect(msg).toEqual(c.msg);
    });
  }
});

describe("pyDumps", () => {
  test("compact separators, / unescaped, non-ASCII kept, control characters as lowercase \\u00XX", () => {
    expect(
      pyDumps({ a: "x/y", b: "é😀", c: '\u0001\u001f\u007f\b\f\n\r\t"\\', d: null, e: [true, false], f: 3n }),
    ).toEqual(
      '{"a":"x/y","b":"é😀","c":"\\u0001\\u001f\u007f\\b\\f\\n\\r\\t\\"\\\\","d":null,"e":[true,false],"f":3}',
    );
  });

  test("ensureAscii escapes non-ASCII as UTF-16 units", () => {
    expect(pyDumps({ k: "é😀" }, { ensureAscii: true })).toEqual('{"k":"\\u00e9\\ud83d\\ude00"}');
  });

  test("integral numbers print as ints, others with Python's float repr", () => {
    expect(
      pyDumps([1e21, 2, 0.5, new PyFloat(1), new PyFloat(1e16), new PyFloat(1e-5), new PyFloat(Number.NaN)]),
    ).toEqual("[1000000000000000000000,2,0.5,1.0,1e+16,1e-05,NaN]");
  });

  const reprs: [number, string][] = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1.5, "1.5"],
    [123456789012345.6, "123456789012345.6"],
    [1234567890123456.0, "1234567890123456.0"],
    [0.0001, "0.0001"],
    [0.00012, "0.00012"],
    [1.5e-7, "1.5e-07"],
    [1.2345e300, "1.2345e+300"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
  ];
  for (const [x, s] of reprs) test(`float repr ${s}`, () => expect(pyFloatRepr(x)).toEqual(s));
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

import { describe, expect, test } from "bun:test";
import { PyJsonError, parsePyJson, pyJsonDumps, pyJsonErrorText } from "../../../lib/compat/py/json.ts";
import { pyRepr } from "../../../lib/compat/py/repr.ts";
import { PyFloat } from "../../../lib/compat/py/value.ts";
import golden from "../../fixtures/shim/python-golden.json" with { type: "json" };

/** `json.dumps(v, separators=(",", ":"), ensure_ascii=False)`: the run-log line form. */
const compact = (v: unknown, ensureAscii = false) => pyJsonDumps(v, { ensureAscii, separators: [",", ":"] });

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

  test("keeps floats apart from ints", () => {
    expect(parsePyJson('{"a": 1, "b": 1.0}')).toEqual({ a: 1, b: new PyFloat(1) });
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

  // `Invalid \escape: 'x'` is json.decoder's pure-Python text (CPython's C scanner says only
  // "Invalid \escape"); the character is repr()'d as json.decoder does, whole code point included.
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
    { input: '"\\\n"', msg: "Invalid \\escape: '\\n'" },
    { input: '"\\😀"', msg: "Invalid \\escape: '😀'" },
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

  test("pyJsonErrorText is str(JSONDecodeError) with line and column", () => {
    const text = '{\n  "a": 1,\n}';
    let got = "";
    try {
      parsePyJson(text);
    } catch (error) {
      if (error instanceof PyJsonError) got = pyJsonErrorText(error, text);
    }
    expect(got).toEqual("Expecting property name enclosed in double quotes: line 3 column 1 (char 12)");
  });
});

// Every string is checked against what CPython printed (tests/fixtures/shim/golden.py).
describe("Python formatting matches CPython byte for byte", () => {
  test.each(golden.map((g) => ({ ...g, name: JSON.stringify(g.s) })))("$name", (g) => {
    expect({
      repr: pyRepr(g.s),
      list_repr: pyRepr(["issue", g.s]),
      call_log: pyJsonDumps({ argv: ["x", g.s] }, { ensureAscii: false }),
      indent2: pyJsonDumps({ number: 7, title: g.s, body: g.s, state: "OPEN" }, { indent: 2 }),
      compact: pyJsonDumps({ title: g.s, n: null, k: [1, true] }, { separators: [",", ":"] }),
    }).toEqual({
      repr: g.repr,
      list_repr: g.list_repr,
      call_log: g.call_log,
      indent2: g.indent2,
      compact: g.compact,
    });
  });
});

describe("pyJsonDumps", () => {
  test("compact separators, / unescaped, non-ASCII kept, control characters as lowercase \\u00XX", () => {
    expect(
      compact({ a: "x/y", b: "é😀", c: '\u0001\u001f\u007f\b\f\n\r\t"\\', d: null, e: [true, false], f: 3n }),
    ).toEqual(
      '{"a":"x/y","b":"é😀","c":"\\u0001\\u001f\u007f\\b\\f\\n\\r\\t\\"\\\\","d":null,"e":[true,false],"f":3}',
    );
  });

  test("ensureAscii escapes non-ASCII as UTF-16 units", () => {
    expect(compact({ k: "é😀" }, true)).toEqual('{"k":"\\u00e9\\ud83d\\ude00"}');
  });

  test("integral numbers print as ints, others with Python's float repr", () => {
    expect(
      compact([1e21, 2, 0.5, new PyFloat(1), new PyFloat(1e16), new PyFloat(1e-5), new PyFloat(Number.NaN)]),
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
  for (const [x, s] of reprs) test(`float repr ${s}`, () => expect(pyJsonDumps(new PyFloat(x))).toEqual(s));

  test("keeps Map key order, even integer-like keys", () => {
    const m = new Map<string, unknown>([
      ["2", "b"],
      ["1", "a"],
    ]);
    expect(pyJsonDumps(m, { separators: [",", ":"] })).toEqual('{"2":"b","1":"a"}');
  });

  test("empty containers and bigint", () => {
    expect(pyJsonDumps({ a: [], b: {}, n: 9223372036854775807n }, { indent: 2 })).toEqual(
      '{\n  "a": [],\n  "b": {},\n  "n": 9223372036854775807\n}',
    );
  });
});

// Where the lanes' copies differed, checked against CPython 3.11 json.dumps.
describe("the differences between the former copies, pinned to CPython", () => {
  test("ensure_ascii escapes DEL; without it DEL stays raw (the run-log copy never escaped it)", () => {
    expect([pyJsonDumps("\x7f"), pyJsonDumps("\x7f", { ensureAscii: false })]).toEqual([
      '"\\u007f"',
      '"\x7f"',
    ]);
  });

  test("floats below 1e-4 use exponent form (the shim copy wrote 0.00005)", () => {
    expect(pyJsonDumps([0.00005, 1.5e-5])).toEqual("[5e-05, 1.5e-05]");
  });

  test("sort_keys orders by code point (the run-log copy put astral keys before U+FFFF)", () => {
    expect(pyJsonDumps({ "\u{10000}": 2, "\uffff": 1 }, { indent: 2, sortKeys: true })).toEqual(
      '{\n  "\\uffff": 1,\n  "\\ud800\\udc00": 2\n}',
    );
  });
});

import { describe, expect, test } from "bun:test";
import { pyJsonDumps, pyPath, pyRepr, pyReprList, pyStr } from "../../lib/shim/_py.ts";
import golden from "../fixtures/shim/python-golden.json" with { type: "json" };

// Every string is checked against what CPython printed (tests/fixtures/shim/golden.py).
describe("Python formatting matches CPython byte for byte", () => {
  test.each(golden.map((g) => ({ ...g, name: JSON.stringify(g.s) })))("$name", (g) => {
    expect({
      repr: pyRepr(g.s),
      list_repr: pyReprList(["issue", g.s]),
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

test("pyJsonDumps keeps Map key order, even integer-like keys", () => {
  const m = new Map<string, unknown>([
    ["2", "b"],
    ["1", "a"],
  ]);
  expect(pyJsonDumps(m, { separators: [",", ":"] })).toEqual('{"2":"b","1":"a"}');
});

test("pyJsonDumps of empty containers and bigint", () => {
  expect(pyJsonDumps({ a: [], b: {}, n: 9223372036854775807n }, { indent: 2 })).toEqual(
    '{\n  "a": [],\n  "b": {},\n  "n": 9223372036854775807\n}',
  );
});

test.each([
  { s: "./c.json", expected: "c.json" },
  { s: "a//b/./c.json", expected: "a/b/c.json" },
  { s: "/x/y/", expected: "/x/y" },
  { s: "//x/y", expected: "//x/y" },
  { s: "///x/y", expected: "/x/y" },
  { s: ".", expected: "." },
  { s: "./", expected: "." },
  { s: "a/../b", expected: "a/../b" },
  { s: "c.json/.", expected: "c.json" },
])("pyPath($s) is str(Path(...))", ({ s, expected }) => {
  expect(pyPath(s)).toEqual(expected);
});

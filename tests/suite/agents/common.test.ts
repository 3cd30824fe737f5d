import { expect, test } from "bun:test";
import { deepMerge, jsonLines, jsonObjects, shortFloat, toToml } from "../../../lib/suite/agents/_common.ts";

test.each([
  { n: 0.5, s: "0.5" },
  { n: 2, s: "2" },
  { n: 1e-7, s: "0.0000001" },
  { n: 1.5e-7, s: "0.00000015" },
  { n: 1e21, s: "1000000000000000000000" },
  { n: 1.25e21, s: "1250000000000000000000" },
  { n: -2.5e-7, s: "-0.00000025" },
])("shortFloat($n) = $s (Go's 'f', -1)", ({ n, s }) => {
  expect(shortFloat(n)).toBe(s);
});

test.each([
  { name: "flat", doc: { a: 1, b: "x", c: true }, toml: 'a = 1\nb = "x"\nc = true\n' },
  {
    name: "tables after scalars",
    doc: { t: { x: 1 }, a: [1, "two"] },
    toml: 'a = [1, "two"]\n\n[t]\nx = 1\n',
  },
  {
    name: "nested and quoted keys",
    doc: { "a.b": { "c d": { e: 'q"uote' } } },
    toml: '["a.b"."c d"]\ne = "q\\"uote"\n',
  },
  { name: "objects in arrays inline", doc: { l: [{ k: 1 }] }, toml: "l = [{ k = 1 }]\n" },
  { name: "empty table dropped", doc: { a: {} }, toml: "" },
])("toToml: $name", ({ doc, toml }) => {
  expect(toToml(doc)).toBe(toml);
});

test.each([
  { name: "null", doc: { a: { b: null } }, message: "cannot write a.b as TOML: null" },
  { name: "NaN", doc: { n: Number.NaN }, message: "cannot write n as TOML: number" },
])("toToml refuses $name", ({ doc, message }) => {
  expect(() => toToml(doc)).toThrow(message);
});

test("deepMerge merges objects key by key and replaces everything else", () => {
  expect(deepMerge({ a: { b: 1, c: [1] }, d: 1 }, { a: { c: [2], e: 3 }, d: { x: 1 } })).toEqual({
    a: { b: 1, c: [2], e: 3 },
    d: { x: 1 },
  });
});

test("jsonLines keeps object lines only", () => {
  expect(jsonLines('{"a":1}\n[1]\nnoise\n {"b":2} \n{bad\n')).toEqual([{ a: 1 }, { b: 2 }]);
});

test("jsonObjects finds documents among noise, braces in strings included", () => {
  expect(jsonObjects('x {y} {"a":"}{"} z\n{\n "b": {"c": 1}\n}\n{"open":')).toEqual([
    { a: "}{" },
    { b: { c: 1 } },
  ]);
});

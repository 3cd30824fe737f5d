import { describe, expect, test } from "bun:test";
import {
  CallIndex,
  type CassetteCall,
  CassetteError,
  hasJsonFlag,
  isDataCommand,
  normalizeArgv,
  parseCassette,
  requestedFields,
  toCall,
} from "../../lib/gh/cassette.ts";

describe("normalizeArgv", () => {
  test.each([
    {
      name: "space form sorts fields",
      argv: ["issue", "view", "7", "--json", "number,title,body,labels,state"],
      expected: ["issue", "view", "7", "--json", "body,labels,number,state,title"],
    },
    {
      name: "= form stays one token",
      argv: ["pr", "list", "--json=title, number,,"],
      expected: ["pr", "list", "--json=number,title"],
    },
    {
      name: "Python strip() whitespace (NBSP, em space, \\x1c)",
      argv: ["--json", "\u00a0b\u2003,\u001ca"],
      expected: ["--json", "a,b"],
    },
    {
      name: "code point order, not UTF-16 (U+FF5E before an emoji)",
      argv: ["--json", "\u{1F600},\uFF5E,a"],
      expected: ["--json", "a,\uFF5E,\u{1F600}"],
    },
    {
      name: "codepoint order (Z before a)",
      argv: ["--json", "a,Z,_x,10,9"],
      expected: ["--json", "10,9,Z,_x,a"],
    },
    {
      name: "trailing bare --json untouched",
      argv: ["issue", "list", "--json"],
      expected: ["issue", "list", "--json"],
    },
    {
      name: "--title consumes its value",
      argv: ["issue", "create", "--title", "--json", "b,a"],
      expected: ["issue", "create", "--title", "--json", "b,a"],
    },
    {
      name: "--body consumes its value",
      argv: ["--body", "--json=b,a", "--json", "d,c"],
      expected: ["--body", "--json=b,a", "--json", "c,d"],
    },
    {
      name: "--body-file consumes its value",
      argv: ["--body-file", "--json", "x"],
      expected: ["--body-file", "--json", "x"],
    },
    {
      name: "everything else byte-identical",
      argv: ["api", "--jq", ".[] | .a,b", "--paginate"],
      expected: ["api", "--jq", ".[] | .a,b", "--paginate"],
    },
    { name: "empty", argv: [], expected: [] },
  ])("$name", ({ argv, expected }) => {
    expect(normalizeArgv(argv)).toEqual([...expected]);
  });
});

describe("json flag and data commands", () => {
  test.each([
    { argv: ["issue", "view", "1", "--title", "--json", "a"], json: false, data: true },
    { argv: ["issue", "view", "1", "--json", "a"], json: true, data: true },
    { argv: ["issue", "view", "1", "--json=a"], json: true, data: true },
    { argv: ["issue", "view", "1", "--json="], json: true, data: true },
    { argv: ["issue", "view", "1", "--json"], json: false, data: true },
    { argv: ["issue", "list"], json: false, data: true },
    { argv: ["pr", "checks", "3"], json: false, data: true },
    { argv: ["pr", "create"], json: false, data: false },
    { argv: ["api", "repos/x"], json: false, data: false },
    { argv: ["issue"], json: false, data: false },
  ])("$argv", ({ argv, json, data }) => {
    expect({ json: hasJsonFlag(argv), data: isDataCommand(argv) }).toEqual({ json, data });
  });
});

test("requestedFields keeps request order, first --json wins", () => {
  expect([
    requestedFields(["issue", "view", "1", "--json", "title, number,,url"]),
    requestedFields(["issue", "view", "1", "--json", "a", "--json=c,b"]),
    requestedFields(["issue", "view", "1", "--title", "--json"]),
    requestedFields(["issue", "view", "1"]),
  ]).toEqual([["title", "number", "url"], ["a"], null, null]);
});

describe("parseCassette", () => {
  test("skips non-objects and non-list argv, coerces argv items with str()", () => {
    const c = parseCassette(
      JSON.stringify({
        calls: [
          5,
          null,
          { argv: "x" },
          { argv: ["issue", "view", 7, true, null, 1.5] },
          { match: "prefix", argv: [] },
        ],
      }),
      "c.json",
    );
    expect(c.calls.map(({ index, argv, prefix }) => ({ index, argv, prefix }))).toEqual([
      { index: 3, argv: ["issue", "view", "7", "True", "None", "1.5"], prefix: false },
      { index: 4, argv: [], prefix: true },
    ]);
  });

  function errorOf(text: string): { isCassetteError: boolean; exitCode: number; message: string } {
    try {
      parseCassette(text, "c.json");
    } catch (error) {
      return {
        isCassetteError: error instanceof CassetteError,
        exitCode: (error as CassetteError).exitCode,
        message: (error as Error).message,
      };
    }
    return { isCassetteError: false, exitCode: 0, message: "" };
  }

  test("invalid JSON is one line naming the file", () => {
    const e = errorOf("{");
    expect({ ...e, message: e.message.slice(0, 36), lines: e.message.split("\n").length }).toEqual({
      isCassetteError: true,
      exitCode: 1,
      message: "cassette is not valid JSON: c.json: ",
      lines: 1,
    });
  });

  test.each([
    { name: "root list", text: "[]", message: "cassette root must be a JSON object" },
    { name: "root string", text: '"x"', message: "cassette root must be a JSON object" },
    { name: "version 2", text: '{"version": 2}', message: "unsupported cassette version: 2" },
    { name: "version string", text: '{"version": "1"}', message: "unsupported cassette version: '1'" },
    { name: "version false", text: '{"version": false}', message: "unsupported cassette version: False" },
    { name: "calls object", text: '{"calls": {}}', message: "cassette.calls must be a list" },
    { name: "calls null", text: '{"calls": null}', message: "cassette.calls must be a list" },
  ])("$name", ({ text, message }) => {
    expect(errorOf(text)).toEqual({ isCassetteError: true, exitCode: 1, message });
  });

  test.each([
    { name: "version 1", text: '{"version": 1}' },
    { name: "version null", text: '{"version": null}' },
    { name: "version absent, calls absent", text: "{}" },
    { name: "version true (Python: True == 1)", text: '{"version": true}' },
  ])("accepts $name", ({ text }) => {
    expect(parseCassette(text, "c.json").calls).toEqual([]);
  });
});

function call(index: number, argv: string[], prefix = false): CassetteCall {
  return toCall({ argv, ...(prefix ? { match: "prefix" } : {}), stdout: String(index) }, index)!;
}

describe("CallIndex", () => {
  const cases = [
    {
      name: "exact first entry wins",
      calls: [call(0, ["a", "b"]), call(1, ["a", "b"])],
      argv: ["a", "b"],
      hit: 0,
    },
    {
      name: "exact beats an earlier prefix (T12)",
      calls: [call(0, ["pr"], true), call(1, ["pr", "view", "8", "--json", "title"])],
      argv: ["pr", "view", "8", "--json", "title"],
      hit: 1,
    },
    {
      name: "longest prefix first",
      calls: [call(0, ["pr"], true), call(1, ["pr", "view"], true)],
      argv: ["pr", "view", "9"],
      hit: 1,
    },
    {
      name: "equal-length prefixes keep cassette order",
      calls: [call(0, ["x", "y"], true), call(1, ["x", "y"], true), call(2, ["x"], true)],
      argv: ["x", "y", "z"],
      hit: 0,
    },
    {
      name: "prefix matches the whole call too",
      calls: [call(0, ["auth", "status"], true)],
      argv: ["auth", "status"],
      hit: 0,
    },
    { name: "exact is not a prefix", calls: [call(0, ["auth"])], argv: ["auth", "status"], hit: null },
    {
      name: "match other than prefix is exact",
      calls: [toCall({ argv: ["a"], match: "Prefix" }, 0)!],
      argv: ["a", "b"],
      hit: null,
    },
    {
      name: "normalised on both sides",
      calls: [call(0, ["issue", "view", "7", "--json", "title,number"])],
      argv: normalizeArgv(["issue", "view", "7", "--json", "number, title"]),
      hit: 0,
    },
  ];
  test.each(cases)("$name", ({ calls, argv, hit }) => {
    expect(new CallIndex(calls).lookup(argv)?.index ?? null).toEqual(hit);
  });

  test("an entry added later joins the lookup (buffered captures)", () => {
    const index = new CallIndex([call(0, ["a"])]);
    index.add(call(1, ["b"]));
    index.add(call(2, ["a"]));
    expect([index.lookup(["a"])?.index, index.lookup(["b"])?.index]).toEqual([0, 1]);
  });
});

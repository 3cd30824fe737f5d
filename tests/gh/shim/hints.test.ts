import { describe, expect, test } from "bun:test";
import { toCall } from "../../../lib/gh/cassette.ts";
import { describeEdit, nearestCalls, tokenEdits } from "../../../lib/gh/shim/hints.ts";

describe("tokenEdits reads left to right", () => {
  test.each([
    { name: "same", recorded: ["a", "b"], called: ["a", "b"], expected: [] },
    {
      name: "one changed",
      recorded: ["issue", "view", "7"],
      called: ["issue", "view", "8"],
      expected: ['argv[2]: recorded "7", called "8"'],
    },
    {
      name: "extra at the end",
      recorded: ["pr", "view"],
      called: ["pr", "view", "--web"],
      expected: ['extra "--web" (called argv[2])'],
    },
    {
      name: "missing in the middle",
      recorded: ["pr", "view", "-R", "o/r", "1"],
      called: ["pr", "view", "1"],
      expected: ['missing "-R" (recorded argv[2])', 'missing "o/r" (recorded argv[3])'],
    },
    { name: "empty call", recorded: ["x"], called: [], expected: ['missing "x" (recorded argv[0])'] },
  ])("$name", ({ recorded, called, expected }) => {
    expect(tokenEdits(recorded, called).map(describeEdit)).toEqual([...expected]);
  });
});

test("nearestCalls ranks by common leading tokens, then edits, then cassette order; unrelated entries are left out", () => {
  const calls = [
    toCall({ argv: ["pr", "view", "8", "--json", "title"] }, 0)!,
    toCall({ argv: ["issue", "view", "7", "--json", "title"] }, 1)!,
    toCall({ argv: ["issue", "view", "8", "--json", "body"] }, 2)!,
    toCall({ argv: ["issue", "view", "9"], match: "prefix" }, 3)!,
    toCall({ argv: ["issue", "list", "--json", "title"] }, 4)!,
  ];
  const near = nearestCalls(calls, ["issue", "view", "8", "--json", "title"]);
  expect(near.map((n) => ({ index: n.call.index, edits: n.edits.map(describeEdit) }))).toEqual([
    { index: 2, edits: ['argv[4]: recorded "body", called "title"'] },
    { index: 1, edits: ['argv[2]: recorded "7", called "8"'] },
    { index: 3, edits: ['argv[2]: recorded "9", called "8"'] },
  ]);
});

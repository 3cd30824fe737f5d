// "Did you mean": the distance (a neighbour swap is one edit), when a guess is close enough to offer,
// and the one-line refusals built on it.
import { describe, expect, test } from "bun:test";
import { closest, editDistance, unknownFlag, unknownWord } from "../../lib/core/suggest.ts";

test.each([
  { a: "", b: "", d: 0 },
  { a: "jobs", b: "jobs", d: 0 },
  { a: "jbos", b: "jobs", d: 1 },
  { a: "paralel", b: "parallel", d: 1 },
  { a: "outptu", b: "output", d: 1 },
  { a: "runz", b: "runs", d: 1 },
  { a: "ca", b: "abc", d: 3 },
  { a: "", b: "abc", d: 3 },
  { a: "kitten", b: "sitting", d: 3 },
])("editDistance($a, $b) = $d", ({ a, b, d }) => {
  expect([editDistance(a, b), editDistance(b, a)]).toEqual([d, d]);
});

describe("closest", () => {
  const flags = ["jobs", "json", "j", "junit", "repo"];
  test.each([
    { word: "jbos", want: "jobs" },
    { word: "jsno", want: "json" },
    { word: "x", want: undefined },
    { word: "J", want: undefined },
    { word: "bogus", want: undefined },
    { word: "reop", want: "repo" },
    { word: "junti", want: "junit" },
  ])("$word -> $want", ({ word, want }) => {
    expect(closest(word, flags)).toEqual(want);
  });

  test("the first of equally close candidates", () => {
    expect(closest("jso", ["jsx", "json"])).toEqual("jsx");
  });
});

test.each([
  { word: "sutie", want: 'Unknown command "sutie" for agent-eval: did you mean suite?' },
  { word: "zzz", want: 'Unknown command "zzz" for agent-eval: expected one of lock, suite' },
])("unknownWord $word", ({ word, want }) => {
  expect(unknownWord("command", word, ["lock", "suite"], "agent-eval")).toEqual(want);
});

test.each([
  {
    raw: "--jbos",
    names: ["--jobs"],
    want: 'Cannot accept unknown flag "--jbos": did you mean --jobs? (see t --help)',
  },
  {
    raw: "--zzz",
    names: ["--jobs"],
    want: 'Cannot accept unknown flag "--zzz": expected one of --jobs (see t --help)',
  },
  { raw: "--zzz", names: [], want: 'Cannot accept unknown flag "--zzz": t takes no flags (see t --help)' },
])("unknownFlag $raw", ({ raw, names, want }) => {
  expect(unknownFlag(raw, new Map([["jobs", "--jobs"]]), names, "t")).toEqual(want);
});

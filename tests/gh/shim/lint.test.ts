import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../../lib/core/errors.ts";
import { formatFindings, lintCassetteFile, lintCassetteText } from "../../../lib/gh/shim/lint.ts";
import { tempDir } from "../../support/tmp.ts";

const lint = (value: unknown) => lintCassetteText(typeof value === "string" ? value : JSON.stringify(value));
const codes = (value: unknown) => lint(value).map((f) => `${f.path} ${f.severity} ${f.code}`);

describe("file-level findings", () => {
  test.each([
    {
      name: "clean",
      value: { version: 1, calls: [{ argv: ["auth", "status"], match: "prefix", stdout: "ok\n" }] },
      expected: [],
    },
    { name: "malformed JSON", value: '{"calls": [', expected: ["$ error invalid-json"] },
    { name: "byte-order mark", value: '\uFEFF{"calls": []}', expected: ["$ error encoding"] },
    { name: "root not an object", value: [], expected: ["$ error root"] },
    { name: "bad version", value: { version: "1", calls: [] }, expected: ["version error version"] },
    {
      name: "version true is still bad",
      value: { version: true, calls: [] },
      expected: ["version error version"],
    },
    { name: "calls not a list", value: { calls: { a: 1 } }, expected: ["calls error calls"] },
    {
      name: "unknown root key",
      value: { calls: [], comment: "x" },
      expected: ["comment warning unknown-key"],
    },
  ])("$name", ({ value, expected }) => {
    expect(codes(value)).toEqual([...expected]);
  });
});

describe("entries", () => {
  test.each([
    {
      name: "non-object entry is skipped by the replayer",
      calls: [5],
      expected: ["calls[0] error not-object"],
    },
    { name: "argv not a list", calls: [{ argv: "issue view" }], expected: ["calls[0].argv error argv"] },
    { name: "argv missing", calls: [{ stdout: "x" }], expected: ["calls[0].argv error argv"] },
    {
      name: "non-string argv item",
      calls: [{ argv: ["issue", "view", 7, "--json", "a"] }],
      expected: ["calls[0].argv[2] warning argv-item"],
    },
    {
      name: "data command without --json can never match",
      calls: [{ argv: ["issue", "view", "7"] }, { argv: ["pr", "checks", "1", "--json"] }],
      expected: ["calls[0].argv error needs-json", "calls[1].argv error needs-json"],
    },
    {
      name: "prefix data command is fine (calls add --json)",
      calls: [{ argv: ["issue", "view"], match: "prefix" }],
      expected: [],
    },
    { name: "gh api needs no --json", calls: [{ argv: ["api", "repos/o/r", "--jq", ".x"] }], expected: [] },
    {
      name: "help, version and bare gh are answered first",
      calls: [{ argv: [] }, { argv: ["--version"] }, { argv: ["help", "issue"] }],
      expected: [
        "calls[0].argv error unreachable",
        "calls[1].argv error unreachable",
        "calls[2].argv error unreachable",
      ],
    },
    { name: "NUL in argv", calls: [{ argv: ["a\u0000b"] }], expected: ["calls[0].argv error unreachable"] },
    {
      name: "exact duplicate: first wins",
      calls: [{ argv: ["pr", "create"] }, { argv: ["pr", "create"], stdout: "other" }],
      expected: ["calls[1].argv error duplicate"],
    },
    {
      name: "duplicate after normalisation (and only that line, not also not-normalised)",
      calls: [
        { argv: ["pr", "view", "1", "--json", "a,b"] },
        { argv: ["pr", "view", "1", "--json", "b, a"] },
      ],
      expected: ["calls[1].argv error duplicate"],
    },
    {
      name: "unsorted --json list still matches: warning",
      calls: [{ argv: ["pr", "view", "1", "--json", "title,number"] }],
      expected: ["calls[0].argv warning not-normalised"],
    },
    {
      name: "prefix duplicate: the later never matches",
      calls: [
        { argv: ["auth"], match: "prefix" },
        { argv: ["auth"], match: "prefix" },
      ],
      expected: ["calls[1].argv error duplicate"],
    },
    {
      name: "exact and prefix with the same argv do not shadow each other",
      calls: [{ argv: ["auth", "status"], match: "prefix" }, { argv: ["auth", "status"] }],
      expected: [],
    },
    {
      name: "a shorter prefix is never fully shadowed by a longer one",
      calls: [
        { argv: ["pr", "view"], match: "prefix" },
        { argv: ["pr"], match: "prefix" },
      ],
      expected: [],
    },
    {
      name: "field types, unknown keys and odd match values",
      calls: [{ argv: ["a"], stdout: 5, exit: 300, mtach: "prefix", match: "prefixed" }],
      expected: [
        "calls[0] warning unknown-key",
        "calls[0].match warning type",
        "calls[0].stdout warning type",
        "calls[0].exit warning type",
      ],
    },
  ])("$name", ({ calls, expected }) => {
    expect(codes({ version: 1, calls }).sort()).toEqual([...expected].sort());
  });
});

test("a finding line names the file, the entry and what is expected", () => {
  const findings = lint({ calls: [{ argv: ["pr", "create"] }, { argv: ["pr", "create"] }] });
  expect(formatFindings("c.json", findings)).toEqual(
    'c.json: calls[1].argv: error [duplicate] same normalised argv as calls[0] ["pr","create"], which wins; this entry never matches: remove it or change its argv\n',
  );
});

test("lintCassetteFile: exit codes, and unreadable is a usage error (exit 2)", () => {
  using dir = tempDir("shim-lint");
  const ok = join(dir.path, "ok.json");
  const bad = join(dir.path, "bad.json");
  writeFileSync(ok, '{"version": 1, "calls": []}');
  writeFileSync(bad, "[]");
  const latin1 = join(dir.path, "latin1.json");
  writeFileSync(latin1, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
  let unreadable: unknown;
  try {
    lintCassetteFile(join(dir.path, "missing.json"));
  } catch (error) {
    unreadable = error;
  }
  expect({
    ok: lintCassetteFile(ok),
    bad: lintCassetteFile(bad),
    latin1: lintCassetteFile(latin1),
    unreadable: unreadable instanceof UsageError && (unreadable as UsageError).exitCode,
  }).toEqual({
    ok: { exitCode: 0, output: "" },
    bad: {
      exitCode: 1,
      output: `${bad}: $: error [root] root is a list; expected a JSON object {"version": 1, "calls": [...]}\n`,
    },
    latin1: {
      exitCode: 1,
      output: `${latin1}: $: error [encoding] not valid UTF-8; expected a UTF-8 JSON file\n`,
    },
    unreadable: 2,
  });
});

import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { Case, caseJsonSchema, loadCase, MAX_CASE_BYTES } from "../../lib/grade/case.ts";
import { FIXTURES, REPO, writeCase } from "../support/grade.ts";
import { tempDir } from "../support/tmp.ts";

const U = join(FIXTURES, "unusable");

describe("loadCase refuses an unusable case with one line naming the file and field", () => {
  const cases = [
    { dir: "no-case-json", message: `missing case.json: ${U}/no-case-json/case.json` },
    { dir: "does-not-exist", message: `missing case.json: ${U}/does-not-exist/case.json` },
    {
      dir: "malformed",
      message: `Cannot parse case "${U}/malformed/case.json": Expecting property name enclosed in double quotes at line 3 column 28`,
    },
    {
      dir: "not-an-object",
      message: `Cannot load case "${U}/not-an-object/case.json": expected an object at the top level`,
    },
    { dir: "not-utf8", message: `Cannot read case "${U}/not-utf8/case.json": not valid UTF-8` },
    { dir: "grade-empty", message: "case u/grade-empty: grade section missing or empty" },
    { dir: "grade-missing", message: "case u/grade-missing: grade section missing or empty" },
    { dir: "grade-not-list", message: "case u/grade-not-list: grade section missing or empty" },
    {
      dir: "version-2",
      message: `Cannot load case "${U}/version-2/case.json": expected 1 at version, got 2`,
    },
  ];
  for (const c of cases) {
    test(c.dir, () => {
      let error: unknown;
      try {
        loadCase(join(U, c.dir));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toEqual(c.message);
    });
  }
});

describe("loadCase reads what grading needs, leniently", () => {
  test("existing cases without a version load unchanged; bad assertions are left to the grader", () => {
    using tmp = tempDir("case");
    const data = { name: "s/c", prompt: "p", grade: [5, { tool: "nope" }], extra: true };
    const { caseDir } = writeCase(tmp.path, data);
    expect(loadCase(caseDir)).toEqual({
      path: join(caseDir, "case.json"),
      dir: caseDir,
      name: "s/c",
      data,
      grade: data.grade,
    });
  });

  test("the name falls back to the directory name when absent or empty", () => {
    using tmp = tempDir("case");
    const { caseDir } = writeCase(tmp.path, { name: "", grade: [{}] });
    expect(loadCase(caseDir).name).toEqual("case");
  });
});

test("every grade fixture that is a good case parses with the Case schema", () => {
  for (const name of [
    "trivial-bug",
    "gh-call-counter",
    "merge-gating",
    "shell-bad-branch",
    "lint-fails-expect-1",
  ]) {
    const data = JSON.parse(readFileSync(join(FIXTURES, name, "case", "case.json"), "utf8"));
    expect({ name, success: Case.safeParse(data).success }).toEqual({ name, success: true });
  }
});

test("schemas/case.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO, "schemas", "case.schema.json"), "utf8"));
  expect(committed).toEqual(caseJsonSchema());
});

describe("hostile case.json files: one line naming the file and what is wrong, never a stack", () => {
  const rows: { name: string; write: (path: string) => void; message: (path: string) => string }[] = [
    {
      name: "cut off mid-list",
      write: (p) => writeFileSync(p, '{"name": "x", "grade": [\n'),
      message: (p) => `Cannot parse case "${p}": Expecting value at line 2 column 1`,
    },
    {
      name: "nested 5000 deep (bounded, no stack overflow)",
      write: (p) => writeFileSync(p, `${"[".repeat(5000)}${"]".repeat(5000)}`),
      message: (p) => `Cannot parse case "${p}": Nesting too deep at line 1 column 902`,
    },
    {
      name: "nested 100000 deep in an object",
      write: (p) => writeFileSync(p, `{"grade": ${'{"a": '.repeat(100_000)}1${"}".repeat(100_001)}`),
      message: (p) => `Cannot parse case "${p}": Nesting too deep at line 1 column 5411`,
    },
    {
      name: "a FIFO (refused without blocking)",
      write: (p) => execFileSync("mkfifo", [p]),
      message: (p) => `Cannot read case "${p}": not a regular file`,
    },
    {
      name: "sparse 2 GiB (refused before any read)",
      write: (p) => {
        writeFileSync(p, "");
        truncateSync(p, 2 ** 31);
      },
      message: (p) => `Cannot read case "${p}": larger than ${MAX_CASE_BYTES} bytes`,
    },
    {
      name: "parses, but a field is wrong",
      write: (p) => writeFileSync(p, '{"version": "1", "grade": [{}]}'),
      message: (p) => `Cannot load case "${p}": expected 1 at version, got '1'`,
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      using tmp = tempDir("case-hostile");
      const path = join(tmp.path, "case.json");
      row.write(path);
      let error: unknown;
      try {
        loadCase(tmp.path);
      } catch (e) {
        error = e;
      }
      expect({ type: (error as Error).name, message: (error as Error).message }).toEqual({
        type: "ConfigError",
        message: row.message(path),
      });
    });
  }
});

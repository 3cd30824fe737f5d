import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  COUNTER_MAX,
  createIssue,
  parseCreateArgs,
  readCounter,
  viewedIssueNumber,
  viewIssue,
} from "../../../lib/gh/shim/issues.ts";
import { tempDir } from "../../support/tmp.ts";

describe("readCounter", () => {
  test.each([
    { name: "plain", text: "41", expected: { value: 41n } },
    { name: "newline and spaces", text: " 7\n", expected: { value: 7n } },
    { name: "underscores like int()", text: "1_000", expected: { value: 1000n } },
    { name: "zero", text: "0", expected: { value: 0n } },
    { name: "max", text: "9223372036854775807", expected: { value: COUNTER_MAX } },
    {
      name: "empty",
      text: "",
      expected: { value: 0n, invalid: "invalid literal for int() with base 10: ''" },
    },
    {
      name: "garbage",
      text: " abc\n",
      expected: { value: 0n, invalid: "invalid literal for int() with base 10: 'abc'" },
    },
    {
      name: "float",
      text: "1.5",
      expected: { value: 0n, invalid: "invalid literal for int() with base 10: '1.5'" },
    },
    {
      name: "double underscore",
      text: "1__0",
      expected: { value: 0n, invalid: "invalid literal for int() with base 10: '1__0'" },
    },
    { name: "plus sign", text: "+5", expected: { value: 5n } },
    {
      name: "negative",
      text: "-1",
      expected: { value: 0n, invalid: "counter is outside the supported range" },
    },
    {
      name: "2^63",
      text: "9223372036854775808",
      expected: { value: 0n, invalid: "counter is outside the supported range" },
    },
    { name: "65 bytes", text: "1".repeat(65), expected: { value: 0n, invalid: "counter exceeds 64 bytes" } },
  ])("$name", ({ text, expected }) => {
    using dir = tempDir("shim-issues");
    const path = join(dir.path, "issue_counter");
    writeFileSync(path, text);
    expect(readCounter(path)).toEqual(expected);
  });

  test.each([
    {
      name: "invalid start byte",
      bytes: [0x31, 0xff],
      reason: "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte",
    },
    {
      name: "truncated",
      bytes: [0xe2, 0x82],
      reason: "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data",
    },
    {
      name: "bad continuation",
      bytes: [0xe2, 0x82, 0x28],
      reason: "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte",
    },
    {
      name: "surrogate",
      bytes: [0xed, 0xa0, 0x80],
      reason: "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte",
    },
  ])("non-UTF-8 ($name) reads as 0 with Python's reason", ({ bytes, reason }) => {
    using dir = tempDir("shim-issues");
    const path = join(dir.path, "issue_counter");
    writeFileSync(path, Buffer.from(bytes));
    expect(readCounter(path)).toEqual({ value: 0n, invalid: reason });
  });

  test("a directory where the counter should be reads as 0 with a reason", () => {
    using dir = tempDir("shim-issues");
    expect(readCounter(dir.path)).toEqual({ value: 0n, invalid: "cannot read counter (EISDIR)" });
  });

  test("missing reads as 0", () => {
    using dir = tempDir("shim-issues");
    expect(readCounter(join(dir.path, "nope"))).toEqual({ value: 0n });
  });
});

describe("parseCreateArgs", () => {
  test.each([
    { name: "defaults", argv: ["issue", "create"], expected: { title: "untitled", body: "" } },
    {
      name: "space forms",
      argv: ["issue", "create", "--title", "T", "--body", "B"],
      expected: { title: "T", body: "B" },
    },
    {
      name: "= forms",
      argv: ["issue", "create", "--title=a=b", "--body=x"],
      expected: { title: "a=b", body: "x" },
    },
    {
      name: "later wins",
      argv: ["--title", "1", "--title", "2", "--body", "a", "--body", "b"],
      expected: { title: "2", body: "b" },
    },
    {
      name: "value that looks like a flag",
      argv: ["--title", "--body", "--body", "real"],
      expected: { title: "--body", body: "real" },
    },
    { name: "dangling flag ignored", argv: ["--title"], expected: { title: "untitled", body: "" } },
    {
      name: "--json consumes a flag-like value",
      argv: ["--json", "--title", "x"],
      expected: { title: "untitled", body: "" },
    },
    {
      name: "body-file then body",
      argv: ["--body-file", "b.md", "--body", "inline"],
      expected: { title: "untitled", body: "inline" },
    },
    {
      name: "body then body-file",
      argv: ["--body", "inline", "--body-file=b.md"],
      expected: { title: "untitled", body: "from\nfile\n" },
    },
  ])("$name", ({ argv, expected }) => {
    using dir = tempDir("shim-issues");
    writeFileSync(join(dir.path, "b.md"), "from\r\nfile\r");
    expect(parseCreateArgs(argv, dir.path)).toEqual(expected);
  });
});

test("viewedIssueNumber: first all-digit token after view", () => {
  expect([
    viewedIssueNumber(["issue", "view", "12", "--json", "a"]),
    viewedIssueNumber(["issue", "view", "--json", "a", "007"]),
    viewedIssueNumber(["issue", "view", "-R", "o/r", "#3"]),
  ]).toEqual(["12", "007", null]);
});

describe("counter (T20)", () => {
  test.each([
    {
      name: "corrupt counter resets with a warning",
      counter: "garbage",
      reason: "invalid literal for int() with base 10: 'garbage'",
    },
    {
      name: "oversize counter resets with a warning",
      counter: "9".repeat(100),
      reason: "counter exceeds 64 bytes",
    },
    {
      name: "out-of-range counter resets with a warning",
      counter: "9223372036854775808",
      reason: "counter is outside the supported range",
    },
  ])("$name", async ({ counter, reason }) => {
    using dir = tempDir("shim-issues");
    const path = join(dir.path, "issue_counter");
    writeFileSync(path, counter);
    expect({
      out: await createIssue(["issue", "create"], dir.path, dir.path),
      counter: readFileSync(path, "utf8"),
    }).toEqual({
      out: {
        stdout: "https://github.com/eval/harness/issues/1\n",
        stderr: `⚠ gh shim: invalid issue counter ${path}: ${reason}; resetting to 0\n`,
        exitCode: 0,
      },
      counter: "1",
    });
  });

  test("exhaustion: exit 1, counter untouched, no issue written", async () => {
    using dir = tempDir("shim-issues");
    const path = join(dir.path, "issue_counter");
    writeFileSync(path, "9223372036854775807");
    const out = await createIssue(["issue", "create"], dir.path, dir.path);
    expect({ out, counter: readFileSync(path, "utf8"), files: readdirSync(dir.path).sort() }).toEqual({
      out: { stdout: "", stderr: "✗ gh shim: issue counter exhausted at 9223372036854775807\n", exitCode: 1 },
      counter: "9223372036854775807",
      files: ["issue_counter", "issue_counter.lock"],
    });
  });

  test("one below the maximum allocates the maximum, then refuses", async () => {
    using dir = tempDir("shim-issues");
    writeFileSync(join(dir.path, "issue_counter"), "9223372036854775806");
    const a = await createIssue(["issue", "create"], dir.path, dir.path);
    const b = await createIssue(["issue", "create"], dir.path, dir.path);
    expect([a.stdout, b.exitCode, readFileSync(join(dir.path, "issue_counter"), "utf8")]).toEqual([
      "https://github.com/eval/harness/issues/9223372036854775807\n",
      1,
      "9223372036854775807",
    ]);
  });

  test("without a state dir: issue 1, nothing stored", async () => {
    expect(await createIssue(["issue", "create"], undefined, "/")).toEqual({
      stdout: "https://github.com/eval/harness/issues/1\n",
      stderr: "",
      exitCode: 0,
    });
  });

  test("state dir is created with mkdir -p", async () => {
    using dir = tempDir("shim-issues");
    const state = join(dir.path, "a", "b");
    const out = await createIssue(["issue", "create", "--title", "t"], state, dir.path);
    expect({ out: out.stdout, files: readdirSync(state).sort() }).toEqual({
      out: "https://github.com/eval/harness/issues/1\n",
      files: ["issue_1.json", "issue_1.md", "issue_counter", "issue_counter.lock"],
    });
  });
});

describe("viewIssue", () => {
  test("whole record without a field list; corrupt state is one line", () => {
    using dir = tempDir("shim-issues");
    writeFileSync(join(dir.path, "issue_3.json"), '{"number": 3, "title": "t"}');
    writeFileSync(join(dir.path, "issue_4.json"), "{");
    const bad = viewIssue(["issue", "view", "4", "--json", "x"], dir.path);
    expect({
      whole: viewIssue(["issue", "view", "3", "--json="], dir.path),
      bad: {
        ...bad,
        stderr: bad?.stderr.startsWith(
          `✗ gh shim: cannot read issue state ${join(dir.path, "issue_4.json")}: `,
        ),
      },
      other: viewIssue(["issue", "list", "3"], dir.path),
      none: viewIssue(["issue", "view", "3", "--json", "a"], undefined),
    }).toEqual({
      whole: { stdout: '{"number":3,"title":"t"}\n', stderr: "", exitCode: 0 },
      bad: { stdout: "", stderr: true, exitCode: 1 },
      other: null,
      none: null,
    });
  });
});

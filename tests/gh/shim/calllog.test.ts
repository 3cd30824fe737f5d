import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { appendCallLog, callLogLine } from "../../../lib/gh/shim/calllog.ts";
import { tempDir } from "../../support/tmp.ts";

test.each([
  { name: "plain", argv: ["issue", "view", "7"], line: '{"argv": ["issue", "view", "7"]}\n' },
  { name: "bare gh", argv: [], line: '{"argv": []}\n' },
  {
    name: "non-ASCII unescaped, slash kept",
    argv: ["--title", "héllo ✓ a/b"],
    line: '{"argv": ["--title", "héllo ✓ a/b"]}\n',
  },
  {
    name: "escapes like Python",
    argv: ['q"\\\n\r\t\b\f\u0001\u007f'],
    line: '{"argv": ["q\\"\\\\\\n\\r\\t\\b\\f\\u0001\u007f"]}\n',
  },
])("callLogLine: $name", ({ argv, line }) => {
  expect(callLogLine(argv)).toEqual(line);
});

test("appendCallLog appends whole lines; a failure is a warning", async () => {
  using dir = tempDir("shim-log");
  const log = join(dir.path, "calls.jsonl");
  const results = [await appendCallLog(log, ["a"]), await appendCallLog(log, ["b"])];
  const failed = await appendCallLog(dir.path, ["c"]);
  expect({
    results,
    log: readFileSync(log, "utf8"),
    failed: failed?.startsWith(`⚠ gh shim: cannot append to EVAL_GH_CALL_LOG ${dir.path}: EISDIR`),
  }).toEqual({
    results: [null, null],
    log: '{"argv": ["a"]}\n{"argv": ["b"]}\n',
    failed: true,
  });
});

test("concurrent appends in one process take turns (no flock self-deadlock), one line each", async () => {
  using dir = tempDir("shim-log");
  const log = join(dir.path, "calls.jsonl");
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => appendCallLog(log, [String(i)])));
  const lines = readFileSync(log, "utf8").trimEnd().split("\n");
  expect({
    results: results.every((r) => r === null),
    lines: lines.length,
    all: new Set(lines).size,
  }).toEqual({
    results: true,
    lines: 50,
    all: 50,
  });
});

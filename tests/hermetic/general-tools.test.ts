// run-eval and the general grade tools: the fixture case tests/fixtures/hermetic/general-tools uses
// every one of them (its `command` assertions run in the subject's sandbox, OUT their directory) and
// passes; a malformed assertion in any case is refused with exit 2 before any subject starts.
import { describe, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

const FIXTURE = join(REPO_ROOT, "tests", "fixtures", "hermetic", "general-tools");

/** stdout from the grade block on (the header above it is the run's, not the tools'). */
const gradeBlock = (stdout: string) => stdout.slice(Math.max(0, stdout.indexOf("◆ grade")));

test("a case using every general tool passes through run-eval", async () => {
  using tmpDir = openTmp();
  const r = await runEval([FIXTURE], { TMPDIR: tmpDir.path });
  expect({ code: r.exitCode, grade: gradeBlock(r.stdout), stderr: r.stderr }).toEqual({
    code: 0,
    grade: [
      "◆ grade hermetic/general-tools",
      "┄".repeat(40),
      "  ✓ the report says ok",
      "  ✓ two list items",
      "  ✓ nothing left to do",
      // issue 26: a check that fails as expect_exit 1 asks prints nothing beside its ✓.
      "  ✓ grader is not vacuous",
      "  ✓ report is the golden one",
      "  ✓ result status",
      "  ✓ second item id",
      "  ✓ report has four lines",
      "  ✓ no missing.txt",
      "  ✓ command runs in OUT",
      "┄".repeat(40),
      "✓ grade passed: 10 assertions",
      "✓ eval passed: hermetic/general-tools",
      "",
    ].join("\n"),
    stderr: "",
  });
});

describe("every case is linted before any subject starts (exit 2)", () => {
  test("a misspelt tool: the case file, the assertion, what is wrong; no subject ran", async () => {
    using dir = tempDir("run-eval-lint");
    const keep = join(dir.path, "keep");
    // The good case comes first: it must not run either.
    const good = writeEvalCase(dir.path, { name: "a-good", body: 'touch "$OUT/marker"' });
    const bad = writeEvalCase(dir.path, {
      name: "b-misspelt",
      body: 'touch "$OUT/marker"',
      grade: [
        { tool: "file-exist", file: "OUT/marker", label: "marker written" },
        { tool: "file-contains", file: "OUT/marker", text: "x", regex: "x", label: "both" },
        { tool: "json-path", file: "OUT/a.json", path: "a", equals: 1, colour: "red", label: "extra key" },
      ],
    });
    const r = await runEval(["--keep", keep, good, bad]);
    const file = `${realpathSync(bad)}/case.json`;
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `✗ ${file}: grade[0].tool: expected one of idd-lint, gi-runlog-echo, file-exists, red-green, shell, gh-calls, file-contains, file-not-contains, file-equals, json-path, command, got 'file-exist' (did you mean "file-exists"?)`,
        `✗ ${file}: grade[2].colour: unknown field`,
        `✗ ${file}: grade[1].text: expected exactly one of text, regex`,
        "✗ refused: 3 malformed assertion(s), no subject started (grade lint CASE checks one case)",
        "",
      ].join("\n"),
    });
    expect(existsSync(keep)).toBe(false); // no case got as far as a work directory, so no subject ran
  });

  test("a case that lints clean but for its authoring rules still runs (labels are optional)", async () => {
    using dir = tempDir("run-eval-lint-ok");
    using tmpDir = openTmp();
    const c = writeEvalCase(dir.path, {
      name: "unlabelled",
      body: 'echo hi > "$OUT/a.txt"',
      grade: [{ tool: "file-contains", file: "OUT/a.txt", text: "hi" }],
    });
    const r = await runEval([c], { TMPDIR: tmpDir.path });
    expect({ code: r.exitCode, grade: gradeBlock(r.stdout), stderr: r.stderr }).toEqual({
      code: 0,
      grade: [
        "◆ grade unlabelled",
        "┄".repeat(40),
        "  ✓ file-contains expect_exit=0",
        "┄".repeat(40),
        "✓ grade passed: 1 assertions",
        "✓ eval passed: unlabelled",
        "",
      ].join("\n"),
      stderr: "",
    });
  });
});

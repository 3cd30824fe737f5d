// Failures that explain themselves, and progress where people look (issue 15): the header's `out:`
// names no path that is deleted (and --keep says where OUT went), a cassette miss names the case's
// own cassettes.json, and without a terminal each finished case prints one line.
import { describe, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { showCaseCassette } from "../../lib/hermetic/collect.ts";
import { outShown } from "../../lib/hermetic/output.ts";
import { resultWord } from "../../lib/hermetic/summary.ts";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

describe("units", () => {
  test("outShown: no path when OUT is deleted; with --keep, the path and where it is copied", () => {
    expect([outShown("/t/w/out", undefined), outShown("/t/w/out", "/k")]).toEqual([
      "deleted after the run (--keep DIR keeps it)",
      "/t/w/out (copied under /k after the run)",
    ]);
  });

  test("showCaseCassette: the work copy is named as the case's file; an empty stand-in says so", () => {
    const miss = (p: string) => `✗ unmatched gh call (no cassette entry):\n  argv: ['x']\n  cassette: ${p}\n`;
    expect([
      showCaseCassette(miss("/w/cassettes.json"), "/w/cassettes.json", "/cases/a"),
      showCaseCassette(miss("/w/empty-cassettes.json"), "/w/empty-cassettes.json", "/cases/b"),
      showCaseCassette("no miss here\n", "/w/cassettes.json", "/cases/a"),
    ]).toEqual([
      miss("/cases/a/cassettes.json"),
      miss("/cases/b/cassettes.json (not there: the case ran on an empty cassette)"),
      "no miss here\n",
    ]);
  });

  test("resultWord: pass, fail, a subject's own exit, an error", () => {
    expect(
      [
        { exitCode: 0, stage: "done" },
        { exitCode: 1, stage: "grade" },
        { exitCode: 7, stage: "subject" },
        { exitCode: 2, stage: "refused" },
      ].map((c) => resultWord(c as Parameters<typeof resultWord>[0])),
    ).toEqual(["pass", "fail", "exit 7", "error 2"]);
  });
});

const CASSETTE = {
  version: 1,
  calls: [{ argv: ["issue", "view", "1", "--json", "title"], stdout: '{"title":"t"}\n' }],
};

describe("a sandboxed run", () => {
  test("a cassette miss names the case's cassettes.json; --keep says where OUT went", async () => {
    using dir = tempDir("run-eval-explain");
    using tmp = openTmp();
    const keep = join(dir.path, "kept");
    const c = writeEvalCase(dir.path, {
      name: "miss",
      cassettes: CASSETTE,
      body: 'gh issue view 2 --json title > "$OUT/issue.json" || true',
      grade: [{ tool: "file-exists", file: "OUT/issue.json", label: "issue read" }],
    });
    const r = await runEval(["--keep", keep, c], { TMPDIR: tmp.path });
    const work = /gh: {3}(\S+)\/bin\/gh\n/.exec(r.stdout)?.[1] ?? "";
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: [
        "◆ eval miss",
        "┄".repeat(20),
        `  case: ${realpathSync(c)}`,
        `  out:  ${work}/out (copied under ${keep} after the run)`,
        `  gh:   ${work}/bin/gh`,
        "  ✓ subject completed",
        "◆ grade miss",
        "┄".repeat(40),
        "  ✓ issue read",
        "┄".repeat(40),
        "✓ grade passed: 1 assertions",
        "✓ eval passed: miss",
        `  kept: ${join(keep, "miss")}`,
        "",
      ].join("\n"),
      stderr: [
        "✗ unmatched gh call (no cassette entry):",
        "  argv: ['issue', 'view', '2', '--json', 'title']",
        `  cassette: ${realpathSync(c)}/cassettes.json`,
        '  hint: the cassette exists and has 1 usable entry; the call normalises to ["issue","view","2","--json","title"]',
        "  closest recorded entries:",
        '    calls[0] ["issue","view","1","--json","title"]',
        '      argv[2]: recorded "1", called "2"',
        "",
      ].join("\n"),
    });
  });

  test("without a terminal, one line per finished case: n of N, name, result, time", async () => {
    using dir = tempDir("run-eval-explain");
    using tmp = openTmp();
    const pass = writeEvalCase(dir.path, { name: "a-pass", body: "" });
    const fail = writeEvalCase(dir.path, {
      name: "b-fail",
      body: "",
      grade: [{ tool: "file-exists", file: "OUT/report.md", label: "report written" }],
    });
    const r = await runEval(["-j", "1", pass, fail], { TMPDIR: tmp.path });
    const lines = r.stderr.split("\n").map((l) => l.replace(/ · [\d.]+s$/, " · <time>"));
    const failBlock = r.stdout.split(/^(?=◆ eval )/m).find((b) => b.startsWith("◆ eval b-fail")) ?? "";
    expect({
      code: r.exitCode,
      lines,
      detail: failBlock.split("\n").filter((l) => l.includes("report")),
    }).toEqual({
      code: 1,
      lines: [
        "run-eval 1/2 · a-pass · pass · <time>",
        "run-eval 2/2 · b-fail · fail · <time>",
        "✗ eval failed: b-fail",
        "",
      ],
      detail: ["    │ no file at OUT/report.md", "  ✗ report written (want exit 0, got 1)"],
    });
  });
});

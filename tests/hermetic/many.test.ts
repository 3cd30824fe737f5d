// Many cases in one run-eval invocation, sandboxed for real: the subject's environment holds exactly
// the documented keys (no token, proxy or GIT_* variable of the runner), the call log is published
// over (never through) a link the subject left, --keep, --junit, $GITHUB_STEP_SUMMARY, --json, the
// most severe exit code, and whole blocks printed in input order under -j.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcResult } from "../../lib/core/proc.ts";
import { run } from "../../lib/core/proc.ts";
import { SUBJECT_ENV_KEYS } from "../../lib/hermetic/layout.ts";
import { RunResult } from "../../lib/hermetic/result.ts";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

const dir = tempDir("run-eval-many");
const tmp = openTmp();
const keep = join(dir.path, "keep");
const junit = join(dir.path, "junit.xml");
const stepSummary = join(dir.path, "step-summary.md");
const victim = join(dir.path, "victim.txt");
let r: ProcResult;
let result: RunResult;

const published = { tool: "file-exists", file: "OUT/gh-calls.jsonl", label: "the call log is published" };
const CASES = [
  { name: "env-dump", body: 'env > "$OUT/env.txt"\ngh --version > /dev/null' },
  { name: "link-in-out", body: `ln -s '${victim}' "$OUT/gh-calls.jsonl"\ngh --version > /dev/null` },
  { name: "link-call-log", body: `rm -f "$EVAL_GH_CALL_LOG"\nln -s '${victim}' "$EVAL_GH_CALL_LOG"` },
  { name: "exit7", body: "exit 7" },
  {
    name: "link-out-of-out",
    body: 'ln -s /etc/passwd "$OUT/issue.md"\nln -s gh-calls.jsonl "$OUT/inside-link"',
  },
  {
    name: "grade-fails",
    body: "",
    grade: [{ tool: "file-exists", file: "OUT/absent.txt", label: "needs a file" }],
  },
];

beforeAll(async () => {
  writeFileSync(victim, "original\n");
  writeFileSync(stepSummary, "# earlier step\n");
  for (const c of CASES) writeEvalCase(join(dir.path, "cases"), { grade: [published], ...c });
  r = await runEval(["-j", "3", "--json", "--keep", keep, "--junit", junit, join(dir.path, "cases")], {
    TMPDIR: tmp.path,
    GH_TOKEN: "ghp_runner_secret",
    GITHUB_TOKEN: "ghs_runner_secret",
    HTTPS_PROXY: "http://proxy.invalid:3128",
    https_proxy: "http://proxy.invalid:3128",
    GIT_DIR: "/nonexistent/.git",
    GIT_AUTHOR_NAME: "runner",
    EVAL_SOMETHING: "not ours",
    GITHUB_STEP_SUMMARY: stepSummary,
  });
  result = RunResult.parse(JSON.parse(r.stdout));
  return () => {
    dir[Symbol.dispose]();
    tmp[Symbol.dispose]();
  };
});

describe("one invocation, six cases", () => {
  test("each case's code, in input (sorted) order, and the most severe exit", () => {
    expect(result.cases.map((c) => [c.name, c.exitCode, c.result, c.stage])).toEqual([
      ["env-dump", 0, "pass", "done"],
      ["exit7", 7, "error", "subject"],
      ["grade-fails", 1, "fail", "grade"],
      ["link-call-log", 1, "fail", "grade"],
      ["link-in-out", 0, "pass", "done"],
      ["link-out-of-out", 2, "error", "subject"],
    ]);
    expect(result.cases.at(-1)?.message).toBe("subject.sh left links that leave OUT: issue.md");
    expect({ code: r.exitCode, json: result.exitCode, ok: result.ok, counts: result.counts }).toEqual({
      code: 7,
      json: 7,
      ok: false,
      counts: { passed: 2, failed: 2, errors: 2 },
    });
  });

  test("the subject saw exactly the documented environment", () => {
    const text = readFileSync(join(keep, "env-dump", "out", "env.txt"), "utf8");
    const keys = text
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(0, l.indexOf("=")))
      .filter((k) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(k)) // set by bash itself
      .sort();
    expect(keys).toEqual([...SUBJECT_ENV_KEYS].sort());
    expect(text).not.toContain("runner_secret");
    expect(text).not.toContain("proxy.invalid");
  });

  test("a link the subject left at OUT/gh-calls.jsonl is replaced, never followed", () => {
    const out = join(keep, "link-in-out", "out", "gh-calls.jsonl");
    expect({
      victim: readFileSync(victim, "utf8"),
      isLink: lstatSync(out).isSymbolicLink(),
      log: readFileSync(out, "utf8"),
    }).toEqual({ victim: "original\n", isLink: false, log: '{"argv": ["--version"]}\n' });
  });

  test("a call log the subject swapped for a link is not read through it", () => {
    const kept = join(keep, "link-call-log");
    expect({
      published: existsSync(join(kept, "out", "gh-calls.jsonl")),
      log: readFileSync(join(kept, "gh-calls.jsonl"), "utf8"),
    }).toEqual({ published: false, log: "" });
  });

  test("--keep holds OUT (with sandbox.json) and the logs of every case that ran", () => {
    expect(readdirSync(keep).sort()).toEqual([
      "env-dump",
      "exit7",
      "grade-fails",
      "link-call-log",
      "link-in-out",
      "link-out-of-out",
    ]);
    expect(readdirSync(join(keep, "env-dump")).sort()).toEqual([
      "gh-calls.jsonl",
      "out",
      "run.log",
      "subject.stderr",
      "subject.stdout",
    ]);
    const proof = JSON.parse(readFileSync(join(keep, "env-dump", "out", "sandbox.json"), "utf8"));
    expect({ ok: proof.ok, blocked: proof.egress.blocked, mechanism: proof.mechanism }).toEqual({
      ok: true,
      blocked: true,
      mechanism: result.mechanism,
    });
    expect(result.cases.map((c) => c.kept)).toEqual(
      ["env-dump", "exit7", "grade-fails", "link-call-log", "link-in-out", "link-out-of-out"].map((n) =>
        join(keep, n),
      ),
    );
  });

  test("--junit: one testcase per case, failure/error with the output", async () => {
    const parse = await run(
      [
        "python3",
        "-c",
        `import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
out = {"tests": suite.get("tests"), "failures": suite.get("failures"), "errors": suite.get("errors"), "cases": []}
for c in suite.iter("testcase"):
    bad = [k for k in c if k.tag in ("failure", "error")]
    out["cases"].append([c.get("classname"), c.get("name"), bad[0].tag if bad else None,
                         bad[0].get("message") if bad else None, ("✗" in (bad[0].text or "")) if bad else None])
print(json.dumps(out))`,
        junit,
      ],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    expect(JSON.parse(parse.stdout)).toEqual({
      tests: "6",
      failures: "2",
      errors: "2",
      cases: [
        ["run-eval", "env-dump", null, null, null],
        ["run-eval", "exit7", "error", "subject.sh exited 7", true],
        ["run-eval", "grade-fails", "failure", "eval failed: grade-fails", true],
        ["run-eval", "link-call-log", "failure", "eval failed: link-call-log", true],
        ["run-eval", "link-in-out", null, null, null],
        ["run-eval", "link-out-of-out", "error", "subject.sh left links that leave OUT: issue.md", true],
      ],
    });
  });

  test("$GITHUB_STEP_SUMMARY gets a Markdown table appended", () => {
    const md = readFileSync(stepSummary, "utf8");
    const rows = md.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| case"));
    expect({ head: md.split("\n")[0], rows: rows.map((l) => l.split(" | ")[0]) }).toEqual({
      head: "# earlier step",
      rows: [
        "| env-dump",
        "| exit7",
        "| grade-fails",
        "| link-call-log",
        "| link-in-out",
        "| link-out-of-out",
      ],
    });
  });

  test("no work directory is left behind", () => {
    expect(readdirSync(tmp.path).filter((n) => n.startsWith("proctor-eval-"))).toEqual([]);
  });
});

describe("-j: whole blocks in input order", () => {
  test("a slow first case still prints first, and no block interleaves", async () => {
    using d = tempDir("run-eval-order");
    using t = openTmp();
    const names = ["a-slow", "b-fast", "c-fast", "d-fast"];
    const cases = names.map((name, i) =>
      writeEvalCase(d.path, {
        name,
        body: `${i === 0 ? "for _ in $(seq 1 15); do gh --version > /dev/null; done 2>/dev/null || true\n" : ""}echo "${name} says hi"`,
      }),
    );
    const out = await runEval(["-j", "4", ...cases], { TMPDIR: t.path });
    const blocks = out.stdout.split(/^(?=◆ eval )/m).filter((b) => b.startsWith("◆ eval "));
    expect({
      code: out.exitCode,
      order: blocks.map((b) => b.split("\n")[0]),
      whole: blocks.map(
        (b, i) => b.includes(`${names[i]} says hi`) && b.includes(`✓ eval passed: ${names[i]}`),
      ),
    }).toEqual({
      code: 0,
      order: names.map((n) => `◆ eval ${n}`),
      whole: [true, true, true, true],
    });
  });
});

// The release gate end to end through `agent-eval suite` as a user runs it, under --local with real
// agents (P4's built-ins): the control is the oracle (each task's reference fix), the candidate a
// `command` agent that fixes 5 of 6 tasks. The regressed task blocks the gate: exit 3 with
// --fail-on block, the history gains its line, the HTML report its gate section. Then a candidate
// that fixes all 6 ships (exit 0 even with --fail-on hold) and the trend shows both runs.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { loadHistory } from "../../../lib/suite/history.ts";
import { Scorecard } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree } from "../_support.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const TASKS = ["t1", "t2", "t3", "t4", "t5", "t6"];
const FIX = "sed -i 's/\\$1 - \\$2/$1 + $2/' add.sh";

function tree(root: string) {
  const evals = evalsTree(root);
  for (const t of TASKS) {
    const dir = evals.task(
      t,
      `id: ${t}\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\ntimeout: 1m\nsolution: solve.sh\n`,
      t === "t6" ? { ...ADD_REPO, "skip-me": "" } : ADD_REPO,
    );
    writeFileSync(join(dir, "solve.sh"), `#!/bin/sh\n${FIX}\n`);
  }
  const suite = (file: string, command: string) =>
    evals.suite(
      file,
      `name: release\ntasks: [${TASKS.join(", ")}]\ngate: {max_pass_drop: 0.05}\ncontrol: base\nvariants:\n  - {name: base, harness: oracle}\n  - name: cand\n    harness: command\n    command: ${JSON.stringify(command)}\n`,
    );
  return { regressed: suite("regressed", `[ -f skip-me ] || ${FIX}`), fixed: suite("fixed", FIX) };
}

async function suiteRun(cwd: string, args: string[]) {
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const r = await run([process.execPath, ENTRY, "suite", "--local", ...args], { cwd, env });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

describe("agent-eval suite --fail-on / --history, end to end under --local", () => {
  test("a regressed candidate blocks (exit 3); a fixed one ships; the history trends both", async () => {
    using dir = tempDir("proctor-gate-e2e");
    const suites = tree(dir.path);
    const history = join(dir.path, "history.jsonl");
    const common = ["--history", history, "--parallel", "4"];
    const blocked = await suiteRun(dir.path, [
      suites.regressed,
      ...common,
      "--fail-on",
      "block",
      "--trials",
      join(dir.path, "a.jsonl"),
      "--scorecard",
      join(dir.path, "a.json"),
      "--report",
      join(dir.path, "a.html"),
    ]);
    const sc = Scorecard.parse(JSON.parse(readFileSync(join(dir.path, "a.json"), "utf8")));
    const html = readFileSync(join(dir.path, "a.html"), "utf8");
    expect({
      exitCode: blocked.exitCode,
      gateLine: blocked.stderr.split("\n").filter((l) => l.includes("eval gate")),
      gate: sc.gate?.verdict,
      regressed: sc.comparisons?.[0]?.gate?.regressed?.map((t) => t.task),
      verdict: sc.comparisons?.[0]?.verdict,
      markdown: ["**Gate: BLOCK**", "- `t6`: 100% -> 0%", "## Trend (last 1 runs)"].map((s) =>
        blocked.stdout.includes(s),
      ),
      html: ['data-section="gate"', 'data-section="trend"'].map((s) => html.includes(s)),
    }).toEqual({
      exitCode: 3,
      gateLine: ["eval gate: block (--fail-on block)"],
      gate: "block",
      regressed: ["t6"],
      verdict: "no_significant_difference",
      markdown: [true, true, true],
      html: [true, true],
    });

    const shipped = await suiteRun(dir.path, [
      suites.fixed,
      ...common,
      "--fail-on",
      "hold",
      "--trials",
      join(dir.path, "b.jsonl"),
    ]);
    const lines = loadHistory(history);
    const trend = shipped.stdout.slice(shipped.stdout.indexOf("## Trend"));
    expect({
      exitCode: shipped.exitCode,
      gate: shipped.stdout.includes("**Gate: SHIP**"),
      history: lines.map((l) => [l.kind, l.suite, l.gate?.verdict, l.variants?.map((v) => v.name)]),
      trend: trend
        .split("\n")
        .slice(4, 6)
        .map((row) => row.split(" | ").slice(1)),
    }).toEqual({
      exitCode: 0,
      gate: true,
      history: [
        ["offline", "release", "block", ["base", "cand"]],
        ["offline", "release", "ship", ["base", "cand"]],
      ],
      trend: [
        ["block", "100.0%", "83.3% |"],
        ["ship", "100.0%", "100.0% |"],
      ],
    });
  }, 120_000);
});

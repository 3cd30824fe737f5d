// The release flags of `agent-eval suite`: --fail-on's words and exit, --matrix over the original's
// upgrade-gate suite (its cells become the variants, its baseline the control), and every refusal
// (a bad --fail-on, a bad history line, --matrix without a matrix) before any trial runs: one
// `error:` line, exit 1, halo's edge.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { parseGateFlags, prepareRelease, releaseExit } from "../../../lib/suite/gate-cmd.ts";
import type { Scorecard } from "../../../lib/suite/scorecard/index.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const HALOS = join(REPO_ROOT, "tests", "fixtures", "suite", "halos", "evals", "suites", "upgrade-gate.yaml");
const ANY = join(REPO_ROOT, "tests", "fixtures", "suite", "any-agent", "suites", "any.yaml");

describe("--fail-on", () => {
  const gated = (verdict?: "ship" | "hold" | "block") =>
    ({ gate: verdict === undefined ? undefined : { verdict, reasons: [] } }) as unknown as Scorecard;
  // The original's rule: block trips at block and hold; hold trips at hold only; none never.
  const cases = [
    ["none", "block", 0],
    ["block", "ship", 0],
    ["block", "hold", 0],
    ["block", "block", 3],
    ["hold", "ship", 0],
    ["hold", "hold", 3],
    ["hold", "block", 3],
    ["hold", undefined, 0],
  ] as const;
  test.each(cases)("--fail-on %s, gate %s: exit %d", (failOn, verdict, exit) => {
    expect(releaseExit(gated(verdict), parseGateFlags({ "fail-on": failOn }).failOn)).toEqual(exit);
  });
  test.each([["maybe"], ["BLOCK"], [""]])("refuses --fail-on %p", (value) => {
    expect(() => parseGateFlags({ "fail-on": value })).toThrow(
      `--fail-on: expected none, hold or block, got ${JSON.stringify(value)}`,
    );
  });
});

describe("--matrix", () => {
  test("the original's upgrade-gate: six cells, the baseline is the control", () => {
    const s = prepareRelease(loadSuite(HALOS), parseGateFlags({ matrix: true }));
    expect({ control: s.control, cells: s.variants.map((v) => [v.name, v.model]) }).toEqual({
      control: "claude@2.1.312/sonnet/orchestrator",
      cells: [
        ["claude@2.1.312/sonnet/orchestrator", "sonnet"],
        ["claude@2.1.312/sonnet/anthropic-direct", "sonnet-direct"],
        ["codex@0.60.0/codex-default/orchestrator", "codex-default"],
        ["gemini@0.13.0/gemini-default/orchestrator", "gemini-default"],
      ],
    });
  });
  test("without --matrix the suite's own variants run", () => {
    const s = prepareRelease(loadSuite(HALOS), parseGateFlags({}));
    expect([s.control, s.variants.map((v) => v.name)]).toEqual(["current", ["current", "candidate"]]);
  });
});

describe("refused before any trial: one error line, exit 1", () => {
  const cli = async (cwd: string, args: string[]) => {
    const env = { ...(process.env as Record<string, string>) };
    delete env.CI;
    const r = await run(
      [process.execPath, join(REPO_ROOT, "scripts", "agent-eval.ts"), "suite", "--local", ...args],
      {
        cwd,
        env,
      },
    );
    return {
      exitCode: r.exitCode,
      stdout: r.stdout,
      error: r.stderr.split("\n").filter((l) => l.startsWith("error:")),
    };
  };
  test("a bad --fail-on, a bad history line, --matrix without a matrix, a history in no directory", async () => {
    using dir = tempDir("proctor-release-flags");
    const history = join(dir.path, "h.jsonl");
    writeFileSync(history, '{"time":"2026-12-01T10:00:00Z","kind":"offline"}\nnot json\n');
    const trials = join(dir.path, "t.jsonl");
    const got = await Promise.all([
      cli(dir.path, [ANY, "--trials", trials, "--fail-on", "sometimes"]),
      cli(dir.path, [ANY, "--trials", trials, "--history", history]),
      cli(dir.path, [ANY, "--trials", trials, "--matrix"]),
      cli(dir.path, [ANY, "--trials", trials, "--history", join(dir.path, "no", "h.jsonl")]),
    ]);
    expect({ got, history: readFileSync(history, "utf8") }).toEqual({
      got: [
        {
          exitCode: 1,
          stdout: "",
          error: ['error: --fail-on: expected none, hold or block, got "sometimes"'],
        },
        {
          exitCode: 1,
          stdout: "",
          error: [`error: Cannot parse history "${history}": line 2: Expecting value at line 1 column 1`],
        },
        { exitCode: 1, stdout: "", error: ["error: suite any-agent: --matrix: no matrix defined"] },
        {
          exitCode: 1,
          stdout: "",
          error: [
            `error: --history "${join(dir.path, "no", "h.jsonl")}": directory ${join(dir.path, "no")} does not exist`,
          ],
        },
      ],
      history: '{"time":"2026-12-01T10:00:00Z","kind":"offline"}\nnot json\n',
    });
  });
});

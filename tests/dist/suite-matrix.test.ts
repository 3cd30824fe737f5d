// The example matrix workflow (examples/workflows/suite-matrix.yml), run on this machine from the
// YAML itself (tests/dist/_workflow.ts): its 4 shard jobs at once, each through the action's run
// step with its own shard of the fixture suite (the real Claude Code CLI under --local against the
// mock model), their trials handed over as artifacts, then the merge job's own run line. The merged
// scorecard is the whole suite's; without one shard's artifact the merge refuses (exit 2).
import { describe, expect, test } from "bun:test";
import { cpSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadScorecard, renderMarkdown } from "../../lib/suite/scorecard/index.ts";
import { fixtureScript } from "../suite/_support.ts";
import { agentCli } from "../support/agent-clis.ts";
import { startMockModel } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { type JobContext, loadWorkflow, runJob, toolsOnPath } from "./_workflow.ts";

const WORKFLOW = join(REPO_ROOT, "examples", "workflows", "suite-matrix.yml");

/** A fresh workspace, as checkout leaves one: the suites and tasks of this repository. */
function workspace(root: string, name: string): string {
  const ws = join(root, name, "ws");
  for (const d of ["suites", "tasks"])
    cpSync(join(REPO_ROOT, "evals", d), join(ws, "evals", d), { recursive: true });
  return ws;
}

/** The trial lines of a shard's trials file (a shard may also carry a line saying which shard it is). */
const trialLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l && typeof (JSON.parse(l) as { task?: unknown }).task === "string").length;

const brief = (steps: { step: string; exitCode: number }[]) => steps.map((s) => [s.step, s.exitCode]);

const SEAL_KEY = "e2e-seal-key-0123456789abcdef0123456789abcdef";

/** A trials file's header `seal` (the file sealed), or undefined. */
const sealOf = (path: string) => JSON.parse(readFileSync(path, "utf8").split("\n")[0]!).seal;

/** Whether any file under `root` holds `text`. */
function artifactsHold(root: string, text: string): boolean {
  return readdirSync(root, { recursive: true, encoding: "utf8" }).some((rel) => {
    const p = join(root, rel);
    return statSync(p).isFile() && readFileSync(p, "utf8").includes(text);
  });
}

describe("examples/workflows/suite-matrix.yml, locally", () => {
  test("4 shards at once, then the merge: the whole suite's scorecard; a missing shard is refused", async () => {
    await using mock = await startMockModel({ script: fixtureScript() });
    using dir = tempDir("proctor-suite-matrix");
    const wf = loadWorkflow(WORKFLOW);
    const { shard, merge } = wf.jobs;
    if (!shard || !merge) throw new Error("suite-matrix.yml: expected the jobs shard and merge");
    const artifacts = join(dir.path, "artifacts");
    const base = {
      artifacts,
      env: {
        PATH: toolsOnPath(dir.path, [join(agentCli("claude"), "..")]),
        SUITE_FLAGS: `--local --model-url ${mock.url}`,
      },
      secrets: { ANTHROPIC_API_KEY: "e2e-claude-key", PROCTOR_SEAL_KEY: SEAL_KEY },
    } satisfies Omit<JobContext, "cwd">;

    const indexes = shard.strategy?.matrix?.shard ?? [];
    const shards = await Promise.all(
      indexes.map((k) =>
        runJob(wf, shard, { ...base, cwd: workspace(dir.path, `shard-${k}`), matrix: { shard: k } }),
      ),
    );
    const merged = workspace(dir.path, "merge");
    const mergeSteps = await runJob(wf, merge, { ...base, cwd: merged });
    const failed = [...shards.flat(), ...mergeSteps].filter((s) => s.exitCode !== 0);
    expect(failed.map((s) => `${s.step}: ${s.output}`)).toEqual([]);

    const sc = loadScorecard(join(merged, "scorecard.json"));
    expect({
      shards: shards.map(brief),
      trialsPerShard: indexes
        .map((k) => trialLines(join(artifacts, `trials-${k}`, `shard-${k}`, "trials.jsonl")))
        .sort(),
      merge: brief(mergeSteps),
      pass1: sc.variants.map((v) => [v.name, v.trials, v.pass1]),
      stepSummary: readFileSync(join(merged, "..", "summary-job.md"), "utf8") === renderMarkdown(sc),
      report: readdirSync(join(artifacts, "suite-report")).sort(),
      keyInModelLog: JSON.stringify(mock.requests).includes("e2e-claude-key"),
      // Every shard's file sealed, the merge checked the seals, and the seal key is in no file.
      sealed: indexes.map((k) => sealOf(join(artifacts, `trials-${k}`, `shard-${k}`, "trials.jsonl"))),
      mergeSaid: mergeSteps.some((s) => s.output.includes("every seal checked")),
      sealKeyInArtifacts: artifactsHold(artifacts, SEAL_KEY),
    }).toEqual({
      shards: indexes.map((k) => [
        ["actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", 0],
        [`Run shard ${k} of 4`, 0],
        ["actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02", 0],
      ]),
      trialsPerShard: [1, 1, 2, 2],
      merge: [
        ["actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", 0],
        ["Install Proctor", 0],
        ["actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093", 0],
        ["Merge the shards into one scorecard and report", 0],
        ["actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02", 0],
      ],
      pass1: [
        ["control", 3, 0],
        ["fixer", 3, 1],
      ],
      stepSummary: true,
      report: ["report.html", "scorecard.json", "trials"],
      keyInModelLog: false,
      sealed: indexes.map(() => "hmac-sha256"),
      mergeSaid: true,
      sealKeyInArtifacts: false,
    });

    // The same merge without shard 3's artifact: refused, one line, exit 2, nothing uploaded.
    rmSync(join(artifacts, "trials-3"), { recursive: true });
    rmSync(join(artifacts, "suite-report"), { recursive: true });
    const partial = await runJob(wf, merge, { ...base, cwd: workspace(dir.path, "merge-partial") });
    const last = partial.at(-1);
    expect({
      steps: brief(partial),
      errorLines: (last?.output ?? "").split("\n").filter((l) => l.startsWith("error:")).length,
    }).toEqual({
      steps: [
        ["actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", 0],
        ["Install Proctor", 0],
        ["actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093", 0],
        ["Merge the shards into one scorecard and report", 2],
      ],
      errorLines: 1,
    });
  }, 600_000);
});

// The Kubernetes examples' own shell scripts, run on this machine: each Indexed Job pod's script with
// its $JOB_COMPLETION_INDEX (the 4 at once), a retried pod's (it must resume, not refuse its trials
// file), then the merge Job's. Only paths and one flag differ from a cluster: /evals and /trials are
// temp folders, and agent-eval suite runs --local against the mock model (no DinD here), through a
// stand-in that appends those two flags and nothing else. The manifests' schemas: k8s.test.ts.
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { run } from "../../lib/core/proc.ts";
import { loadScorecard } from "../../lib/suite/scorecard/index.ts";
import { fixtureScript } from "../suite/_support.ts";
import { agentCli } from "../support/agent-clis.ts";
import { startMockModel } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { toolsOnPath } from "./_workflow.ts";

const DIR = join(REPO_ROOT, "examples", "k8s");

// biome-ignore lint/suspicious/noExplicitAny: a manifest is untyped YAML
type Doc = Record<string, any>;

/** The script of a Job's container: `command: [/bin/sh, -ec]` with the script as its one arg. */
function script(file: string, container: string): { job: Doc; text: string } {
  const job = parseAllDocuments(readFileSync(join(DIR, file), "utf8"))
    .map((d) => d.toJS() as Doc)
    .find((d) => d.kind === "Job") as Doc;
  const c = job.spec.template.spec.containers.find((x: Doc) => x.name === container);
  expect(c.command).toEqual(["/bin/sh", "-ec"]);
  return { job, text: c.args[0] };
}

describe("examples/k8s scripts, locally", () => {
  test("4 pods at once, a retried pod, then the merge: the whole suite's scorecard", async () => {
    await using mock = await startMockModel({ script: fixtureScript() });
    using dir = tempDir("proctor-k8s-scripts");
    const evals = join(dir.path, "evals");
    const trials = join(dir.path, "trials");
    for (const d of ["suites", "tasks"])
      cpSync(join(REPO_ROOT, "evals", d), join(evals, d), { recursive: true });
    mkdirSync(trials);
    const path = toolsOnPath(dir.path, [join(agentCli("claude"), "..")]);
    // The stand-in: `agent-eval suite` (not merge) gets --local and the mock's URL appended.
    const standIn = join(dir.path, "k8s-bin");
    mkdirSync(standIn);
    writeFileSync(
      join(standIn, "agent-eval"),
      `#!/bin/sh\nif [ "$1" = suite ] && [ "$2" != merge ]; then exec "${join(dir.path, "bin", "agent-eval")}" "$@" --local --model-url "${mock.url}"; fi\nexec "${join(dir.path, "bin", "agent-eval")}" "$@"\n`,
      { mode: 0o755 },
    );
    const local = (text: string) =>
      text.replaceAll("/evals/", `${evals}/`).replaceAll("/trials/", `${trials}/`);
    const env = (k?: number) => {
      const e: Record<string, string> = {
        ...(process.env as Record<string, string>),
        PATH: `${standIn}:${path}`,
        HOME: dir.path,
        ANTHROPIC_API_KEY: "k8s-claude-key",
        PROCTOR_SEAL_KEY: "k8s-seal-key-0123456789abcdef0123456789abcdef",
        ...(k === undefined ? {} : { JOB_COMPLETION_INDEX: String(k) }),
      };
      delete e.CI;
      return e;
    };
    const shard = script("suite-indexed-job.yaml", "shard");
    const merge = script("suite-merge-job.yaml", "merge");
    const pod = (k: number) => run(["/bin/sh", "-ec", local(shard.text)], { cwd: dir.path, env: env(k) });
    const indexes = [...Array(shard.job.spec.completions as number).keys()];

    const pods = await Promise.all(indexes.map(pod));
    const before = readFileSync(join(trials, "shard-0", "trials.jsonl"), "utf8");
    const retried = await pod(0);
    const merged = await run(["/bin/sh", "-ec", local(merge.text)], { cwd: dir.path, env: env() });
    const failed = [...pods, retried, merged].filter((p) => p.exitCode !== 0);
    expect(failed.map((p) => `${p.exitCode}: ${p.stderr}`)).toEqual([]);
    const sc = loadScorecard(join(trials, "scorecard.json"));
    expect({
      pods: pods.map((p) => p.exitCode),
      retried: retried.exitCode,
      retryKeptTheFile: readFileSync(join(trials, "shard-0", "trials.jsonl"), "utf8") === before,
      merged: {
        exitCode: merged.exitCode,
        stderr: merged.stderr.split("\n").filter((l) => l.startsWith("error")),
      },
      pass1: sc.variants.map((v) => [v.name, v.trials, v.pass1]),
      report: readFileSync(join(trials, "report.html"), "utf8").startsWith("<!doctype html>"),
    }).toEqual({
      pods: indexes.map(() => 0),
      retried: 0,
      retryKeptTheFile: true,
      merged: { exitCode: 0, stderr: [] },
      pass1: [
        ["control", 3, 0],
        ["fixer", 3, 1],
      ],
      report: true,
    });
  }, 600_000);
});

// Issue 16's proof for the suite lane: a suite run whole and as 4 shards in parallel, the shards
// merged by `agent-eval suite merge` (a process, as a CI job runs it): the scorecard JSON, the Markdown
// and the HTML report are the whole run's, byte for byte, infrastructure failures carried. Then every
// refusal (missing, duplicated, foreign shards; a trial twice, out of its shard or missing): one
// `error:` line naming the file, exit 2, nothing on stdout.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { writeReport } from "../../../lib/suite/cmd.ts";
import { finishRelease, releaseExit, releaseText } from "../../../lib/suite/gate-cmd.ts";
import { mergeShards } from "../../../lib/suite/merge.ts";
import { scoreSuite, suiteJobs } from "../../../lib/suite/run.ts";
import { renderMarkdown, type Scorecard, scorecardJson } from "../../../lib/suite/scorecard/index.ts";
import { headerLine, shardHeader, shardJobs } from "../../../lib/suite/shard.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { gather, INFRA_TASK, loadSuite, runShards, runWhole, writeSuite } from "./_shards.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

async function merge(args: string[]) {
  const env = { ...(process.env as Record<string, string>) };
  delete env.CI;
  const r = await run([process.execPath, ENTRY, "suite", "merge", ...args], { env, cwd: REPO_ROOT });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const dir = tempDir("suite-merge");
let suitePath = "";
let shardFiles: string[] = [];
let whole: { json: string; md: string; html: string; scorecard: Scorecard };

afterAll(() => dir[Symbol.dispose]());

beforeAll(async () => {
  suitePath = writeSuite(join(dir.path, "evals"));
  const suite = loadSuite(suitePath);
  const wholeDir = join(dir.path, "whole");
  const [w, files] = await Promise.all([
    runWhole(suite, wholeDir),
    runShards(suite, join(dir.path, "run"), 4),
  ]);
  shardFiles = files;
  await writeReport(
    join(wholeDir, "report.html"),
    w.scorecard,
    w.trials,
    join(wholeDir, "shardy.trials.jsonl"),
  );
  whole = {
    json: scorecardJson(w.scorecard),
    md: renderMarkdown(w.scorecard),
    html: readFileSync(join(wholeDir, "report.html"), "utf8"),
    scorecard: w.scorecard,
  };
});

describe("whole vs 4 shards merged", () => {
  test("the merged scorecard JSON, Markdown and HTML report are the whole run's, byte for byte", async () => {
    const into = join(dir.path, "merged");
    const files = gather(shardFiles, into);
    const sc = join(into, "scorecard.json");
    const html = join(into, "report.html");
    const json = await merge([suitePath, ...files, "--output", "json", "--scorecard", sc, "--report", html]);
    const md = await merge([suitePath, ...[...files].reverse(), "--report", join(into, "report.md")]);
    expect({
      json: json.stdout === whole.json,
      scorecardFile: readFileSync(sc, "utf8") === whole.json,
      html: readFileSync(html, "utf8") === whole.html,
      md: md.stdout === whole.md,
      mdFile: readFileSync(join(into, "report.md"), "utf8") === whole.md,
      exit: [json.exitCode, md.exitCode],
      said: md.stderr.includes("merged 4 shards of suite shardy: 24 trials, seed 3"),
    }).toEqual({
      json: true,
      scorecardFile: true,
      html: true,
      md: true,
      mdFile: true,
      exit: [0, 0],
      said: true,
    });
  });

  test("infrastructure failures are carried, the logs linked, every shard non-empty and balanced", () => {
    const merged = mergeShards(loadSuite(suitePath), shardFiles);
    const sizes = shardFiles.map((f) => readFileSync(f, "utf8").trim().split("\n").length - 1);
    expect({
      infra: merged.trials
        .filter((t) => t.infra !== undefined)
        .map((t) => `${t.task}/${t.variant}#${t.repeat}`),
      infraFailures: merged.scorecard.variants.map((v) => v.infraFailures),
      sameAsWhole: scorecardJson(merged.scorecard) === whole.json,
      sizes,
      logs: merged.trials.every(
        (t, i) => t.log !== undefined && merged.bases[i]!.startsWith(join(dir.path, "run")),
      ),
      // An unsharded run's trials file is the original's: no header, a trial on every line.
      wholeFile: readFileSync(join(dir.path, "whole", "shardy.trials.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => Object.keys(JSON.parse(l))[0]),
    }).toEqual({
      infra: [
        `${INFRA_TASK}/control#0`,
        `${INFRA_TASK}/control#1`,
        `${INFRA_TASK}/fixer#0`,
        `${INFRA_TASK}/fixer#1`,
      ],
      infraFailures: [2, 2],
      sameAsWhole: true,
      sizes: [6, 6, 6, 6],
      logs: true,
      wholeFile: Array(24).fill("task"),
    });
  });
});

describe("the gate on the merged run", () => {
  test("--fail-on hold: the gated scorecard and Markdown of the whole run, and its exit", async () => {
    const suite = loadSuite(suitePath);
    const release = { failOn: "hold" as const, matrix: false };
    const { scorecard } = await finishRelease(whole.scorecard, suite, release);
    const [json, md] = await Promise.all([
      merge([suitePath, ...shardFiles, "--fail-on", "hold", "--output", "json"]),
      merge([suitePath, ...shardFiles, "--fail-on", "hold"]),
    ]);
    expect({
      gate: scorecard.gate !== undefined,
      json: json.stdout === scorecardJson(scorecard),
      md: md.stdout === releaseText(scorecard, release),
      exits: [json.exitCode, md.exitCode],
    }).toEqual({
      gate: true,
      json: true,
      md: true,
      exits: [releaseExit(scorecard, "hold"), releaseExit(scorecard, "hold")],
    });
  });
});

describe("more shards than trials", () => {
  test("30 shards of 24 trials, 6 of them only a header: merged, the whole run's scorecard", () => {
    const suite = loadSuite(suitePath);
    const jobs = suiteJobs(suite);
    const byId = new Map(whole.scorecard.trials!.map((t) => [`${t.task}/${t.variant}#${t.repeat}`, t]));
    const files = Array.from({ length: 30 }, (_, index) => {
      const shard = { index, count: 30 };
      const lines = shardJobs(jobs, shard).map((j) =>
        JSON.stringify(byId.get(`${j.task.id}/${j.variant.name}#${j.repeat}`)),
      );
      const path = join(dir.path, "thirty", `shard-${index}.jsonl`);
      mkdirSync(join(dir.path, "thirty"), { recursive: true });
      writeFileSync(
        path,
        headerLine(shardHeader(suite, shard, 3, true)) + lines.map((l) => `${l}\n`).join(""),
      );
      return { path, n: lines.length };
    });
    const merged = mergeShards(
      suite,
      files.map((f) => f.path),
    );
    expect({
      empty: files.filter((f) => f.n === 0).length,
      same: scorecardJson(merged.scorecard) === whole.json,
    }).toEqual({
      empty: 6,
      same: true,
    });
  });
});

describe("tampered trials", () => {
  test("carried through 4 shards: the merged scorecard, Markdown and HTML name them as the whole run's", async () => {
    const suite = loadSuite(suitePath);
    const paths = ["C /usr/bin/bash: the verifier's interpreter"];
    // The fixer's t1 trials were tampered: fails, scored, counted apart, whatever the verifier said.
    const trials = whole.scorecard.trials!.map((t) =>
      t.variant === "fixer" && t.task === "t1"
        ? { ...t, pass: false, tampered: paths, error: `tampered: ${paths[0]}` }
        : t,
    );
    const byId = new Map(trials.map((t) => [`${t.task}/${t.variant}#${t.repeat}`, t]));
    const into = join(dir.path, "tampered");
    mkdirSync(into, { recursive: true });
    const files = Array.from({ length: 4 }, (_, index) => {
      const shard = { index, count: 4 };
      const lines = shardJobs(suiteJobs(suite), shard).map(
        (j) => `${JSON.stringify(byId.get(`${j.task.id}/${j.variant.name}#${j.repeat}`))}\n`,
      );
      const path = join(into, `shard-${index}.jsonl`);
      writeFileSync(path, headerLine(shardHeader(suite, shard, 3, true)) + lines.join(""));
      return path;
    });
    const expected = scoreSuite(suite, trials, { seed: 3, local: true });
    const html = join(into, "report.html");
    const md = await merge([suitePath, ...files, "--report", html]);
    const report = readFileSync(html, "utf8");
    expect({
      json: scorecardJson(mergeShards(suite, files).scorecard) === scorecardJson(expected),
      counts: expected.variants.map((v) => [v.name, v.tampered, v.infraFailures]),
      md: md.stdout === renderMarkdown(expected),
      listed: md.stdout.slice(md.stdout.indexOf("## Tampered")).split("\n").slice(4, 6),
      html: ['data-tampered="t1/fixer/0"', 'data-tampered="t1/fixer/1"'].map((a) => report.includes(a)),
      exit: md.exitCode,
    }).toEqual({
      json: true,
      counts: [
        ["control", undefined, 2],
        ["fixer", 2, 2],
      ],
      md: true,
      listed: [`| fixer | t1 | 0 | ${paths[0]} |`, `| fixer | t1 | 1 | ${paths[0]} |`],
      html: [true, true],
      exit: 0,
    });
  });
});

/** A copy of shard K's file under `name`, its text changed by `edit`. */
function variantOf(k: number, name: string, edit: (lines: string[]) => string[]): string {
  const lines = readFileSync(shardFiles[k]!, "utf8").trimEnd().split("\n");
  const path = join(dir.path, name);
  writeFileSync(path, `${edit(lines).join("\n")}\n`);
  return path;
}

const header = (lines: string[], change: Record<string, unknown>) => [
  JSON.stringify({ ...JSON.parse(lines[0]!), ...change }),
  ...lines.slice(1),
];

describe("refusals: one `error:` line naming the file, exit 2", () => {
  const cases: { name: string; args: () => string[]; stderr: () => string }[] = [
    {
      name: "no trials files",
      args: () => [suitePath],
      stderr: () => "Cannot merge: no trials files given (agent-eval suite merge SUITE.yaml TRIALS...)",
    },
    {
      name: "a missing shard",
      args: () => [suitePath, shardFiles[0]!, shardFiles[1]!, shardFiles[3]!],
      stderr: () => "Cannot merge: shard 2/4 missing (given 3 of 4)",
    },
    {
      name: "a file that does not exist",
      args: () => [suitePath, join(dir.path, "nope.jsonl")],
      stderr: () => `Cannot merge "${join(dir.path, "nope.jsonl")}": no such file`,
    },
    {
      name: "a duplicated shard",
      args: () => [suitePath, ...shardFiles, shardFiles[2]!],
      stderr: () => `Cannot merge "${shardFiles[2]}": shard 2/4 again (also "${shardFiles[2]}")`,
    },
    {
      name: "another suite's shard",
      args: () => [suitePath, variantOf(0, "other-suite.jsonl", (l) => header(l, { suite: "other" }))],
      stderr: () =>
        `Cannot merge "${join(dir.path, "other-suite.jsonl")}": a shard of suite "other", not "shardy"`,
    },
    {
      name: "another seed",
      args: () => [suitePath, shardFiles[0]!, variantOf(1, "seed.jsonl", (l) => header(l, { seed: 7 }))],
      stderr: () => `Cannot merge "${join(dir.path, "seed.jsonl")}": seed 7, but "${shardFiles[0]}" has 3`,
    },
    {
      name: "another network",
      args: () => [
        suitePath,
        shardFiles[0]!,
        variantOf(1, "net.jsonl", (l) => header(l, { network: "bridge" })),
      ],
      stderr: () =>
        `Cannot merge "${join(dir.path, "net.jsonl")}": network bridge, but "${shardFiles[0]}" has none`,
    },
    {
      name: "a bad --fail-on",
      args: () => [suitePath, ...shardFiles, "--fail-on", "maybe"],
      stderr: () => '--fail-on: expected none, hold or block, got "maybe"',
    },
    {
      name: "--seed other than the shards'",
      args: () => [suitePath, ...shardFiles, "--seed", "1"],
      stderr: () => `Cannot merge "${shardFiles[0]}": seed 3, not --seed 1`,
    },
    {
      name: "K out of range",
      args: () => [suitePath, variantOf(0, "k.jsonl", (l) => header(l, { shard: "4/4" }))],
      stderr: () =>
        `Cannot load trials "${join(dir.path, "k.jsonl")}": line 1: Cannot use shard "4/4": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)`,
    },
    {
      name: "N mismatch",
      args: () => [suitePath, shardFiles[0]!, variantOf(1, "n.jsonl", (l) => header(l, { shard: "1/3" }))],
      stderr: () =>
        `Cannot merge "${join(dir.path, "n.jsonl")}": shard 1/3 is one of 3, but "${shardFiles[0]}" is one of 4`,
    },
    {
      name: "a trial twice",
      args: () => [suitePath, variantOf(0, "twice.jsonl", (l) => [...l, l[1]!])],
      stderr: () => {
        const t = JSON.parse(readFileSync(shardFiles[0]!, "utf8").split("\n")[1]!);
        return `Cannot merge "${join(dir.path, "twice.jsonl")}": trial (task "${t.task}", variant "${t.variant}", repeat ${t.repeat}) twice`;
      },
    },
    {
      name: "another shard's trial",
      args: () => [
        suitePath,
        variantOf(0, "stray.jsonl", (l) => [...l, readFileSync(shardFiles[1]!, "utf8").split("\n")[1]!]),
      ],
      stderr: () => {
        const t = JSON.parse(readFileSync(shardFiles[1]!, "utf8").split("\n")[1]!);
        return `Cannot merge "${join(dir.path, "stray.jsonl")}": trial (task "${t.task}", variant "${t.variant}", repeat ${t.repeat}) is no job of shard 0/4 of suite shardy`;
      },
    },
    {
      name: "an unfinished shard",
      args: () => [suitePath, variantOf(0, "short.jsonl", (l) => l.slice(0, -1))],
      stderr: () => {
        const t = JSON.parse(readFileSync(shardFiles[0]!, "utf8").trimEnd().split("\n").at(-1)!);
        return `Cannot merge "${join(dir.path, "short.jsonl")}": shard 0/4 lacks 1 of its 6 trials (first: ${t.task}/${t.variant}#${t.repeat}): finish it with --resume`;
      },
    },
    {
      name: "an unsharded trials file",
      args: () => [suitePath, variantOf(0, "plain.jsonl", (l) => l.slice(1))],
      stderr: () =>
        `Cannot merge "${join(dir.path, "plain.jsonl")}": no shard header: not the trials file of an \`agent-eval suite --shard K/N\` run`,
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      expect(await merge(c.args())).toEqual({ exitCode: 2, stdout: "", stderr: `error: ${c.stderr()}\n` });
    });

  test("a suite changed since the shards ran (its digest) is refused", async () => {
    using other = tempDir("suite-merge-changed");
    const changed = writeSuite(other.path, (id) =>
      id === "t2" ? "fix add.sh, now differently" : `fix add.sh in ${id}`,
    );
    const r = await merge([changed, shardFiles[0]!]);
    expect({
      exitCode: r.exitCode,
      stdout: r.stdout,
      line: r.stderr.split("\n").length,
      starts: r.stderr.split(" (digest")[0],
    }).toEqual({
      exitCode: 2,
      stdout: "",
      line: 2,
      starts: `error: Cannot merge "${shardFiles[0]}": suite "shardy" (or a task) changed since the shard ran`,
    });
  });

  test("a bad suite file is the suite's own error: exit 1", async () => {
    expect(await merge([join(dir.path, "none.yaml"), shardFiles[0]!])).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: Cannot read suite "${join(dir.path, "none.yaml")}": no such file\n`,
    });
  });
});

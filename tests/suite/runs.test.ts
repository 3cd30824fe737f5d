// Runs without ceremony (issue 26): without --trials each `agent-eval suite` run gets its own folder
// in <suite dir>/runs/ (lib/suite/runs.ts: trials.jsonl, the logs beside it, report.html and, last,
// scorecard.json), so the same suite runs twice without a word; stderr names the folder; --resume
// continues the latest unfinished run of that suite (and shard); an explicit --trials FILE keeps its
// refusal to overwrite. Before, the second run stopped at `trials file "x.trials.jsonl" exists`.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { latestUnfinished, newRunFolder, runFolderFor, runsFolder, stamp } from "../../lib/suite/runs.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { ADD_REPO, evalsTree } from "./_support.ts";

const AT = new Date("2026-12-05T01:22:33.456Z");

describe("runs.ts", () => {
  test("a folder per run: UTC time, the suite's name made safe, -2 in the same second, a shard's K-of-N", () => {
    using dir = tempDir("runs");
    const folder = join(dir.path, "runs");
    const made = [
      newRunFolder(folder, "a/b c", undefined, AT),
      newRunFolder(folder, "a/b c", undefined, AT),
      newRunFolder(folder, "a/b c", { index: 1, count: 4 }, AT),
    ];
    expect({
      stamp: stamp(AT),
      made: made.map((m) => ({ ...m, dir: m.dir.slice(folder.length + 1) })),
      ignore: readFileSync(join(folder, ".gitignore"), "utf8"),
    }).toEqual({
      stamp: "20261205T012233Z",
      made: [
        {
          dir: "a_b_c-20261205T012233Z",
          trials: join(folder, "a_b_c-20261205T012233Z", "trials.jsonl"),
          report: join(folder, "a_b_c-20261205T012233Z", "report.html"),
          scorecard: join(folder, "a_b_c-20261205T012233Z", "scorecard.json"),
          resumed: false,
        },
        {
          dir: "a_b_c-20261205T012233Z-2",
          trials: join(folder, "a_b_c-20261205T012233Z-2", "trials.jsonl"),
          report: join(folder, "a_b_c-20261205T012233Z-2", "report.html"),
          scorecard: join(folder, "a_b_c-20261205T012233Z-2", "scorecard.json"),
          resumed: false,
        },
        {
          dir: "a_b_c-20261205T012233Z-shard-1-of-4",
          trials: join(folder, "a_b_c-20261205T012233Z-shard-1-of-4", "trials.jsonl"),
          report: join(folder, "a_b_c-20261205T012233Z-shard-1-of-4", "report.html"),
          scorecard: join(folder, "a_b_c-20261205T012233Z-shard-1-of-4", "scorecard.json"),
          resumed: false,
        },
      ],
      ignore: "*\n",
    });
  });

  test("--resume: the latest run of this suite and shard with trials and no scorecard.json", () => {
    using dir = tempDir("runs-resume");
    const folder = join(dir.path, "runs");
    const mk = (name: string, files: string[]) => {
      mkdirSync(join(folder, name), { recursive: true });
      for (const f of files) writeFileSync(join(folder, name, f), "");
    };
    mk("s-20261201T000000Z", ["trials.jsonl"]); // unfinished, older
    mk("s-20261202T000000Z-2", ["trials.jsonl"]); // unfinished, the latest of s
    mk("s-20261202T000000Z-10", ["trials.jsonl", "scorecard.json"]); // finished, later still
    mk("s-20261203T000000Z", []); // made, but no trial was ever started
    mk("s-20261204T000000Z-shard-0-of-2", ["trials.jsonl"]); // another shard's
    mk("other-20261205T000000Z", ["trials.jsonl"]); // another suite's
    mk("s-x-20261205T000000Z", ["trials.jsonl"]); // suite "s-x"
    const latest = (suite: string, shard?: { index: number; count: number }) =>
      latestUnfinished(folder, suite, shard)?.dir.slice(folder.length + 1);
    expect({
      s: latest("s"),
      shard0: latest("s", { index: 0, count: 2 }),
      shard1: latest("s", { index: 1, count: 2 }),
      none: latest("nothing"),
    }).toEqual({
      s: "s-20261202T000000Z-2",
      shard0: "s-20261204T000000Z-shard-0-of-2",
      shard1: undefined,
      none: undefined,
    });
  });

  test("the runs folder is beside the suite file, never the working directory", () => {
    using dir = tempDir("runs-where");
    const suite = join(dir.path, "evals", "suites", "s.yaml");
    const made = runFolderFor(suite, "s", { resume: true });
    expect({
      folder: runsFolder(suite),
      under: made.dir.startsWith(join(dir.path, "evals", "suites", "runs")),
    }).toEqual({
      folder: join(dir.path, "evals", "suites", "runs"),
      under: true,
    });
  });
});

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

async function suite(args: string[], cwd: string, home = join(cwd, "..")) {
  const r = await run([process.execPath, ENTRY, "suite", ...args, "--local", "--output", "json"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, CI: "1" },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A one-task suite with the builtin nop and oracle variants (no model, no key). */
function offlineSuite(root: string): string {
  const tree = evalsTree(root);
  tree.task(
    "fix-add",
    "id: fix-add\nrepo: repo\nprompt: p\ncheck: sh test.sh\nsolution: solve.sh\n",
    ADD_REPO,
  );
  writeFileSync(join(root, "tasks", "fix-add", "solve.sh"), "sed -i 's/- /+ /' add.sh\n");
  return tree.suite(
    "offline",
    "name: offline\ntasks: [fix-add]\ncontrol: nop\nvariants:\n  - {name: nop, harness: nop}\n  - {name: oracle, harness: oracle}\n",
  );
}

describe("agent-eval suite without --trials", () => {
  test("twice: two run folders beside the suite, each whole; --resume continues the unfinished one", async () => {
    using dir = tempDir("runs-cli");
    const path = offlineSuite(dir.path);
    const work = join(dir.path, "elsewhere");
    mkdirSync(work);
    const first = await suite([path], work);
    const second = await suite([path], work);
    const folder = join(dir.path, "suites", "runs");
    const runs = readdirSync(folder)
      .filter((n) => n !== ".gitignore")
      .sort();
    const line = (n: string) => `offline: run folder ${join(folder, n)}`;
    const done = (n: string) => `offline: trials, logs, report.html and scorecard.json in ${join(folder, n)}`;
    // The first run, as if it had been stopped before its end: --resume continues it, not a new one.
    rmSync(join(folder, runs[0]!, "scorecard.json"));
    const resumed = await suite([path, "--resume"], work);
    expect({
      codes: [first.exitCode, second.exitCode, resumed.exitCode],
      runs: runs.length,
      files: runs.map((n) => readdirSync(join(folder, n)).sort()),
      stderr: [first.stderr, second.stderr].map((e) => e.split("\n").filter((l) => l.startsWith("offline:"))),
      resumed: resumed.stderr.split("\n").filter((l) => /^offline:|^resumed:/.test(l)),
      cwd: readdirSync(work),
      pass1: JSON.parse(first.stdout).variants.map((v: { pass1: number }) => v.pass1),
    }).toEqual({
      codes: [0, 0, 0],
      runs: 2,
      files: runs.map(() => ["report.html", "scorecard.json", "trials.jsonl", "trials.logs"]),
      stderr: runs.map((n) => [line(n), done(n)]),
      resumed: [
        `offline: resuming the run in ${join(folder, runs[0]!)}`,
        "resumed: 2 finished trials kept, 0 run",
        done(runs[0]!),
      ],
      cwd: [], // nothing in the working directory
      pass1: [0, 1],
    });
    expect(existsSync(join(folder, runs[0]!, "scorecard.json"))).toBe(true);
  }, 120_000);

  test("an explicit --trials FILE still refuses to start over", async () => {
    using dir = tempDir("runs-cli-trials");
    const path = offlineSuite(dir.path);
    const trials = join(dir.path, "t.jsonl");
    writeFileSync(trials, "");
    expect(await suite([path, "--trials", trials], dir.path)).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `error: trials file "${trials}" exists: --resume continues it; to start over remove it, or write another with --trials FILE\n`,
    });
  });
});
